#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "engine/pipeline/pipeline.h"

namespace shoal::engine {

struct SortColumn {
  size_t column;
  bool ascending = true;
  bool nullsFirst = false;
};

/// Three-way comparison of two non-NULL values of one vector type, as ORDER BY orders them: strings by bytes,
/// NaN above every number, intervals by their span.
int compareNonNullAt(const Vector& a, size_t rowA, const Vector& b, size_t rowB);

/// ORDER BY [LIMIT/OFFSET]: every thread sorts the rows it consumed into a
/// run (keeping only the first OFFSET + LIMIT of its run when there is a
/// limit: a top-N), then the runs are merged once all are in. The source
/// emits the rows in order from a single morsel, so that the next pipeline
/// sees them in order. Values compare as PostgreSQL orders them: strings by
/// bytes, NaN above every number, NULLs last ascending unless told otherwise.
class Sort {
 public:
  Sort(std::vector<SortColumn> keys, std::optional<int64_t> limit = std::nullopt, int64_t offset = 0);
  ~Sort();

  std::shared_ptr<ChunkSink> sink();
  std::shared_ptr<ChunkSource> source();

  struct Run;

 private:
  friend class SortSink;
  friend class SortSource;

  std::vector<SortColumn> keys_;
  std::optional<int64_t> limit_;
  int64_t offset_;
  std::vector<std::unique_ptr<Run>> runs_;
};

/// LIMIT/OFFSET without ORDER BY: passes the first rows through, in whatever order they come, from one morsel.
class Limit {
 public:
  Limit(std::optional<int64_t> limit, int64_t offset) : limit_(limit), offset_(offset) {}
  std::shared_ptr<ChunkSink> sink();
  std::shared_ptr<ChunkSource> source();

  /// The rows it must hold before the rest of its input may be skipped: LIMIT + OFFSET.
  int64_t rowsNeeded() const { return limit_ ? *limit_ + offset_ : INT64_MAX; }

  std::optional<int64_t> limit_;
  int64_t offset_;
  std::vector<Chunk> chunks_;
  /// The rows the sink's local states hold, over all threads.
  std::atomic<int64_t> rowsHeld_{0};
};

}  // namespace shoal::engine
