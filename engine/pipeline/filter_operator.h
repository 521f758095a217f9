#pragma once

#include "engine/expression/expression.h"
#include "engine/pipeline/pipeline.h"

namespace shoal::engine {

/// Keeps the rows for which every condition is TRUE (not FALSE, not NULL).
///
/// Conditions that cannot fail (see isInfallible) are evaluated over the whole chunk and
/// combined in a byte mask, and the chunk's columns are copied once for the rows that pass
/// them all. A condition that can fail only sees rows that passed the ones before it, as in
/// PostgreSQL's `x <> 0 AND 1 / x > 1`; so does any condition after a very selective one,
/// where copying the few survivors is cheaper than evaluating the rest over every row.
class FilterOperator final : public ChunkOperator {
 public:
  explicit FilterOperator(std::vector<ExpressionPtr> conditions);
  void execute(Chunk& chunk) const override;

  /// For a scan that reads the other columns only for the rows that pass: narrows just the
  /// columns the conditions read (the others may be empty placeholders and are left alone),
  /// and returns the passing rows' numbers in `chunk` as it was given, ascending.
  std::vector<uint32_t> narrowColumnsRead(Chunk& chunk) const;
  /// Per input column: whether a condition reads it.
  const std::vector<bool>& columnsRead() const { return columnsRead_; }

 private:
  /// Narrows `chunk` (every column, or only those read) and, when `rowNumbers` is given,
  /// composes the selections into it.
  void narrow(Chunk& chunk, bool onlyColumnsRead, std::vector<uint32_t>* rowNumbers) const;

  std::vector<ExpressionPtr> conditions_;
  /// Per condition: whether it may run on rows an earlier condition rejected.
  std::vector<bool> infallible_;
  std::vector<bool> columnsRead_;
};

/// Replaces a chunk's columns by the values of `expressions` over them.
class ProjectionOperator final : public ChunkOperator {
 public:
  explicit ProjectionOperator(std::vector<ExpressionPtr> expressions) : expressions_(std::move(expressions)) {}
  void execute(Chunk& chunk) const override;

 private:
  std::vector<ExpressionPtr> expressions_;
};

}  // namespace shoal::engine
