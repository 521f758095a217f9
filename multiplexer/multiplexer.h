#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/numa_topology.h"
#include "common/status.h"
#include "multiplexer/event_loop.h"
#include "multiplexer/exchange_inbox.h"
#include "multiplexer/message_pool.h"
#include "multiplexer/network_schedule.h"
#include "multiplexer/receive_side.h"
#include "multiplexer/transport.h"

namespace shoal::multiplexer {

enum class TransportChoice { kAuto, kRdma, kTcp };
std::string_view transportChoiceName(TransportChoice choice);
std::optional<TransportChoice> parseTransportChoice(std::string_view text);

struct MultiplexerOptions {
  NodeId self = 0;
  /// Every node of the cluster, indexed by node id; `nodes[self]` is where this node listens.
  std::vector<NodeAddress> nodes;
  /// Only nodes with the same cluster id and secret may connect (checked in the handshake).
  std::string clusterId = "shoal";
  std::string secret;
  TransportChoice transport = TransportChoice::kAuto;
  ScheduleKind schedule = ScheduleKind::kRoundRobin;
  /// Round-robin: messages to one target before the nodes move to the next phase.
  uint32_t messagesPerPhase = 8;
  /// Payload bytes per message; every node of a cluster must agree.
  size_t messageBytes = 512 * 1024;
  /// Send-side messages per NUMA node; producers wait when all are in use.
  uint32_t sendMessagesPerNumaNode = 64;
  /// Data messages a peer may send this node before it returns credits.
  uint32_t receiveWindow = 16;
  std::chrono::milliseconds heartbeatInterval{250};
  /// A connected peer that sends nothing (not even a heartbeat) this long is lost.
  std::chrono::milliseconds peerTimeout{3000};
  std::chrono::milliseconds reconnectInterval{200};
  /// Poll RDMA completions instead of sleeping on the completion channel.
  bool busyPoll = false;
  /// Pretend there are this many NUMA nodes (0: detect), as the storage does in tests.
  uint32_t fakeNumaNodes = 0;
  /// Pins the network thread to this CPU (-1: the scheduler places it).
  int networkCpu = -1;
  /// How long a closed exchange's id is remembered (a straggler for it is then dropped), and how long messages
  /// may wait for a consumer to open their exchange: far beyond any straggler of a query that ended, well
  /// short of a worker's uptime.
  std::chrono::milliseconds forgetExchangesAfter{std::chrono::seconds(60)};
};

enum class PeerState { kConnecting, kConnected, kLost };

struct PeerStatus {
  PeerState state = PeerState::kConnecting;
  std::string transport;  // "tcp", "rdma", or empty before the first connection
  std::string lostReason;
};

struct MultiplexerStats {
  uint64_t messagesSent = 0;
  uint64_t bytesSent = 0;
  uint64_t messagesReceived = 0;
  uint64_t bytesReceived = 0;
  uint64_t controlFramesSent = 0;
  uint64_t phases = 0;
  uint64_t connectionsRefused = 0;
  /// Memory regions registered with the RDMA device (0 over TCP).
  uint64_t memoryRegistrations = 0;
  /// Per NUMA node: messages its consumers took from their own node's queues, and from other nodes' queues.
  std::vector<uint64_t> consumedLocally;
  std::vector<uint64_t> stolen;
  /// Messages that waited for their consumer as heap copies, since it could not run (ReceiveSide).
  uint64_t heapCopies = 0;
  uint64_t heapCopyBytes = 0;
};

/// One per node: a dedicated network thread that moves exchange messages
/// between this node and every other node (the paper's section 3.2.2). Only
/// the multiplexers are connected with each other, one connection per pair.
/// Producers (exchange operators on any worker thread) hand it full messages;
/// it sends them by the network schedule, within the receivers' credits, and
/// files what arrives into per-exchange inboxes with one queue per NUMA node.
///
/// Node i connects to every node below it and accepts from every node above
/// it; a lost peer is reconnected by the connecting side. The wire protocol
/// is described in docs/multiplexer-protocol.md.
///
/// Consumers must release every message they hold (and drop their inboxes)
/// before the multiplexer is destroyed: received messages live in its pools. Every open exchange
/// that still waits for a lost peer fails within the loss detection time
/// (immediately on a connection error, `peerTimeout` for a silent peer).
class Multiplexer final : private LinkEvents {
 public:
  explicit Multiplexer(MultiplexerOptions options);
  ~Multiplexer() override;
  Multiplexer(const Multiplexer&) = delete;
  Multiplexer& operator=(const Multiplexer&) = delete;

  /// Chooses transports, starts listening and connecting, and starts the network thread.
  Status start();
  /// Waits until every peer is connected; false after `timeout`.
  bool waitForPeers(std::chrono::milliseconds timeout);
  /// Orderly shutdown: sends what is queued (for up to `drainTimeout`), says
  /// goodbye to every peer and stops the network thread. Open exchanges fail.
  void shutdown(std::chrono::milliseconds drainTimeout = std::chrono::seconds(5));

  NodeId self() const { return options_.self; }
  uint32_t clusterSize() const { return static_cast<uint32_t>(options_.nodes.size()); }
  const NumaTopology& topology() const { return topology_; }
  size_t messageBytes() const { return options_.messageBytes; }

  /// An empty message from `numaNode`'s pool, waiting while the pool is
  /// exhausted (backpressure); null after `timeout` or at shutdown.
  Message* acquire(uint32_t numaNode, std::chrono::milliseconds timeout = std::chrono::hours(24));
  /// Sends one message (exchange id, last flag and payload set) to one node,
  /// this node included. Takes the caller's reference. Fails with 08006 when
  /// the destination is lost, and the message is released.
  Status send(NodeId destination, Message* message);
  /// Sends one message to every other node (once each, from the same buffer)
  /// and, with `includeSelf`, delivers it here too.
  Status broadcast(Message* message, bool includeSelf);

