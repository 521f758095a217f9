#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "common/status.h"
#include "multiplexer/message.h"

namespace shoal::multiplexer {

/// The receive side of one exchange on one node: one FIFO queue per NUMA
/// node. The queues are filled in turn by sender (sender s lands in queue
/// s mod nodes, which is also where its receive buffers live), so every
/// sender's messages stay in one FIFO and reach consumers in the order they
/// were sent. A consumer takes from its own node's queue first and steals
/// from the others only when its own is empty (the paper's steps 5a and 5b).
///
/// The stream ends when every expected sender has sent its last message. A
/// sender that is lost before that fails the stream.
class ExchangeInbox {
 public:
  ExchangeInbox(ExchangeId id, uint32_t numaNodes, uint32_t clusterNodes);
  ~ExchangeInbox();
  ExchangeInbox(const ExchangeInbox&) = delete;
  ExchangeInbox& operator=(const ExchangeInbox&) = delete;

  ExchangeId id() const { return id_; }

  /// Restricts the senders the stream waits for (by default: every node of
  /// the cluster, this one included). Messages from the others are dropped.
  void expectSendersOnly(const std::vector<NodeId>& senders);

  /// Called by the network thread (or a local producer) with one reference.
  /// An empty last message only marks its sender finished.
  void deliver(Message* message);
  /// Fails the stream if `sender` has not finished it yet.
  void failSender(NodeId sender, const Status& reason);
  /// Fails the stream for every consumer (cancellation, shutdown).
  void fail(const Status& reason);

  struct Received {
    /// The message (the caller owns one reference and must release it), or
    /// null when the stream has ended.
    Message* message = nullptr;
    Status status;
  };
  /// Waits for the next message, preferring `numaNode`'s queue. Returns an
  /// error status if the stream failed, and a timeout error after `timeout`.
  Received receive(uint32_t numaNode, std::chrono::milliseconds timeout = std::chrono::hours(24));
  /// The next message if one is queued; null message with OK status when none is (or the stream ended).
  Received tryReceive(uint32_t numaNode);
  bool finished() const;
  /// Messages that came from another node's queue than the consumer's own.
  uint64_t stolenMessages() const;

 private:
  Message* popLocked(uint32_t numaNode);
  bool endedLocked() const;

  ExchangeId id_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<std::deque<Message*>> queues_;
  std::vector<bool> senderFinished_;
  uint32_t sendersFinished_ = 0;
  size_t queued_ = 0;
  std::optional<Status> failure_;
  uint64_t stolen_ = 0;
};

}  // namespace shoal::multiplexer
