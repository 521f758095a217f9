#pragma once

#include <memory>
#include <vector>

#include "engine/pipeline/pipeline.h"
#include "engine/sort/sort.h"
#include "engine/window/window_function.h"

namespace shoal::engine {

/// Window functions over one window (one PARTITION BY and ORDER BY; each call has its own frame). The sink
/// spreads the input rows over kBuckets buckets by the hash of their PARTITION BY values (all into one without
/// PARTITION BY); each bucket is then one morsel of the source, which sorts it on the partition and order
/// keys, computes every call over each partition, and emits the rows in that order with one column per call
/// after the input's columns.
class WindowOperator {
 public:
  static constexpr size_t kBuckets = 32;

  WindowOperator(std::vector<size_t> partitionColumns, std::vector<SortColumn> orderColumns,
                 std::vector<WindowCallSpec> calls);
  ~WindowOperator();

  std::shared_ptr<ChunkSink> sink();
  std::shared_ptr<ChunkSource> source();

  struct Buckets;

 private:
  friend class WindowSink;
  friend class WindowSource;

  std::vector<size_t> partitionColumns_;
  std::vector<SortColumn> orderColumns_;
  std::vector<WindowCallSpec> calls_;
  /// Every thread's buckets, handed over by the sink's combine.
  std::vector<std::unique_ptr<Buckets>> buckets_;
};

}  // namespace shoal::engine
