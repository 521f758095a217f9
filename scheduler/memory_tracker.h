#pragma once

#include <atomic>
#include <cstdint>

#include "engine/pipeline/query_memory.h"

namespace shoal::scheduler {

/// Counts the bytes one query holds in hash tables, sort runs and buffers
/// against its limit. Operators reserve before they grow and release when
/// they free; a reservation over the limit fails with SQLSTATE 53200, so the
/// query ends with a clear error instead of the process being killed for
/// running out of memory. Thread-safe.
class MemoryTracker final : public engine::QueryMemory {
 public:
  /// `limitBytes` 0: unlimited. With a `budget`, every byte is also counted there: the memory budget that
  /// all of a node's queries share (Dispatcher::budget), which fails a reservation past it with 53200 too.
  explicit MemoryTracker(uint64_t limitBytes, MemoryTracker* budget = nullptr)
      : limitBytes_(limitBytes), budget_(budget) {}
  /// A node's budget itself (its refusal names --memory-budget-mb, not the query's limit).
  struct NodeBudget {};
  MemoryTracker(NodeBudget, uint64_t limitBytes) : limitBytes_(limitBytes), budget_(nullptr), isNodeBudget_(true) {}
  /// A query's account ends with the query, whose memory is gone with it: what it still counts (an operator
  /// that failed between reserving and releasing) leaves the node's budget too.
  ~MemoryTracker() {
    if (budget_ != nullptr) budget_->release(usedBytes_.load(std::memory_order_relaxed));
  }
  MemoryTracker(const MemoryTracker&) = delete;
  MemoryTracker& operator=(const MemoryTracker&) = delete;

  /// Adds `bytes` to the query's total; 53200 (and nothing reserved) when that passes the limit.
  void reserve(uint64_t bytes) override;
  void release(uint64_t bytes) override {
    usedBytes_.fetch_sub(bytes, std::memory_order_relaxed);
    if (budget_ != nullptr) budget_->release(bytes);
  }

  uint64_t usedBytes() const { return usedBytes_.load(std::memory_order_relaxed); }
  uint64_t peakBytes() const { return peakBytes_.load(std::memory_order_relaxed); }
  /// The peak since the last call (or since the start), starting the next period at what is held now.
  uint64_t takePeak() { return peakBytes_.exchange(usedBytes(), std::memory_order_relaxed); }
  uint64_t limitBytes() const { return limitBytes_; }

 private:
  const uint64_t limitBytes_;
  MemoryTracker* const budget_;
  const bool isNodeBudget_ = false;
  std::atomic<uint64_t> usedBytes_{0};
  std::atomic<uint64_t> peakBytes_{0};
};

}  // namespace shoal::scheduler