  /// The inbox of one exchange on this node, created on first use (by a
  /// consumer or by the first message to arrive).
  std::shared_ptr<ExchangeInbox> openExchange(ExchangeId id);
  /// Forgets an exchange: its queued messages are released and later ones dropped.
  void closeExchange(ExchangeId id);

  PeerStatus peerStatus(NodeId node) const;
  MultiplexerStats stats() const;
  /// The pools, for tests that check that memory stays bounded.
  const MessagePool& sendPool() const { return *sendPool_; }
  const MessagePool& receivePool() const { return *receivePool_; }

 private:
  using Clock = std::chrono::steady_clock;

  struct Peer {
    NodeId id = 0;
    std::unique_ptr<PeerLink> link;
    Transport* connectVia = nullptr;
    std::deque<Message*> sendQueue;
    uint32_t credits = 0;
    uint32_t creditsToReturn = 0;
    Clock::time_point lastHeard;
    Clock::time_point lastSent;
    Clock::time_point nextConnectAttempt;
    bool connectPending = false;
    bool saidGoodbye = false;
  };
  struct Submission {
    NodeId destination;
    Message* message;
  };

  Status chooseTransports();
  void networkThreadMain();
  void drainSubmissions();
  void drainReleasedReceives();
  void pumpSends();
  void pumpFree();
  void pumpRoundRobin();
  bool sendQueued(Peer& peer, uint32_t limit);
  void runTimers();
  /// How long the network thread may sleep before a timer (heartbeat, peer timeout, reconnect) is due.
  int millisecondsUntilNextTimer() const;
  /// Whether some connected peer has queued messages and credits to take them.
  bool anySendable() const;
  bool allSendsDone();
  void sendControl(Peer& peer, FrameKind kind, uint64_t value);
  void markLost(Peer& peer, const std::string& reason);
  void failSendQueue(Peer& peer);
  void deliverLocally(Message* message);
  void onReceiveReleased(Message* message);
  Status peerLostStatus(NodeId node) const;
  void setPeerStatus(NodeId node, PeerState state, const std::string& transport, const std::string& reason);
  bool isConnector(NodeId peer) const { return peer < options_.self; }

  // LinkEvents, on the network thread.
  void onLinkUp(std::unique_ptr<PeerLink> link) override;
  void onConnectFailed(NodeId peer, const std::string& reason) override;
  void onDataFrame(PeerLink& link, Message* message) override;
  void onControlFrame(PeerLink& link, const FrameHeader& header) override;
  void onSendComplete(PeerLink& link, Message* message) override;
  void onLinkLost(PeerLink& link, const std::string& reason) override;
  void onConnectionRefused(const std::string& transport, const std::string& from, const std::string& why) override;

  MultiplexerOptions options_;
  NumaTopology topology_;
  std::unique_ptr<MessagePool> sendPool_;
  std::unique_ptr<MessagePool> receivePool_;
  std::shared_ptr<ReceiveSide> receiveSide_;
  EventLoop loop_;
  std::vector<std::unique_ptr<Transport>> transports_;
  Transport* tcp_ = nullptr;
  Transport* rdma_ = nullptr;
  std::thread networkThread_;
  std::atomic<bool> started_{false};
  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> acceptingSends_{false};
  Clock::time_point drainDeadline_;

  // Network thread only.
  std::vector<Peer> peers_;
  std::optional<RoundRobinSchedule> roundRobin_;
  size_t freeScheduleCursor_ = 0;
  uint64_t nextEpoch_ = 1;
  std::vector<std::unique_ptr<PeerLink>> closedLinks_;

  // Shared with producers and consumers.
  std::atomic<bool> wakePending_{false};
  std::mutex submissionMutex_;
  std::vector<Submission> submissions_;
  std::vector<Message*> releasedReceives_;
  bool networkStopped_ = false;  // guarded by submissionMutex_
  mutable std::mutex inboxMutex_;
  std::unordered_map<ExchangeId, std::shared_ptr<ExchangeInbox>> inboxes_;
  /// Exchanges closed lately: a message that arrives for one after it closed is dropped. Each id is kept
  /// options_.forgetExchangesAfter (closedOrder_, oldest first), so that a worker serving queries for months does not
  /// keep every id it ever closed.
  std::unordered_set<ExchangeId> closedExchanges_;
  std::deque<std::pair<Clock::time_point, ExchangeId>> closedOrder_;
  /// Inboxes that messages made before any consumer opened them, and since when: one no consumer opens
  /// within options_.forgetExchangesAfter (its query ended on this node before it started here) is dropped with
  /// its messages, which would otherwise hold receive buffers forever.
  std::unordered_map<ExchangeId, Clock::time_point> unopenedSince_;
  /// Drops what options_.forgetExchangesAfter has passed for. Needs inboxMutex_.
  void forgetOldExchangesLocked(Clock::time_point now);
  mutable std::mutex statusMutex_;
  std::condition_variable statusChanged_;
  std::vector<PeerStatus> peerStatus_;
  std::atomic<uint64_t> messagesSent_{0}, bytesSent_{0}, messagesReceived_{0}, bytesReceived_{0}, controlFramesSent_{0},
      phases_{0}, connectionsRefused_{0};

  void wakeNetworkThread();
};

}  // namespace shoal::multiplexer
