#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "engine/aggregate/aggregate_function.h"
#include "engine/pipeline/pipeline.h"

namespace shoal::engine {

/// Hash aggregation as the morsel-driven paper does it. The input rows have
/// the group keys in their first columns. Every thread pre-aggregates into
/// its own table, split into partitions by the keys' hash (the sink); then
/// each partition is merged across the threads' tables independently, one
/// morsel per partition, and its groups emitted (the source of the next
/// pipeline). Without keys it yields exactly one row, also over no input.
///
/// Vectorized: a chunk's keys are hashed column by column, each row finds its
/// group in an open-addressing table (a slot holds a hash tag beside the group
/// number, so most mismatches never touch the group), and then each aggregate
/// updates the states of the chunk's groups in one tight loop. A group is one
/// fixed-width row: its hash, its keys (strings as 16-byte handles into the
/// table's own heap) and a fixed-size state per aggregate.
class HashAggregation {
 public:
  /// Partitions by the hash's top bits: each is merged as one morsel, and a partition's groups of one thread fit
  /// the core's cache when its input is held back (many groups).
  static constexpr int kPartitionBits = 5;
  static constexpr size_t kPartitions = size_t{1} << kPartitionBits;

  HashAggregation(std::vector<LogicalType> keyTypes, std::vector<GroupedAggregate> aggregates);
  ~HashAggregation();

  /// The sink that pre-aggregates a pipeline's rows.
  std::shared_ptr<ChunkSink> sink();
  /// The source that merges and emits the groups, once the sink's pipeline finished.
  std::shared_ptr<ChunkSource> source();
  /// Output types: the keys, then the aggregates' results.
  std::vector<LogicalType> outputTypes() const;

  struct Layout;

 private:
  friend class HashAggregationSink;
  friend class HashAggregationSource;

  std::vector<LogicalType> keyTypes_;
  std::vector<GroupedAggregate> aggregates_;
  std::unique_ptr<Layout> layout_;
  /// Every thread's table, handed over by the sink's combine.
  std::vector<std::unique_ptr<LocalSinkState>> tables_;
};

}  // namespace shoal::engine
