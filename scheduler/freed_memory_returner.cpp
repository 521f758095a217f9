#include "scheduler/freed_memory_returner.h"

#include "common/host_memory.h"

namespace shoal::scheduler {
namespace {

constexpr auto kCheckInterval = std::chrono::milliseconds(500);
constexpr uint64_t kWorthTrimmingBytes = uint64_t{64} << 20;

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
  if (!countedFreed && !residentGrew) return;
  returnFreedMemory();
  residentAfterTrim_ = residentMemoryBytes();
}

}  // namespace shoal::scheduler
