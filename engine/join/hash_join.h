#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "engine/expression/expression.h"
#include "engine/pipeline/pipeline.h"

namespace shoal::engine {

/// kInner .. kSingle keep or extend probe rows. The kBuild* types keep build rows instead, for joins whose
/// preserved side is the smaller one: the probe only marks the build rows it matches (kBuildOuter also emits
/// the matched pairs, build columns after probe columns as for kInner), and buildRowsSource() then emits the
/// build rows with a match (kBuildSemi) or without one (kBuildAnti, kBuildOuter: with NULL probe columns).
enum class HashJoinType { kInner, kLeft, kSemi, kAnti, kMark, kSingle, kBuildSemi, kBuildAnti, kBuildOuter };

/// A hash join as the morsel-driven paper builds it, in three pipelines. The
/// build pipeline's threads store their rows and hashes in thread-local areas
/// (buildSink); once all are in, the exact size is known, and one directory of
/// 2^k buckets is allocated. The insert pipeline (insertSource, into
/// discardingSink) then fills it from all threads in parallel, lock-free, by
/// compare-and-swap on the bucket heads. Each bucket pointer carries a 16-bit
/// tag in its unused top bits: the union of one bit per entry chosen by its
/// hash, so that most probes of absent keys are rejected without touching the
/// chain. The probe pipeline (probe) depends on the insert pipeline.
///
/// Build rows have the key columns first, then the payload. Probe rows are
/// matched on `probeKeys`; a pair of rows then also has to pass the
/// `residual` condition (over probe columns followed by build columns),
/// when there is one. Keys equal as SQL values; a NULL key matches nothing.
class HashJoin {
 public:
  struct Options {
    HashJoinType type = HashJoinType::kInner;
    std::vector<LogicalType> buildTypes;  // keys, then payload
    size_t numKeys = 0;
    std::vector<size_t> probeKeys;
    /// Over [probe columns..., build columns...]; null: none.
    ExpressionPtr residual;
    /// NOT IN / IN semantics for kAnti and kMark: a NULL key on either side makes "no match" unknown
    /// (uncorrelated NOT IN, hashed on its comparison).
    bool nullAware = false;
    /// For a correlated NOT IN / IN, whose correlation equalities are the keys: the IN comparison itself, over
    /// [probe columns..., build columns...]. Per probe row, over the build rows that take part (same keys,
    /// passing the residual): TRUE for one is a match; else NULL for one makes the answer unknown; else no match.
    ExpressionPtr nullAwareComparison;
    /// kBuildOuter: the types of the probe columns, NULL beside each unmatched build row.
    std::vector<LogicalType> probeTypes;
  };

  explicit HashJoin(Options options);
  ~HashJoin();

  /// The build pipeline's sink: stores rows per thread; its finalize allocates the directory.
  std::shared_ptr<ChunkSink> buildSink();
  /// The insert pipeline's source, after the build pipeline: one morsel per slice of stored rows, each
  /// inserted into the directory; it produces no chunks.
  std::shared_ptr<ChunkSource> insertSource();
  /// A sink for pipelines that produce nothing (the insert pipeline).
  static std::shared_ptr<ChunkSink> discardingSink();
  /// kBuild* types, after the probe pipeline: the build payload of the rows kept (one morsel per stored
  /// chunk), then for kBuildOuter NULL probe columns.
  std::shared_ptr<ChunkSource> buildRowsSource();
  /// After the insert pipeline: an operator keeping the rows whose columns `keyColumns` (as probe keys) match
  /// some build row's keys. A semi-join reduction for another pipeline, whose rows can only meet this join
  /// through those keys (an aggregation grouped by them, below an inner join on them).
  std::shared_ptr<ChunkOperator> matchFilter(std::vector<size_t> keyColumns);
  /// The probe pipeline's operator. Output: the probe columns, then the build payload (inner, left, single),
  /// or a BOOLEAN mark (mark), or nothing more (semi, anti).
  std::shared_ptr<ChunkOperator> probe();

  size_t buildRows() const;

  struct Entry;
  struct StoredRows;
  struct BuildSide;

 private:
  friend class HashJoinBuildSink;
  friend class HashJoinInsertSource;
  friend class HashJoinBuildRowsSource;
  friend class HashJoinProbe;
  friend class HashJoinMatchFilter;

  Options options_;
  /// Shared: output vectors keep it alive while their strings point into its rows.
  std::shared_ptr<BuildSide> build_;
};

}  // namespace shoal::engine
