#include "engine/expression/conditional.h"

#include <cstring>
#include <numeric>

#include "engine/expression/expression_evaluator.h"

namespace shoal::engine {
namespace {

/// Row numbers of the input chunk, ascending.
using RowList = std::vector<uint32_t>;

RowList allRows(size_t numRows) {
  RowList rows(numRows);
  std::iota(rows.begin(), rows.end(), 0u);
  return rows;
}

/// The rows `rows` of `input` as a chunk of their own. Only the columns `expression`
/// reads are copied; the others (up to the last one read) are empty placeholders of
/// their type, so that column indexes stay the same.
Chunk selectRows(const Chunk& input, std::span<const uint32_t> rows, const Expression& expression) {
  std::vector<bool> used;
  markColumnsRead(expression, used);
  std::vector<Vector> columns;
  columns.reserve(used.size());
  for (size_t index = 0; index < used.size(); ++index) {
    const Vector& column = input.column(index);
    columns.push_back(used[index] ? column.select(rows) : Vector(column.type(), 0));
  }
  return Chunk(std::move(columns), rows.size());
}

/// Evaluates `expression` on the rows `rows` of `input` only: row i of the result belongs to input row rows[i].
Vector evaluateOnRows(const ExpressionEvaluator& evaluator, const Expression& expression, const Chunk& input,
                      const RowList& rows) {
  // An ascending list of every row is the identity: no copy needed.
  if (rows.size() == input.size()) return evaluator.evaluate(expression, input);
  return evaluator.evaluate(expression, selectRows(input, rows, expression));
}

bool isNullConstant(const Expression& expression) {
  return expression.kind() == ExpressionKind::kConstant &&
         static_cast<const ConstantExpression&>(expression).value().isNull();
}

/// A vector of `numRows` NULLs, for the arguments' values to be scattered into.
Vector allNull(const LogicalType& type, size_t numRows) {
  Vector out(type, numRows);
  ValidityMask& validity = out.validity();
  std::fill(validity.words(), validity.words() + validity.numWords(), uint64_t{0});
  return out;
}

/// Writes row i of `values` (value and NULL flag) to row rows[i] of `out`.
void store(Vector values, const RowList& rows, Vector& out) {
  const LogicalType& type = values.type();
  // The binder casts every value to the result type; VARCHAR lengths may still differ.
  SHOAL_CHECK(type.physicalType() == out.type().physicalType() && type.scale() == out.type().scale(),
              "value of type {} for a result of type {}", type.toString(), out.type().toString());
  SHOAL_CHECK_EQ(values.size(), rows.size());
  if (rows.size() == out.size() && type == out.type()) {
    out = std::move(values);
    return;
  }
  const bool isString = type.physicalType() == PhysicalType::kString;
  const size_t width = physicalTypeWidth(type.physicalType());
  const std::byte* from = values.data<std::byte>();
  std::byte* to = out.data<std::byte>();
  for (size_t i = 0; i < rows.size(); ++i) {
    const uint32_t row = rows[i];
    const bool isNull = values.isNull(i);
    out.setNull(row, isNull);
    if (isNull) continue;
    if (isString) {
      // Re-home the bytes: `values` and its heap go away when this returns.
      out.setString(row, values.data<StringRef>()[i].view());
    } else {
      copyValue(to + row * width, from + i * width, width);
    }
  }
}

}  // namespace

Vector evaluateCase(const ExpressionEvaluator& evaluator, const FunctionExpression& function, const Chunk& input) {
  const auto& arguments = function.arguments();
  SHOAL_CHECK(arguments.size() % 2 == 1, "CASE with {} arguments", arguments.size());
  Vector out = allNull(function.type(), input.size());
  // Rows are NULL already, so a NULL value (the usual missing ELSE) needs no work.
  auto assign = [&](const Expression& value, const RowList& rows) {
    if (rows.empty() || isNullConstant(value)) return;
    store(evaluateOnRows(evaluator, value, input, rows), rows, out);
  };
  // The rows no condition has taken yet; once empty, later WHENs are skipped.
  RowList remaining = allRows(input.size());
  for (size_t i = 0; i + 1 < arguments.size() && !remaining.empty(); i += 2) {
    Vector condition = evaluateOnRows(evaluator, *arguments[i], input, remaining);
    SHOAL_CHECK(condition.type().physicalType() == PhysicalType::kBool, "CASE condition of type {}",
                condition.type().toString());
    const uint8_t* isTrue = condition.data<uint8_t>();
    RowList taken;
    RowList rest;
    for (size_t j = 0; j < remaining.size(); ++j) {
      (condition.validity().isValid(j) && isTrue[j] != 0 ? taken : rest).push_back(remaining[j]);
    }
    assign(*arguments[i + 1], taken);
    remaining = std::move(rest);
  }
  assign(*arguments.back(), remaining);
  return out;
}

Vector evaluateCoalesce(const ExpressionEvaluator& evaluator, const FunctionExpression& function, const Chunk& input) {
  const auto& arguments = function.arguments();
  SHOAL_CHECK(!arguments.empty(), "coalesce without arguments");
  Vector out = allNull(function.type(), input.size());
  // The rows every argument so far has left NULL.
  RowList remaining = allRows(input.size());
  for (const auto& argument : arguments) {
    if (remaining.empty()) break;
    if (isNullConstant(*argument)) continue;
    Vector values = evaluateOnRows(evaluator, *argument, input, remaining);
    RowList stillNull;
    for (size_t j = 0; j < remaining.size(); ++j) {
      if (values.isNull(j)) stillNull.push_back(remaining[j]);
    }
    store(std::move(values), remaining, out);
    remaining = std::move(stillNull);
  }
  return out;
}

Vector evaluateUndecidedOperand(const ExpressionEvaluator& evaluator, const Expression& right, const Chunk& input,
                                const Vector& left, bool dominant) {
  Vector out(LogicalType::boolean(), input.size());
  std::memset(out.data<uint8_t>(), dominant ? 1 : 0, input.size());
  const uint8_t* leftValues = left.data<uint8_t>();
  RowList undecided;
  for (uint32_t row = 0; row < input.size(); ++row) {
    if (left.isNull(row) || (leftValues[row] != 0) != dominant) undecided.push_back(row);
  }
  if (!undecided.empty()) store(evaluateOnRows(evaluator, right, input, undecided), undecided, out);
  return out;
}

}  // namespace shoal::engine
