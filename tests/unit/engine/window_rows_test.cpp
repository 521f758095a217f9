// How a window operator orders its rows: partitions whose PARTITION BY values share a hash (a collision the
// radix pass cannot see) still come out whole, each sorted on its ORDER BY key, with ties in input order. The
// expected order comes from std::stable_sort on (partition, key), the definition.
#include "engine/window/window_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

namespace shoal::engine::window {
namespace {

struct Row {
  int64_t partition;
  int64_t key;
  int64_t id;
};

/// Columns: partition, key, id; 500 rows a chunk.
std::vector<Chunk> toChunks(const std::vector<Row>& rows) {
  std::vector<Chunk> chunks;
  for (size_t begin = 0; begin < rows.size(); begin += 500) {
    const size_t count = std::min<size_t>(500, rows.size() - begin);
    std::vector<Vector> columns;
    for (int c = 0; c < 3; ++c) columns.emplace_back(LogicalType::bigInt(), count);
    for (size_t i = 0; i < count; ++i) {
      columns[0].setValue(i, Value::bigInt(rows[begin + i].partition));
      columns[1].setValue(i, Value::bigInt(rows[begin + i].key));
      columns[2].setValue(i, Value::bigInt(rows[begin + i].id));
    }
    chunks.emplace_back(std::move(columns), count);
  }
  return chunks;
}

/// The ids in the order sortRows gives when `hashOf` maps a partition to its hash.
std::vector<int64_t> sortedIds(const std::vector<Row>& rows, uint64_t (*hashOf)(int64_t)) {
  std::vector<Chunk> chunks = toChunks(rows);
  std::vector<const Chunk*> pointers;
  for (const Chunk& chunk : chunks) pointers.push_back(&chunk);
  std::vector<RowRef> refs;
  for (size_t i = 0; i < rows.size(); ++i) {
    refs.push_back({hashOf(rows[i].partition), static_cast<uint32_t>(i / 500), static_cast<uint32_t>(i % 500)});
  }
  sortRows(pointers, {{0, true, false}, {1, true, false}}, true, refs);
  std::vector<int64_t> ids;
  for (const RowRef& ref : refs) ids.push_back(chunks[ref.chunk].column(2).getValue(ref.row).asInt64());
  return ids;
}

void expectWholeSortedPartitions(const std::vector<Row>& rows, const std::vector<int64_t>& ids) {
  ASSERT_EQ(ids.size(), rows.size());
  // Each partition's rows, in order: the partition's stretch of a stable sort on (partition, key).
  std::vector<Row> expected = rows;
  std::stable_sort(expected.begin(), expected.end(), [](const Row& a, const Row& b) {
    return std::tie(a.partition, a.key) < std::tie(b.partition, b.key);
  });
  std::map<int64_t, std::vector<int64_t>> expectedByPartition;
  for (const Row& row : expected) expectedByPartition[row.partition].push_back(row.id);
  std::map<int64_t, std::vector<int64_t>> gotByPartition;
  int64_t previous = -1;
  std::set<int64_t> finished;
  for (int64_t id : ids) {
    const int64_t partition = rows[id].partition;
    if (partition != previous) {
      EXPECT_FALSE(finished.contains(partition)) << "partition " << partition << " comes out in two pieces";
      if (previous >= 0) finished.insert(previous);
      previous = partition;
    }
    gotByPartition[partition].push_back(id);
  }
  EXPECT_EQ(gotByPartition, expectedByPartition);
}

std::vector<Row> randomRows(size_t count, int64_t partitions) {
  std::mt19937 random(7);
  std::vector<Row> rows;
  for (size_t i = 0; i < count; ++i) {
    rows.push_back(
        {static_cast<int64_t>(random() % partitions), static_cast<int64_t>(random() % 5), static_cast<int64_t>(i)});
  }
  return rows;
}

TEST(WindowRowsTest, PartitionsSharingAHashComeOutWholeAndSorted) {
  // Three hashes for forty partitions: every run of one hash mixes a dozen partitions.
  const std::vector<Row> rows = randomRows(3000, 40);
  expectWholeSortedPartitions(
      rows, sortedIds(rows, [](int64_t partition) { return static_cast<uint64_t>(partition % 3) << 40; }));
}

TEST(WindowRowsTest, SpreadHashesTakeTheRadixPathAndKeepTiesInInputOrder) {
  // Distinct hashes spread over the radix bits, a few partitions colliding on purpose.
  const std::vector<Row> rows = randomRows(20000, 5000);
  expectWholeSortedPartitions(rows, sortedIds(rows, [](int64_t partition) {
                                const auto spread = static_cast<uint64_t>(partition - partition % 2);
                                return static_cast<uint64_t>((spread * 0x9E3779B97F4A7C15ULL) >> 5);
                              }));
}

}  // namespace
}  // namespace shoal::engine::window
