#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace shoal::multiplexer {

/// What all of one node's exchange inboxes share: whether this node's producers are waiting for send
/// buffers, and counters of where messages were consumed.
///
/// A message waits for its consumer in its receive buffer, holding its sender's credit, so a slow consumer
/// throttles its senders. That is safe only while the consumer can run. It cannot when this node's threads
/// are all producers waiting for send buffers (their peers' credits are held by consumers waiting for
/// threads in turn), or before its pipeline is ready (a probe waiting for its join build). Then messages
/// wait as heap copies instead, and their buffers go back at once: while any producer here waits, every
/// arriving message, and what already waits, is copied (ExchangeInbox).
class ReceiveSide {
 public:
  explicit ReceiveSide(uint32_t numaNodes)
      : numaNodes_(numaNodes),
        local_(std::make_unique<std::atomic<uint64_t>[]>(numaNodes)),
        stolen_(std::make_unique<std::atomic<uint64_t>[]>(numaNodes)) {}

  /// A producer starts or stops waiting for a send buffer.
  void producerWaits(bool waiting) { producersWaiting_.fetch_add(waiting ? 1 : -1, std::memory_order_acq_rel); }
  bool producersWaiting() const { return producersWaiting_.load(std::memory_order_acquire) > 0; }

  /// A consumer on `numaNode` took a message from its own node's queue, or stole it from another's.
  void countConsumed(uint32_t numaNode, bool stolen) {
    (stolen ? stolen_ : local_)[numaNode % numaNodes_].fetch_add(1, std::memory_order_relaxed);
  }
  void countHeapCopy(uint64_t bytes) {
    heapCopies_.fetch_add(1, std::memory_order_relaxed);
    heapCopyBytes_.fetch_add(bytes, std::memory_order_relaxed);
  }

  uint32_t numaNodes() const { return numaNodes_; }
  uint64_t consumedLocally(uint32_t numaNode) const { return local_[numaNode].load(std::memory_order_relaxed); }
  uint64_t stolen(uint32_t numaNode) const { return stolen_[numaNode].load(std::memory_order_relaxed); }
  uint64_t heapCopies() const { return heapCopies_.load(std::memory_order_relaxed); }
  uint64_t heapCopyBytes() const { return heapCopyBytes_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int32_t> producersWaiting_{0};
  uint32_t numaNodes_;
  std::unique_ptr<std::atomic<uint64_t>[]> local_;
  std::unique_ptr<std::atomic<uint64_t>[]> stolen_;
  std::atomic<uint64_t> heapCopies_{0};
  std::atomic<uint64_t> heapCopyBytes_{0};
};

}  // namespace shoal::multiplexer
