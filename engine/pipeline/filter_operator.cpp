#include "engine/pipeline/filter_operator.h"

#include <numeric>

#include "engine/expression/expression_evaluator.h"

namespace shoal::engine {

void FilterOperator::execute(Chunk& chunk) const {
  ExpressionEvaluator evaluator;
  for (const auto& condition : conditions_) {
    if (chunk.size() == 0) return;
    Vector matches = evaluator.evaluate(*condition, chunk);
    const uint8_t* values = matches.data<uint8_t>();
    std::vector<uint32_t> kept;
    kept.reserve(chunk.size());
    for (uint32_t row = 0; row < chunk.size(); ++row) {
      if (!matches.isNull(row) && values[row] != 0) kept.push_back(row);
    }
    if (kept.size() == chunk.size()) continue;
    Chunk selected(kept.size());
    for (size_t column = 0; column < chunk.numColumns(); ++column)
      selected.addColumn(chunk.column(column).select(kept));
    chunk = std::move(selected);
  }
}

void ProjectionOperator::execute(Chunk& chunk) const {
  ExpressionEvaluator evaluator;
  Chunk projected(chunk.size());
  for (const auto& expression : expressions_) projected.addColumn(evaluator.evaluate(*expression, chunk));
  chunk = std::move(projected);
}

}  // namespace shoal::engine
