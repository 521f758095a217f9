#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "common/status.h"
#include "multiplexer/message.h"
#include "multiplexer/receive_side.h"

namespace shoal::multiplexer {

/// The receive side of one exchange on one node: one FIFO queue per NUMA
/// node. The queues are filled in turn by sender (sender s lands in queue
/// s mod nodes, which is also where its receive buffers live), so every
/// sender's messages stay in one FIFO and reach consumers in the order they
/// were sent. A consumer takes from its own node's queue first and steals
/// from the others only when its own is empty (the paper's steps 5a and 5b).
///
/// A message waits in its receive buffer while its consumer can run, and as a heap copy (charged to the
/// heap account, when one is set) while it cannot: see ReceiveSide.
///
/// The stream ends when every expected sender has sent its last message. A
/// sender that is lost before that fails the stream.
class ExchangeInbox {
 public:
  /// `receiveSide`: shared by the node's inboxes (null: every message waits in its buffer, uncounted).
  ExchangeInbox(ExchangeId id, uint32_t numaNodes, uint32_t clusterNodes,
                std::shared_ptr<ReceiveSide> receiveSide = nullptr);
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
  /// The next message if one is queued (in `numaNode`'s queue only, unless `steal`); null message with OK
  /// status when none is (or the stream ended).
  Received tryReceive(uint32_t numaNode, bool steal = true);
  /// Every sender finished and every message was taken.
  bool finished() const;
  /// Messages that came from another node's queue than the consumer's own.
  uint64_t stolenMessages() const;
  /// Per consumer NUMA node: messages taken from its own node's queue, and stolen from another's.
  struct Consumed {
    std::vector<uint64_t> locally;
    std::vector<uint64_t> stolen;
  };
  Consumed consumed() const;

  /// `listener` runs after every change a consumer may be waiting for (a message, the end, a failure), on
  /// the thread that made it and outside the inbox's lock; keep it short. Replaces any earlier one.
  void setListener(std::function<void()> listener);
  /// Returns once no call of the listener is running any more, and none will start.
  void clearListener();

  /// A consumer opened the inbox (Multiplexer::openExchange). Before, its messages always wait in their
  /// buffers, holding their senders back.
  void markOpened();
  /// Whether the consumer can take messages now (by default it can, and an inbox no consumer opened yet
  /// holds its messages in their buffers: its senders wait). While it cannot (its pipeline waits for
  /// others), messages wait as heap copies, those already here included.
  void setConsumerReady(bool ready);
  /// Copies every message waiting in a receive buffer to the heap and releases the buffer (this node's
  /// producers wait for send buffers: ReceiveSide).
  void moveBuffersToHeap();

  /// What a heap copy's bytes are charged to: called with +bytes as copies are made (an error fails the
  /// stream) and -bytes as they are taken.
  using HeapAccount = std::function<Status(int64_t bytes)>;
  /// Charges the heap copies waiting now, then every later one. Fails the stream if that is refused.
  void setHeapAccount(HeapAccount account);
  /// Gives back what is charged and stops charging.
  void clearHeapAccount();
  /// Bytes of heap copies waiting now.
  uint64_t heapBytes() const;

 private:
  struct Queued {
    Message* message;
    bool onHeap;  // a copy (heapBytes_ counts it), not the receive buffer
  };
  /// Copies `message` to the heap, charging it. Null (and the stream failed) when the charge is refused.
  Message* copyLocked(const Message& message);
  /// Whether an arriving message must wait as a heap copy (ReceiveSide).
  bool mustWaitOnHeapLocked() const;
  Message* popLocked(uint32_t numaNode, bool steal = true);
  /// Empties the queues into `taken`, giving back the heap charges.
  void takeAllLocked(std::vector<Message*>& taken);
  bool endedLocked() const;
  void notifyChanged();

  ExchangeId id_;
  std::shared_ptr<ReceiveSide> receiveSide_;
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::vector<std::deque<Queued>> queues_;
  std::vector<bool> senderFinished_;
  uint32_t sendersFinished_ = 0;
  size_t queued_ = 0;
  std::optional<Status> failure_;
  uint64_t stolen_ = 0;
  Consumed consumed_;
  bool opened_ = false;
  bool consumerReady_ = true;
  uint64_t heapBytes_ = 0;   // guarded by mutex_
  HeapAccount heapAccount_;  // guarded by mutex_; while set, it holds heapBytes_

  std::mutex listenerMutex_;  // held while the listener runs
  std::function<void()> listener_;
};

}  // namespace shoal::multiplexer
