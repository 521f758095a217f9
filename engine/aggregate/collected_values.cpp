#include "engine/aggregate/collected_values.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <span>

#include "engine/aggregate/scalar_aggregate.h"
#include "engine/pipeline/query_memory.h"
#include "engine/types/array_value.h"

namespace shoal::engine {

namespace {

size_t heapBytes(const Value& value) {
  return !value.isNull() && value.type().physicalType() == PhysicalType::kString ? value.asString().size() : 0;
}

/// Orders two values of one ORDER BY key, NULLs placed as the key says.
int compareKey(const Value& a, const Value& b, bool ascending, bool nullsFirst) {
  if (a.isNull() || b.isNull()) {
    if (a.isNull() && b.isNull()) return 0;
    return a.isNull() == nullsFirst ? -1 : 1;
  }
  int order = compareValues(a, b);
  return ascending ? order : -order;
}

bool sameValue(const Value& a, const Value& b) {
  if (a.isNull() || b.isNull()) return a.isNull() == b.isNull();
  return compareValues(a, b) == 0;
}

}  // namespace

void CollectedValues::add(const GroupedAggregate& spec, const Chunk& chunk, size_t row) {
  const Vector& argumentColumn = chunk.column(*spec.argumentColumn);
  // string_agg skips NULLs; array_agg keeps them as elements.
  if (spec.function == AggregateFunction::kStringAgg && argumentColumn.isNull(row)) return;
  if (spec.function == AggregateFunction::kArrayAgg && spec.secondArgumentColumn) {
    const Vector& filter = chunk.column(*spec.secondArgumentColumn);
    if (filter.isNull(row) || filter.data<uint8_t>()[row] == 0) return;  // FILTER (WHERE ...) not true
  }
  if (values_.empty()) {
    stride_ = 1 + (hasDelimiter(spec) ? 1 : 0) + spec.orderBy.size();
    values_.reserve(4 * stride_);  // most groups are small: grow once for them, not three times
  }
  size_t bytes = stride_ * sizeof(Value);
  auto keep = [&](const Vector& column) {
    values_.push_back(column.getValue(row));
    bytes += heapBytes(values_.back());
  };
  keep(argumentColumn);
  if (hasDelimiter(spec)) keep(chunk.column(*spec.secondArgumentColumn));
  for (const auto& key : spec.orderBy) keep(chunk.column(key.column));
  reserveQueryMemory(bytes);
}

void CollectedValues::append(CollectedValues&& other) {
  if (values_.empty()) {
    stride_ = other.stride_;
    values_ = std::move(other.values_);
    return;
  }
  values_.insert(values_.end(), std::make_move_iterator(other.values_.begin()),
                 std::make_move_iterator(other.values_.end()));
  other.values_.clear();
}

bool CollectedValues::rowLess(const GroupedAggregate& spec, size_t a, size_t b) const {
  const size_t firstKey = hasDelimiter(spec) ? 2 : 1;
  for (size_t k = 0; k < spec.orderBy.size(); ++k) {
    const auto& key = spec.orderBy[k];
    int order = compareKey(values_[a * stride_ + firstKey + k], values_[b * stride_ + firstKey + k], key.ascending,
                           key.nullsFirst);
    if (order != 0) return order < 0;
  }
  // DISTINCT without ORDER BY: PostgreSQL sorts the values to find the duplicates, so they come out ascending.
  if (spec.distinct && spec.orderBy.empty()) return compareKey(argument(a), argument(b), true, false) < 0;
  return false;
}

Value CollectedValues::finish(const GroupedAggregate& spec) {
  const LogicalType& resultType = spec.resultType;
  const size_t rows = stride_ == 0 ? 0 : values_.size() / stride_;
  if (rows == 0) return Value::null(resultType);
  // The rows in the ORDER BY's order, stably (ties keep their input order). Input often arrives in order
  // already (string_agg(x ORDER BY line number)); then nothing moves.
  constexpr size_t kInlineRows = 16;
  std::array<uint32_t, kInlineRows> inlineOrder;
  std::vector<uint32_t> heapOrder(rows > kInlineRows ? rows : 0);
  std::span<uint32_t> order = rows > kInlineRows ? std::span<uint32_t>(heapOrder) : std::span(inlineOrder).first(rows);
  for (size_t i = 0; i < rows; ++i) order[i] = static_cast<uint32_t>(i);
  bool sorted = true;
  for (size_t i = 1; i < rows && sorted; ++i) sorted = !rowLess(spec, i, i - 1);
  if (!sorted) {
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return rowLess(spec, a, b); });
  }
  if (spec.distinct) {
    // ORDER BY of a DISTINCT aggregate names its arguments only, so equal values are now adjacent.
    auto last = std::unique(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const Value* delimiterA = delimiter(spec, a);
      return sameValue(argument(a), argument(b)) && (!delimiterA || sameValue(*delimiterA, *delimiter(spec, b)));
    });
    order = order.first(static_cast<size_t>(last - order.begin()));
  }
  if (spec.function == AggregateFunction::kArrayAgg) {
    std::vector<Value> elements;
    elements.reserve(order.size());
    for (uint32_t row : order) elements.push_back(std::move(values_[row * stride_]));
    return makeArrayValue(elements, resultType);
  }
  // string_agg: each value after the first is preceded by its own row's delimiter (none when NULL).
  std::string joined;
  for (size_t i = 0; i < order.size(); ++i) {
    const Value* separator = delimiter(spec, order[i]);
    if (i > 0 && separator && !separator->isNull()) joined += separator->asString();
    joined += argument(order[i]).asString();
  }
  return Value::varchar(std::move(joined), resultType);
}

}  // namespace shoal::engine
