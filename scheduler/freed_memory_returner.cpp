#include "scheduler/freed_memory_returner.h"

#include <chrono>

#include "common/host_memory.h"

namespace shoal::scheduler {
namespace {

constexpr auto kCheckInterval = std::chrono::milliseconds(500);
constexpr uint64_t kWorthTrimmingBytes = uint64_t{64} << 20;

}  // namespace

FreedMemoryReturner::FreedMemoryReturner(MemoryTracker& budget, std::function<bool()> idle)
    : budget_(budget), idle_(std::move(idle)), thread_([this] { run(); }) {}

FreedMemoryReturner::~FreedMemoryReturner() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  thread_.join();
}

void FreedMemoryReturner::run() {
  uint64_t residentAfterTrim = residentMemoryBytes();
  std::unique_lock lock(mutex_);
  while (!stop_.wait_for(lock, kCheckInterval, [this] { return stopping_; })) {
    const uint64_t held = budget_.usedBytes();
    const uint64_t peak = budget_.takePeak();
    const bool countedFreed = peak >= held + kWorthTrimmingBytes;
    const bool residentGrew = idle_() && residentMemoryBytes() >= residentAfterTrim + kWorthTrimmingBytes;
    if (!countedFreed && !residentGrew) continue;
    lock.unlock();
    returnFreedMemory();
    residentAfterTrim = residentMemoryBytes();
    lock.lock();
  }
}

}  // namespace shoal::scheduler
