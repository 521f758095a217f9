#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <unordered_set>

#include "multiplexer/message_pool.h"
#include "multiplexer/transport.h"

struct ibv_cq;
struct ibv_wc;
struct rdma_cm_id;

namespace shoal::multiplexer {

class RdmaTransport;

/// One RC queue pair to one peer. Receive buffers (pool messages) are posted
/// up front and reposted when consumers release them; sends post the message
/// buffer itself. Data sends are signaled; inline control sends only every
/// 16th, so their completions cost little.
class RdmaLink final : public PeerLink {
 public:
  RdmaLink(RdmaTransport& transport, rdma_cm_id* id, ibv_cq* cq, NodeId peer, uint32_t peerWindow, uint32_t sendDepth,
           MessagePool& receivePool);
  ~RdmaLink() override;

  /// Posts `count` receive buffers; false (with `error`) when the pool or the device refuses.
  bool postInitialReceives(uint32_t count, std::string* error);
  /// Called once the connection is established and handed to the network thread.
  void attach(EventLoop& loop, LinkEvents& events);

  std::string_view transportName() const override { return "rdma"; }
  void sendData(Message* message) override;
  void sendControl(FrameKind kind, uint64_t value) override;
  size_t dataInFlight() const override { return inFlight_.size() + pendingData_.size(); }
  void returnReceiveBuffer(Message* message) override;
  void close() override;

  /// Drains the completion queue; called on a completion event or when busy polling.
  void pollCompletions();
  /// Asks for a completion event (unless busy polling), then drains the queue.
  void armAndPoll(bool busyPoll);
  void lose(const std::string& reason);
  rdma_cm_id* id() const { return id_; }
  ibv_cq* cq() const { return cq_; }

 private:
  struct SentData {
    uint64_t sequence;
    Message* message;
  };

  enum class Posted { kPosted, kQueueFull, kLinkLost };
  /// Posts one send work request (ids are sequence numbers); a device error loses the link.
  Posted postSend(const std::byte* data, uint32_t bytes, uint32_t memoryKey, unsigned flags);
  bool postReceive(Message* message, std::string* error);
  bool postData(Message* message);
  bool postControl(const std::array<std::byte, kFrameHeaderBytes>& frame);
  void flushPending();
  void onReceive(const ibv_wc& completion);
  void onSendCompleted(uint64_t sequence);

  RdmaTransport& transport_;
  rdma_cm_id* id_;
  ibv_cq* cq_;
  uint32_t sendDepth_;
  MessagePool& receivePool_;
  uint32_t receiveNumaNode_;
  LinkEvents* events_ = nullptr;
  bool closed_ = false;

  uint64_t nextSequence_ = 1;
  uint64_t completedSequence_ = 0;
  uint32_t unsignaledControl_ = 0;
  std::deque<SentData> inFlight_;
  std::deque<Message*> pendingData_;
  std::deque<std::array<std::byte, kFrameHeaderBytes>> pendingControl_;
  std::unordered_set<Message*> postedReceives_;
};

}  // namespace shoal::multiplexer
