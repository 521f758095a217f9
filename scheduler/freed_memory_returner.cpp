#include "scheduler/freed_memory_returner.h"

#include <spdlog/spdlog.h>

#include "common/host_memory.h"

namespace shoal::scheduler {
namespace {

constexpr auto kCheckInterval = std::chrono::milliseconds(500);
constexpr uint64_t kWorthTrimmingBytes = uint64_t{64} << 20;
/// Under steady load: free bytes glibc's arenas may keep before they are returned, and how often at most.
constexpr uint64_t kHeapFreeToTrimUnderLoad = uint64_t{32} << 20;
constexpr auto kTrimUnderLoadInterval = std::chrono::seconds(10);

}  // namespace

FreedMemoryReturner::FreedMemoryReturner(MemoryTracker& budget, std::function<bool()> idle)
    : budget_(budget),
      idle_(std::move(idle)),
      residentAfterTrim_(residentMemoryBytes()),
      task_(kCheckInterval, [this] { check(); }) {}

void FreedMemoryReturner::check() {
  const uint64_t held = budget_.usedBytes();
  const uint64_t peak = budget_.takePeak();
  const bool countedFreed = peak >= held + kWorthTrimmingBytes;
  const bool residentGrew = idle_() && residentMemoryBytes() >= residentAfterTrim_ + kWorthTrimmingBytes;
  const auto now = std::chrono::steady_clock::now();
  bool heapKeepsFree = false;
  if (!countedFreed && !residentGrew && now - lastTrim_ >= kTrimUnderLoadInterval) {
    heapKeepsFree = heapUse().freeBytes >= kHeapFreeToTrimUnderLoad;
  }
  if (!countedFreed && !residentGrew && !heapKeepsFree) return;
  const HeapUse before = heapUse();
  returnFreedMemory();
  lastTrim_ = now;
  residentAfterTrim_ = residentMemoryBytes();
  spdlog::debug("returned freed memory: {} MB in use, {} MB kept free by malloc before, {} MB resident now",
                before.inUseBytes >> 20, before.freeBytes >> 20, residentAfterTrim_ >> 20);
}

}  // namespace shoal::scheduler
