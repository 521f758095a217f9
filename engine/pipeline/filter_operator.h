#pragma once

#include "engine/expression/expression.h"
#include "engine/pipeline/pipeline.h"

namespace shoal::engine {

/// Keeps the rows for which every condition is TRUE (not FALSE, not NULL).
class FilterOperator final : public ChunkOperator {
 public:
  explicit FilterOperator(std::vector<ExpressionPtr> conditions) : conditions_(std::move(conditions)) {}
  void execute(Chunk& chunk) const override;

 private:
  std::vector<ExpressionPtr> conditions_;
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
