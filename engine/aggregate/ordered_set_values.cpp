#include "engine/aggregate/ordered_set_values.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "common/status.h"
#include "engine/aggregate/scalar_aggregate.h"
#include "engine/pipeline/query_memory.h"
#include "engine/types/text_format.h"

namespace shoal::engine {

namespace {

/// NaN sorts above every number and equals itself, as in PostgreSQL.
bool doubleLess(double a, double b) {
  return std::isnan(b) ? !std::isnan(a) : a < b;
}

bool doubleEqual(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

bool valueLess(const Value& a, const Value& b) {
  return compareValues(a, b) < 0;
}

/// A value of `type` from the int64 an integer-stored column held (see OrderedSetValues::add).
Value integerValue(const LogicalType& type, int64_t value) {
  if (type.id() == TypeId::kDecimal) return Value::decimal(type, value);
  if (type.physicalType() == PhysicalType::kInt32) return Value::ofInt32(type, static_cast<int32_t>(value));
  return Value::ofInt64(type, value);
}

/// Accounts for a vector's growth: its capacity is what it holds on to.
template <class T>
void accountGrowth(const std::vector<T>& values, size_t& reservedBytes) {
  const size_t bytes = values.capacity() * sizeof(T);
  if (bytes > reservedBytes) {
    reserveQueryMemory(bytes - reservedBytes);
    reservedBytes = bytes;
  }
}

}  // namespace

void OrderedSetValues::add(const GroupedAggregate& spec, const Chunk& chunk, size_t firstRow, size_t count) {
  const Vector& argument = chunk.column(*spec.argumentColumn);
  for (size_t row = firstRow; row < firstRow + count && storage_ == Storage::kUnset; ++row) {
    if (argument.isNull(row)) continue;
    // The fraction is a direct argument: a constant, so the first row's is the group's.
    if (spec.secondArgumentColumn) fraction_ = chunk.column(*spec.secondArgumentColumn).getValue(row);
    switch (argument.type().physicalType()) {
      case PhysicalType::kDouble:
        storage_ = Storage::kDoubles;
        break;
      case PhysicalType::kInt32:
      case PhysicalType::kInt64:
        storage_ = Storage::kIntegers;
        break;
      default:
        storage_ = Storage::kValues;
    }
  }
  auto keepValid = [&](auto&& keep) {
    for (size_t row = firstRow; row < firstRow + count; ++row) {
      if (!argument.isNull(row)) keep(row);
    }
  };
  switch (storage_) {
    case Storage::kUnset:
      return;  // only NULLs so far
    case Storage::kDoubles: {
      const double* values = argument.data<double>();
      keepValid([&](size_t row) { doubles_.push_back(values[row]); });
      return accountGrowth(doubles_, reservedBytes_);
    }
    case Storage::kIntegers:
      if (argument.type().physicalType() == PhysicalType::kInt32) {
        const int32_t* values = argument.data<int32_t>();
        keepValid([&](size_t row) { integers_.push_back(values[row]); });
      } else {
        const int64_t* values = argument.data<int64_t>();
        keepValid([&](size_t row) { integers_.push_back(values[row]); });
      }
      return accountGrowth(integers_, reservedBytes_);
    case Storage::kValues: {
      size_t heapBytes = 0;
      keepValid([&](size_t row) {
        values_.push_back(argument.getValue(row));
        if (values_.back().type().physicalType() == PhysicalType::kString)
          heapBytes += values_.back().asString().size();
      });
      reserveQueryMemory(heapBytes);
      return accountGrowth(values_, reservedBytes_);
    }
  }
}

void OrderedSetValues::append(OrderedSetValues&& other) {
  if (other.storage_ == Storage::kUnset) return;
  if (storage_ == Storage::kUnset) {
    *this = std::move(other);
    return;
  }
  doubles_.insert(doubles_.end(), other.doubles_.begin(), other.doubles_.end());
  integers_.insert(integers_.end(), other.integers_.begin(), other.integers_.end());
  values_.insert(values_.end(), std::make_move_iterator(other.values_.begin()),
                 std::make_move_iterator(other.values_.end()));
  accountGrowth(doubles_, reservedBytes_);
  accountGrowth(integers_, reservedBytes_);
  accountGrowth(values_, reservedBytes_);
}

void OrderedSetValues::select(size_t index) {
  switch (storage_) {
    case Storage::kDoubles:
      std::nth_element(doubles_.begin(), doubles_.begin() + index, doubles_.end(), doubleLess);
      return;
    case Storage::kIntegers:
      std::nth_element(integers_.begin(), integers_.begin() + index, integers_.end());
      return;
    default:
      std::nth_element(values_.begin(), values_.begin() + index, values_.end(), valueLess);
  }
}

void OrderedSetValues::sortAll() {
  switch (storage_) {
    case Storage::kDoubles:
      std::sort(doubles_.begin(), doubles_.end(), doubleLess);
      return;
    case Storage::kIntegers:
      std::sort(integers_.begin(), integers_.end());
      return;
    default:
      std::sort(values_.begin(), values_.end(), valueLess);
  }
}

Value OrderedSetValues::valueAt(const GroupedAggregate& spec, size_t index) const {
  switch (storage_) {
    case Storage::kDoubles:
      return Value::ofDouble(spec.resultType, doubles_[index]);
    case Storage::kIntegers:
      return integerValue(spec.resultType, integers_[index]);
    default:
      return values_[index];
  }
}

Value OrderedSetValues::mode(const GroupedAggregate& spec, bool ascending) {
  sortAll();
  // The most frequent value; of equally frequent ones, the first in the ORDER BY's order (mode_final). The
  // values are ascending here, so under DESC the last of the tied runs wins.
  const size_t n = size();
  auto same = [&](size_t a, size_t b) {
    switch (storage_) {
      case Storage::kDoubles:
        return doubleEqual(doubles_[a], doubles_[b]);
      case Storage::kIntegers:
        return integers_[a] == integers_[b];
      default:
        return compareValues(values_[a], values_[b]) == 0;
    }
  };
  size_t best = 0;
  size_t bestCount = 0;
  for (size_t run = 0; run < n;) {
    size_t end = run + 1;
    while (end < n && same(end, run)) ++end;
    if (end - run > bestCount || (!ascending && end - run == bestCount)) {
      best = run;
      bestCount = end - run;
    }
    run = end;
  }
  return valueAt(spec, best);
}

Value OrderedSetValues::finish(const GroupedAggregate& spec) {
  const LogicalType& resultType = spec.resultType;
  const size_t n = size();
  if (n == 0) return Value::null(resultType);
  const bool ascending = spec.orderBy.empty() || spec.orderBy[0].ascending;
  if (spec.function == AggregateFunction::kMode) return mode(spec, ascending);
  if (fraction_.isNull()) return Value::null(resultType);
  const double fraction = fraction_.asDouble();
  if (!(fraction >= 0 && fraction <= 1)) {
    std::string text;
    appendDoubleText(fraction, text);
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "percentile value {} is not between 0 and 1", text);
  }
  // Ranks count in the ORDER BY's direction; the values are selected in ascending order.
  auto ascendingIndex = [&](size_t rank) { return ascending ? rank : n - 1 - rank; };
  const auto count = static_cast<double>(n);
  if (spec.function == AggregateFunction::kPercentileDisc) {
    // The first value whose cumulative share reaches the fraction.
    const auto position = static_cast<size_t>(std::ceil(fraction * count));
    const size_t index = ascendingIndex(position <= 1 ? 0 : position - 1);
    select(index);
    return valueAt(spec, index);
  }
  // percentile_cont: interpolated between the two values around rank fraction * (n - 1).
  const double position = fraction * (count - 1);
  const auto below = static_cast<size_t>(std::floor(position));
  const auto above = static_cast<size_t>(std::ceil(position));
  const size_t belowIndex = ascendingIndex(below);
  // The binder casts percentile_cont's argument to double precision, so the values are doubles_.
  select(belowIndex);
  const double first = doubles_[belowIndex];
  if (above == below) return Value::doublePrecision(first);
  // The neighbour in the ORDER BY's direction is the least value after the selected one (ascending) or
  // the greatest before it (descending): nth_element partitioned the rest around it.
  double second;
  if (ascending) {
    second = *std::min_element(doubles_.begin() + static_cast<ptrdiff_t>(belowIndex) + 1, doubles_.end(), doubleLess);
  } else {
    second = *std::max_element(doubles_.begin(), doubles_.begin() + static_cast<ptrdiff_t>(belowIndex), doubleLess);
  }
  return Value::doublePrecision(first + (second - first) * (position - static_cast<double>(below)));
}

}  // namespace shoal::engine
