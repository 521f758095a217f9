#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "multiplexer/connection_thread.h"
#include "multiplexer/message_pool.h"
#include "multiplexer/transport.h"

struct ibv_pd;
struct ibv_comp_channel;
struct ibv_context;
struct ibv_mr;
struct rdma_cm_id;
struct rdma_event_channel;

namespace shoal::multiplexer {

class RdmaLink;

/// RDMA over rdma-core: rdma_cm sets up one reliable-connected queue pair per
/// peer pair; messages move with two-sided send/receive (channel semantics)
/// from pool buffers that are registered once per slab, never per message.
/// Completions arrive as events on one completion channel in the network
/// thread's epoll set (or are polled, with --busy-poll). Control frames are
/// 16-byte inline sends. Flow control is the multiplexer's credit scheme: a
/// peer never has more data messages outstanding than we have receive
/// buffers posted for it; control frames use a few extra buffers, and
/// RNR retry covers a burst of them.
class RdmaTransport final : public Transport {
 public:
  /// The transport for this node's address, or null with the reason (no RDMA
  /// device, or none that holds this node's address).
  static std::unique_ptr<RdmaTransport> create(LinkIdentity identity, bool busyPoll, std::string* whyNot);
  ~RdmaTransport() override;

  /// Whether rdma_cm can resolve the peer's address to this node's device.
  bool canReach(NodeId peer, std::string* whyNot);
  /// Registers pool memory with the device (ibv_reg_mr), once per slab.
  MemoryRegistrar registrar();

  std::string_view name() const override { return "rdma"; }
  Status start(EventLoop& loop, LinkEvents& events, MessagePool& receivePool) override;
  void connect(NodeId peer) override;
  void runPending() override;
  bool poll() override;
  void stop() override;

 private:
  friend class RdmaLink;
  /// A link closed: stop routing its rdma_cm events to it.
  void forget(rdma_cm_id* id) { links_.erase(id); }

  struct Established {
    std::unique_ptr<RdmaLink> link;
    NodeId peer = 0;
    std::string error;
  };

  RdmaTransport(LinkIdentity identity, bool busyPoll, rdma_event_channel* listenChannel, rdma_cm_id* listenId,
                ibv_pd* pd, ibv_comp_channel* completions);
  void handleListenEvent();
  Established connectTo(NodeId peer);
  std::unique_ptr<RdmaLink> makeLink(rdma_cm_id* id, NodeId peer, uint32_t peerWindow, std::string* error);
  void onCompletionEvent();
  void onConnectionEvent();

  LinkIdentity identity_;
  bool busyPoll_;
  rdma_event_channel* listenChannel_;
  rdma_cm_id* listenId_;
  ibv_pd* pd_;
  ibv_comp_channel* completions_;
  rdma_event_channel* linkChannel_ = nullptr;  // established connections' events, on the network thread
  std::vector<ibv_mr*> regions_;
  mutable std::mutex regionsMutex_;

 public:
  /// Memory regions registered with the device so far: once per pool slab, never per message.
  uint64_t registrations() const {
    std::lock_guard lock(regionsMutex_);
    return regions_.size();
  }

 private:
  EventLoop* loop_ = nullptr;
  LinkEvents* events_ = nullptr;
  MessagePool* receivePool_ = nullptr;
  ConnectionThread connectionThread_;
  bool stopped_ = false;
  std::mutex mutex_;
  std::vector<Established> established_;  // connections done, for the network thread
  /// Accepted connections waiting for rdma_cm's ESTABLISHED event (connection thread only).
  std::unordered_map<rdma_cm_id*, std::unique_ptr<RdmaLink>> accepting_;
  /// Live links by connection id (network thread only), for rdma_cm events.
  std::unordered_map<rdma_cm_id*, RdmaLink*> links_;
};

}  // namespace shoal::multiplexer
