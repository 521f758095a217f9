#include "engine/aggregate/collected_values.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <span>

#include "common/status.h"
#include "engine/types/text_format.h"

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
  Row kept;
  kept.argument = chunk.column(*spec.argumentColumn).getValue(row);
  // string_agg skips NULLs; array_agg keeps them as elements.
  if (spec.function == AggregateFunction::kStringAgg && kept.argument.isNull()) return;
  size_t bytes = sizeof(Row) + heapBytes(kept.argument);
  if (spec.secondArgumentColumn) {
    kept.delimiter = chunk.column(*spec.secondArgumentColumn).getValue(row);
    bytes += heapBytes(kept.delimiter);
  }
  kept.keys.reserve(spec.orderBy.size());
  for (const auto& key : spec.orderBy) {
    kept.keys.push_back(chunk.column(key.column).getValue(row));
    bytes += sizeof(Value) + heapBytes(kept.keys.back());
  }
  reserveQueryMemory(bytes);
  rows_.push_back(std::move(kept));
}

void CollectedValues::append(CollectedValues&& other) {
  if (rows_.empty()) {
    rows_ = std::move(other.rows_);
    return;
  }
  rows_.insert(rows_.end(), std::make_move_iterator(other.rows_.begin()), std::make_move_iterator(other.rows_.end()));
  other.rows_.clear();
}

Value CollectedValues::finish(const GroupedAggregate& spec) {
  const bool distinct = spec.distinct;
  const LogicalType& resultType = spec.resultType;
  if (rows_.empty()) return Value::null(resultType);
  std::stable_sort(rows_.begin(), rows_.end(), [&](const Row& a, const Row& b) {
    for (size_t k = 0; k < spec.orderBy.size(); ++k) {
      int order = compareKey(a.keys[k], b.keys[k], spec.orderBy[k].ascending, spec.orderBy[k].nullsFirst);
      if (order != 0) return order < 0;
    }
    // DISTINCT without ORDER BY: PostgreSQL sorts the values to find the duplicates, so they come out ascending.
    if (distinct && spec.orderBy.empty()) return compareKey(a.argument, b.argument, true, false) < 0;
    return false;
  });
  if (distinct) {
    // ORDER BY of a DISTINCT aggregate names its arguments only, so equal values are now adjacent.
    auto last = std::unique(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) {
      return sameValue(a.argument, b.argument) && sameValue(a.delimiter, b.delimiter);
    });
    rows_.erase(last, rows_.end());
  }
  if (spec.function == AggregateFunction::kArrayAgg) {
    std::vector<Value> elements;
    elements.reserve(rows_.size());
    for (auto& row : rows_) elements.push_back(std::move(row.argument));
    return makeArrayValue(elements, resultType);
  }
  // string_agg: each value after the first is preceded by its own row's delimiter (none when NULL).
  std::string joined;
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (i > 0 && !rows_[i].delimiter.isNull()) joined += rows_[i].delimiter.asString();
    joined += rows_[i].argument.asString();
  }
  return Value::varchar(std::move(joined), resultType);
}

}  // namespace shoal::engine
