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
  // string_agg and the ordered-set aggregates skip NULLs; array_agg keeps them as elements.
  if ((spec.function == AggregateFunction::kStringAgg || isOrderedSetAggregate(spec.function)) &&
      kept.argument.isNull()) {
    return;
  }
  size_t bytes = sizeof(Row) + heapBytes(kept.argument);
  if (spec.secondArgumentColumn) {
    kept.delimiter = chunk.column(*spec.secondArgumentColumn).getValue(row);
    bytes += heapBytes(kept.delimiter);
  }
  // An ordered-set aggregate's one ORDER BY key is its argument: no copy is kept.
  if (!isOrderedSetAggregate(spec.function)) kept.keys.reserve(spec.orderBy.size());
  for (const auto& key : isOrderedSetAggregate(spec.function) ? std::span<const AggregateOrderKey>{} : spec.orderBy) {
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
  if (isOrderedSetAggregate(spec.function)) return finishOrderedSet(spec);
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

Value CollectedValues::finishOrderedSet(const GroupedAggregate& spec) {
  const LogicalType& resultType = spec.resultType;
  const bool ascending = spec.orderBy.empty() || spec.orderBy[0].ascending;
  std::stable_sort(rows_.begin(), rows_.end(), [&](const Row& a, const Row& b) {
    return compareKey(a.argument, b.argument, ascending, false) < 0;
  });
  if (spec.function == AggregateFunction::kMode) {
    // The most frequent value; of equally frequent ones, the first in the ORDER BY's order (mode_final).
    size_t best = 0;
    size_t bestCount = 0;
    for (size_t run = 0; run < rows_.size();) {
      size_t end = run + 1;
      while (end < rows_.size() && sameValue(rows_[end].argument, rows_[run].argument)) ++end;
      if (end - run > bestCount) {
        best = run;
        bestCount = end - run;
      }
      run = end;
    }
    return rows_[best].argument;
  }
  // The fraction is a direct argument: one value for the whole group.
  const Value& fractionValue = rows_[0].delimiter;
  if (fractionValue.isNull()) return Value::null(resultType);
  const double fraction = fractionValue.asDouble();
  if (!(fraction >= 0 && fraction <= 1)) {
    std::string text;
    appendDoubleText(fraction, text);
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "percentile value {} is not between 0 and 1", text);
  }
  const auto count = static_cast<double>(rows_.size());
  if (spec.function == AggregateFunction::kPercentileDisc) {
    // The first value whose cumulative share reaches the fraction.
    const auto position = static_cast<size_t>(std::ceil(fraction * count));
    return rows_[position <= 1 ? 0 : position - 1].argument;
  }
  // percentile_cont: interpolated between the two values around position fraction * (n - 1).
  const double position = fraction * (count - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const auto above = static_cast<size_t>(std::ceil(position));
  const double first = rows_[below].argument.asDouble();
  if (above == below) return Value::doublePrecision(first);
  const double second = rows_[above].argument.asDouble();
  return Value::doublePrecision(first + (second - first) * (position - static_cast<double>(below)));
}

}  // namespace shoal::engine
