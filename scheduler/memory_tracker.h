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
  /// `limitBytes` 0: unlimited.
  explicit MemoryTracker(uint64_t limitBytes) : limitBytes_(limitBytes) {}

  /// Adds `bytes` to the query's total; 53200 (and nothing reserved) when that passes the limit.
  void reserve(uint64_t bytes) override;
  void release(uint64_t bytes) override { usedBytes_.fetch_sub(bytes, std::memory_order_relaxed); }

  uint64_t usedBytes() const { return usedBytes_.load(std::memory_order_relaxed); }
  uint64_t peakBytes() const { return peakBytes_.load(std::memory_order_relaxed); }
  uint64_t limitBytes() const { return limitBytes_; }

 private:
  const uint64_t limitBytes_;
  std::atomic<uint64_t> usedBytes_{0};
  std::atomic<uint64_t> peakBytes_{0};
};

}  // namespace shoal::scheduler
