#include "engine/pipeline/filter_operator.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "engine/expression/expression_evaluator.h"
#include "engine/expression/infallible.h"

namespace shoal::engine {

namespace {

/// Evaluating the next condition over every row costs about as much as copying
/// the survivors once this few of them are left: below it, copy first.
constexpr size_t kSelectBelowOneIn = 4;

/// A rough per-row cost of evaluating `expression`, to run cheap conditions first: fixed-width
/// comparisons are cheapest, string comparisons cost more, LIKE the most.
size_t evaluationCost(const Expression& expression) {
  switch (expression.kind()) {
    case ExpressionKind::kConstant:
    case ExpressionKind::kParameter:
      return 0;
    case ExpressionKind::kColumnRef:
      return expression.type().isString() ? 2 : 1;
    case ExpressionKind::kCast: {
      const auto& cast = static_cast<const CastExpression&>(expression);
      return evaluationCost(cast.child()) + (cast.type().isString() && !cast.child().type().isString() ? 8 : 1);
    }
    case ExpressionKind::kFunction: {
      const auto& function = static_cast<const FunctionExpression&>(expression);
      size_t cost = isPatternMatch(function.function()) ? 16 : 1;
      for (const auto& argument : function.arguments()) cost += evaluationCost(*argument);
      return cost;
    }
  }
  return 1;
}

/// Orders each run of conditions that cannot fail by cost, cheapest first. A condition that
/// can fail stays where it is, and nothing moves across it: it still sees only the rows that
/// passed every condition written before it.
void orderByCost(std::vector<ExpressionPtr>& conditions) {
  auto runStart = conditions.begin();
  while (runStart != conditions.end()) {
    auto runEnd = std::find_if(runStart, conditions.end(), [](const ExpressionPtr& c) { return !isInfallible(*c); });
    std::stable_sort(runStart, runEnd, [](const ExpressionPtr& a, const ExpressionPtr& b) {
      return evaluationCost(*a) < evaluationCost(*b);
    });
    runStart = runEnd == conditions.end() ? runEnd : runEnd + 1;
  }
}

/// Clears passing[row] where `matches` is FALSE or NULL; returns the rows still passing.
size_t narrowPassing(const Vector& matches, std::vector<uint8_t>& passing) {
  const uint8_t* values = matches.data<uint8_t>();
  const size_t numRows = passing.size();
  uint8_t* pass = passing.data();
  if (matches.validity().allValid(numRows)) {
    for (size_t row = 0; row < numRows; ++row) pass[row] &= values[row];
  } else {
    for (size_t row = 0; row < numRows; ++row) pass[row] &= values[row] & !matches.isNull(row);
  }
  size_t count = 0;
  for (size_t row = 0; row < numRows; ++row) count += pass[row];
  return count;
}

/// Replaces `chunk` by its rows whose passing byte is set (`count` of them): every column, or
/// only those in `onlyColumns`. Composes the selection into `rowNumbers` when given.
void keepPassing(Chunk& chunk, const std::vector<uint8_t>& passing, size_t count, const std::vector<bool>* onlyColumns,
                 std::vector<uint32_t>* rowNumbers) {
  if (count == chunk.size()) return;
  // Branch-free: every row is written, and the next slot advances only past the passing ones.
  std::vector<uint32_t> kept(passing.size() + 1);
  size_t next = 0;
  for (uint32_t row = 0; row < passing.size(); ++row) {
    kept[next] = row;
    next += passing[row];
  }
  kept.resize(count);
  std::vector<Vector> columns;
  columns.reserve(chunk.numColumns());
  for (size_t column = 0; column < chunk.numColumns(); ++column) {
    const bool narrowed = !onlyColumns || (column < onlyColumns->size() && (*onlyColumns)[column]);
    columns.push_back(narrowed ? chunk.column(column).select(kept) : std::move(chunk.column(column)));
  }
  chunk = Chunk(std::move(columns), kept.size());
  if (rowNumbers) {
    for (size_t i = 0; i < kept.size(); ++i) kept[i] = (*rowNumbers)[kept[i]];
    *rowNumbers = std::move(kept);
  }
}

}  // namespace

FilterOperator::FilterOperator(std::vector<ExpressionPtr> conditions) : conditions_(std::move(conditions)) {
  orderByCost(conditions_);
  for (const auto& condition : conditions_) {
    infallible_.push_back(isInfallible(*condition));
    markColumnsRead(*condition, columnsRead_);
  }
}

void FilterOperator::execute(Chunk& chunk) const {
  narrow(chunk, false, nullptr);
}

std::vector<uint32_t> FilterOperator::narrowColumnsRead(Chunk& chunk) const {
  std::vector<uint32_t> rowNumbers(chunk.size());
  std::iota(rowNumbers.begin(), rowNumbers.end(), 0u);
  narrow(chunk, true, &rowNumbers);
  return rowNumbers;
}

void FilterOperator::narrow(Chunk& chunk, bool onlyColumnsRead, std::vector<uint32_t>* rowNumbers) const {
  const std::vector<bool>* onlyColumns = onlyColumnsRead ? &columnsRead_ : nullptr;
  ExpressionEvaluator evaluator;
  // passing[row]: the row passed every condition evaluated since the chunk was last narrowed.
  std::vector<uint8_t> passing;
  size_t passingCount = chunk.size();
  bool narrowingPending = false;
  for (size_t index = 0; index < conditions_.size(); ++index) {
    if (narrowingPending &&
        (!infallible_[index] || passingCount == 0 || passingCount * kSelectBelowOneIn < chunk.size())) {
      keepPassing(chunk, passing, passingCount, onlyColumns, rowNumbers);
      narrowingPending = false;
    }
    if (chunk.size() == 0) return;
    Vector matches = evaluator.evaluate(*conditions_[index], chunk);
    if (!narrowingPending) passing.assign(chunk.size(), 1);
    passingCount = narrowPassing(matches, passing);
    narrowingPending = true;
  }
  if (narrowingPending) keepPassing(chunk, passing, passingCount, onlyColumns, rowNumbers);
}

void ProjectionOperator::execute(Chunk& chunk) const {
  ExpressionEvaluator evaluator;
  // A column passed through as it is moves rather than copies, unless another output also takes it.
  std::vector<uint32_t> passedThrough(chunk.numColumns(), 0);
  for (const auto& expression : expressions_) {
    if (expression->kind() == ExpressionKind::kColumnRef) {
      ++passedThrough[static_cast<const ColumnRefExpression&>(*expression).columnIndex()];
    }
  }
  auto movesColumn = [&](const Expression& expression) {
    return expression.kind() == ExpressionKind::kColumnRef &&
           passedThrough[static_cast<const ColumnRefExpression&>(expression).columnIndex()] == 1;
  };
  // Computed outputs first, while every input column is still in place.
  std::vector<std::optional<Vector>> computed(expressions_.size());
  for (size_t i = 0; i < expressions_.size(); ++i) {
    if (!movesColumn(*expressions_[i])) computed[i] = evaluator.evaluate(*expressions_[i], chunk);
  }
  std::vector<Vector> columns;
  columns.reserve(expressions_.size());
  for (size_t i = 0; i < expressions_.size(); ++i) {
    if (computed[i]) {
      columns.push_back(std::move(*computed[i]));
    } else {
      columns.push_back(
          std::move(chunk.column(static_cast<const ColumnRefExpression&>(*expressions_[i]).columnIndex())));
    }
  }
  chunk = Chunk(std::move(columns), chunk.size());
}

}  // namespace shoal::engine
