#include "worker/storage/segment_memory.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>

#include <spdlog/spdlog.h>

namespace shoal::worker {

namespace {

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14
#endif

/// Faults in [begin, begin + bytes) for writing, a megabyte per call so that the filler never holds the
/// address space's lock for long.
void faultIn(std::byte* begin, size_t bytes, size_t pageBytes) {
  constexpr size_t kStep = 1 << 20;
  for (size_t offset = 0; offset < bytes; offset += kStep) {
    const size_t step = std::min(kStep, bytes - offset);
    if (::madvise(begin + offset, step, MADV_POPULATE_WRITE) == 0) continue;
    // An older kernel: a write per page does the same, one fault at a time.
    for (size_t page = 0; page < step; page += pageBytes) {
      *reinterpret_cast<volatile char*>(begin + offset + page) = 0;
    }
  }
}

}  // namespace

SegmentMemory::SegmentMemory(NumaTopology topology)
    : topology_(topology),
      pageBytes_(static_cast<size_t>(::sysconf(_SC_PAGESIZE))),
      reserveCap_(static_cast<size_t>(::sysconf(_SC_PHYS_PAGES)) * pageBytes_ / 4),
      nodes_(topology.numNodes()) {
  filler_ = std::thread([this] { fill(); });
}

SegmentMemory::~SegmentMemory() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  filler_.join();
  for (Node& node : nodes_) {
    unmap(node.current.begin, node.current.bytes);
    for (const Region& region : node.ready) unmap(region.begin, region.bytes);
  }
}

SegmentMemory::Region SegmentMemory::mapRegion(size_t bytes, uint32_t node) const {
  void* memory = topology_.mapPages(bytes, node);
  if (memory == nullptr) throw std::bad_alloc();
  return {static_cast<std::byte*>(memory), bytes};
}

void SegmentMemory::unmap(std::byte* begin, size_t bytes) {
  if (begin == nullptr || bytes == 0) return;
  // Fails only when splitting a region would pass vm.max_map_count: the pages then stay until the process
  // ends, which is worth a word in the log.
  if (::munmap(begin, bytes) != 0) spdlog::warn("segment memory: cannot unmap {} bytes: {}", bytes, strerror(errno));
}

size_t SegmentMemory::wholePages(size_t bytes) const {
  return std::max<size_t>(1, (bytes + pageBytes_ - 1) / pageBytes_) * pageBytes_;
}

void* SegmentMemory::allocate(size_t bytes, uint32_t node) {
  const size_t rounded = wholePages(bytes);
  if (rounded > kRegionBytes) return mapRegion(rounded, node).begin;
  std::lock_guard lock(mutex_);
  Region& current = nodes_[node].current;
  if (current.bytes < rounded) {
    // What is left of the region is too small: give its pages back and carve a new one.
    unmap(current.begin, current.bytes);
    current = {};
    std::deque<Region>& ready = nodes_[node].ready;
    if (!ready.empty()) {
      current = ready.front();
      ready.pop_front();
      readyBytes_ -= current.bytes;
    } else {
      current = mapRegion(kRegionBytes, node);
    }
  }
  std::byte* piece = current.begin;
  current.begin += rounded;
  current.bytes -= rounded;
  return piece;
}

void SegmentMemory::release(void* memory, size_t bytes) {
  if (memory == nullptr) return;
  unmap(static_cast<std::byte*>(memory), wholePages(bytes));
}

size_t SegmentMemory::targetBytes() const {
  size_t total = 0;
  for (const auto& [load, bytes] : expectedBytes_) total += bytes;
  return std::min(total, reserveCap_);
}

void SegmentMemory::expect(uint64_t loadId, size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    expectedBytes_[loadId] = bytes;
  }
  wake_.notify_all();
}

void SegmentMemory::loadEnded(uint64_t loadId) {
  std::vector<Region> unused;
  {
    std::lock_guard lock(mutex_);
    if (expectedBytes_.erase(loadId) == 0 || !expectedBytes_.empty()) return;
    // No load is running: nothing will use the reserve, nor the faulted-in tails being carved.
    for (Node& node : nodes_) {
      unused.insert(unused.end(), node.ready.begin(), node.ready.end());
      node.ready.clear();
      unused.push_back(node.current);
      node.current = {};
    }
    readyBytes_ = 0;
    filledForLoads_ = 0;
  }
  for (const Region& region : unused) unmap(region.begin, region.bytes);
}

size_t SegmentMemory::reservedBytes() const {
  std::lock_guard lock(mutex_);
  return readyBytes_;
}

void SegmentMemory::fill() {
  // Idle priority: the filler runs only when no other thread of the machine wants the core, so it never
  // slows the load it works for.
  sched_param parameters{};
  if (::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &parameters) != 0) {
    spdlog::warn("segment memory: cannot lower the filler thread to idle priority; not faulting in ahead");
    return;
  }
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || filledForLoads_ < targetBytes(); });
    if (stopping_) return;
    const uint32_t node = nextFillNode_++ % static_cast<uint32_t>(nodes_.size());
    // Counted before the work, so that a load ending meanwhile resets it.
    filledForLoads_ += kRegionBytes;
    lock.unlock();
    Region region;
    try {
      region = mapRegion(kRegionBytes, node);
      faultIn(region.begin, region.bytes, pageBytes_);
    } catch (const std::bad_alloc&) {
      region = {};
    }
    lock.lock();
    if (region.begin == nullptr) {
      filledForLoads_ = targetBytes();  // out of memory: the loads fault their pages in themselves
      continue;
    }
    if (expectedBytes_.empty()) {
      // The load ended meanwhile. Not under the lock: at idle priority, this thread may wait long for a
      // core, and loading threads must never wait for it.
      lock.unlock();
      unmap(region.begin, region.bytes);
      lock.lock();
      continue;
    }
    nodes_[node].ready.push_back(region);
    readyBytes_ += region.bytes;
  }
}

}  // namespace shoal::worker
