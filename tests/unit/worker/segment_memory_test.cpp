// Segment memory: pieces carved from regions and freed one by one, and the reserve a load announces, which
// an idle-priority thread faults in ahead of it so that writing a new segment costs no page faults.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "worker/storage/segment_memory.h"

namespace shoal::worker {
namespace {

long minorFaultsOfThisThread() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}

/// Waits (up to 10 s) until the reserve holds at least `bytes`.
bool waitForReserve(const SegmentMemory& memory, size_t bytes) {
  // The filler runs at idle priority: on a machine busy with other tests it may wait a long time for a core.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (memory.reservedBytes() < bytes) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(SegmentMemoryTest, PiecesArePageAlignedDisjointAndFreedOneByOne) {
  SegmentMemory memory(NumaTopology::fake(2));
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<std::pair<std::byte*, size_t>> pieces;
  // Sizes that fill regions unevenly, one bigger than a region, and an empty one.
  for (size_t bytes : {size_t{1}, size_t{5000}, size_t{3} << 20, SegmentMemory::kRegionBytes + 1, size_t{0},
                       size_t{7} << 20, size_t{9} << 20, size_t{100}}) {
    for (uint32_t node = 0; node < 2; ++node) {
      auto* piece = static_cast<std::byte*>(memory.allocate(bytes, node));
      ASSERT_NE(piece, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(piece) % page, 0u);
      std::memset(piece, static_cast<int>(pieces.size() & 0xFF), std::max<size_t>(bytes, 1));
      pieces.emplace_back(piece, bytes);
    }
  }
  // Every piece still holds its own bytes: none overlaps another.
  for (size_t i = 0; i < pieces.size(); ++i) {
    auto [piece, bytes] = pieces[i];
    for (size_t offset : {size_t{0}, std::max<size_t>(bytes, 1) - 1}) {
      EXPECT_EQ(static_cast<int>(piece[offset]), static_cast<int>(i & 0xFF)) << "piece " << i;
    }
  }
  // Freed in another order than allocated, each on its own: the others stay intact.
  for (size_t i = 0; i < pieces.size(); i += 2) memory.release(pieces[i].first, pieces[i].second);
  for (size_t i = 1; i < pieces.size(); i += 2) {
    EXPECT_EQ(static_cast<int>(pieces[i].first[0]), static_cast<int>(i & 0xFF));
    memory.release(pieces[i].first, pieces[i].second);
  }
}

TEST(SegmentMemoryTest, AnAnnouncedLoadFindsItsPagesFaultedInAndLeavesNothingBehind) {
  SegmentMemory memory(NumaTopology::fake(1));
  EXPECT_EQ(memory.reservedBytes(), 0u);
  const size_t expected = 4 * SegmentMemory::kRegionBytes;
  memory.expect(/*loadId=*/7, expected);
  ASSERT_TRUE(waitForReserve(memory, expected)) << "the filler readied " << memory.reservedBytes() << " bytes";
  // Never more than announced.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(memory.reservedBytes(), expected);

  // Writing a segment's worth of pieces from the reserve takes no page fault in the writing thread.
  std::vector<std::pair<void*, size_t>> pieces;
  const long faultsBefore = minorFaultsOfThisThread();
  for (int i = 0; i < 8; ++i) {
    const size_t bytes = (size_t{3} << 20) + 12345;
    void* piece = memory.allocate(bytes, 0);
    std::memset(piece, 0xAB, bytes);
    pieces.emplace_back(piece, bytes);
  }
  const long faults = minorFaultsOfThisThread() - faultsBefore;
  EXPECT_LT(faults, 16) << "writing 24 MB from the reserve faulted " << faults << " pages in";
  EXPECT_LT(memory.reservedBytes(), expected);

  // The load ends: what it did not use goes back; its pieces stay valid until freed.
  memory.loadEnded(7);
  EXPECT_EQ(memory.reservedBytes(), 0u);
  for (auto [piece, bytes] : pieces) {
    EXPECT_EQ(static_cast<unsigned char*>(piece)[bytes - 1], 0xAB);
    memory.release(piece, bytes);
  }
  // A load nobody announced, or one ended twice, changes nothing.
  memory.loadEnded(7);
  memory.loadEnded(8);
  EXPECT_EQ(memory.reservedBytes(), 0u);
}

TEST(SegmentMemoryTest, TheReserveServesEveryRunningLoadAndIsFreedWithTheLast) {
  SegmentMemory memory(NumaTopology::fake(2));
  memory.expect(1, 2 * SegmentMemory::kRegionBytes);
  memory.expect(2, 2 * SegmentMemory::kRegionBytes);
  ASSERT_TRUE(waitForReserve(memory, 4 * SegmentMemory::kRegionBytes));
  memory.loadEnded(1);
  EXPECT_EQ(memory.reservedBytes(), 4 * SegmentMemory::kRegionBytes) << "load 2 still runs";
  memory.loadEnded(2);
  EXPECT_EQ(memory.reservedBytes(), 0u);
}

}  // namespace
}  // namespace shoal::worker
