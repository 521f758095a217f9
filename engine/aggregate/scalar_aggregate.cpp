#include "engine/aggregate/scalar_aggregate.h"

#include <cmath>
#include <limits>
#include <optional>

#include "common/status.h"
#include "engine/types/decimal.h"
#include "engine/types/interval.h"
#include "engine/types/text_format.h"

namespace shoal::engine {
namespace {

/// Sums and extremes of one vector's non-NULL values, typed.
template <class T>
void scan(const Vector& vector, size_t numRows, int64_t& count, std::optional<T>& min, std::optional<T>& max,
          __int128* integerSum, double* doubleSum, bool& overflow) {
  const T* values = vector.data<T>();
  const ValidityMask& validity = vector.validity();
  for (size_t row = 0; row < numRows; ++row) {
    if (!validity.isValid(row)) continue;
    const T& value = values[row];
    ++count;
    if constexpr (std::is_same_v<T, double>) {
      if (doubleSum) *doubleSum += value;
      if (!min || (std::isnan(*min) ? !std::isnan(value) : value < *min)) min = value;
      if (!max || (!std::isnan(*max) && (std::isnan(value) || value > *max))) max = value;
    } else if constexpr (std::is_same_v<T, StringRef>) {
      if (!min || compare(value, *min) < 0) min = value;
      if (!max || compare(value, *max) > 0) max = value;
    } else {
      if (integerSum) {
        __int128 sum;
        if (__builtin_add_overflow(*integerSum, static_cast<__int128>(value), &sum)) overflow = true;
        *integerSum = sum;
      }
      if (!min || value < *min) min = value;
      if (!max || value > *max) max = value;
    }
  }
}

}  // namespace

int compareValues(const Value& a, const Value& b) {
  if (a.type().id() == TypeId::kInterval && !a.isNull() && !b.isNull()) {
    const int128_t left = intervalSpan(a.asDecimal());
    const int128_t right = intervalSpan(b.asDecimal());
    return left < right ? -1 : (left > right ? 1 : 0);
  }
  return std::visit(
      [&](const auto& left) -> int {
        using T = std::decay_t<decltype(left)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return 0;
        } else if constexpr (std::is_same_v<T, std::string>) {
          return left.compare(std::get<std::string>(b.storage()));
        } else if constexpr (std::is_same_v<T, double>) {
          double right = std::get<double>(b.storage());
          if (std::isnan(left) || std::isnan(right)) return std::isnan(left) - std::isnan(right);
          return left < right ? -1 : (left > right ? 1 : 0);
        } else {
          const T& right = std::get<T>(b.storage());
          return left < right ? -1 : (left > right ? 1 : 0);
        }
      },
      a.storage());
}

ScalarAggregate::ScalarAggregate(AggregateFunction function, LogicalType argumentType, LogicalType resultType)
    : function_(function),
      argumentType_(function == AggregateFunction::kCountStar ? LogicalType::bigInt() : argumentType),
      resultType_(resultType),
      min_(Value::null(argumentType_)),
      max_(Value::null(argumentType_)) {}

LogicalType ScalarAggregate::sumType() const {
  if (argumentType_.id() == TypeId::kDouble) return LogicalType::doublePrecision();
  int scale = argumentType_.id() == TypeId::kDecimal ? argumentType_.scale() : 0;
  return LogicalType::decimal(LogicalType::kMaxDecimalPrecision, scale);
}

std::vector<LogicalType> ScalarAggregate::partialTypes() const {
  return {LogicalType::bigInt(), sumType(), argumentType_, argumentType_};
}

void ScalarAggregate::update(const Vector* argument, size_t numRows) {
  if (function_ == AggregateFunction::kCountStar) {
    count_ += static_cast<int64_t>(numRows);
    return;
  }
  const bool wantSum = function_ == AggregateFunction::kSum || function_ == AggregateFunction::kAvg;
  const bool wantMinMax = function_ == AggregateFunction::kMin || function_ == AggregateFunction::kMax;
  auto run = [&](auto tag, auto toValue) {
    using T = decltype(tag);
    std::optional<T> min;
    std::optional<T> max;
    scan<T>(*argument, numRows, count_, min, max, wantSum ? &integerSum_ : nullptr, wantSum ? &doubleSum_ : nullptr,
            sumOverflow_);
    if (wantMinMax && min) mergeMinMax(toValue(*min), toValue(*max));
  };
  switch (argumentType_.physicalType()) {
    case PhysicalType::kBool:
      run(uint8_t{}, [&](uint8_t v) { return Value::boolean(v != 0); });
      break;
    case PhysicalType::kInt32:
      run(int32_t{}, [&](int32_t v) { return Value::ofInt32(argumentType_, v); });
      break;
    case PhysicalType::kInt64:
      run(int64_t{}, [&](int64_t v) {
        return argumentType_.id() == TypeId::kDecimal ? Value::decimal(argumentType_, v)
                                                      : Value::ofInt64(argumentType_, v);
      });
      break;
    case PhysicalType::kInt128:
      if (argumentType_.id() == TypeId::kInterval) {
        // min and max of intervals: by span (sum and avg of intervals are not aggregates Shoal has yet).
        const auto* values = argument->data<__int128>();
        for (size_t row = 0; row < numRows; ++row) {
          if (argument->isNull(row)) continue;
          ++count_;
          if (wantMinMax) mergeMinMax(Value::interval(values[row]), Value::interval(values[row]));
        }
        break;
      }
      run(__int128{}, [&](__int128 v) { return Value::decimal(argumentType_, v); });
      break;
    case PhysicalType::kDouble:
      if (function_ == AggregateFunction::kSum && argumentType_.isReal()) {
        // sum(real) adds as float4pl does: each step rounds to float (22003 when it overflows).
        const double* values = argument->data<double>();
        for (size_t row = 0; row < numRows; ++row) {
          if (argument->isNull(row)) continue;
          ++count_;
          doubleSum_ = realFromDouble(doubleSum_ + values[row]);
        }
        break;
      }
      run(double{}, [&](double v) { return Value::ofDouble(argumentType_, v); });
      break;
    case PhysicalType::kString:
      run(StringRef{}, [&](const StringRef& v) { return Value::varchar(std::string(v.view()), argumentType_); });
      break;
  }
}

double ScalarAggregate::addDoubles(double a, double b) const {
  return function_ == AggregateFunction::kSum && argumentType_.isReal() ? realFromDouble(a + b) : a + b;
}

void ScalarAggregate::mergeMinMax(const Value& candidateMin, const Value& candidateMax) {
  if (candidateMin.isNull()) return;
  if (min_.isNull() || compareValues(candidateMin, min_) < 0) min_ = candidateMin;
  if (max_.isNull() || compareValues(candidateMax, max_) > 0) max_ = candidateMax;
}

void ScalarAggregate::writePartial(Chunk& out) const {
  std::vector<LogicalType> types = partialTypes();
  Vector count(types[0], 1);
  count.setValue(0, Value::bigInt(count_));
  Vector sum(types[1], 1);
  if (sumOverflow_) {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "numeric field overflow in {}",
                    aggregateFunctionName(function_));
  }
  sum.setValue(
      0, types[1].id() == TypeId::kDouble ? Value::doublePrecision(doubleSum_) : Value::decimal(types[1], integerSum_));
  Vector min(types[2], 1);
  min.setValue(0, min_);
  Vector max(types[3], 1);
  max.setValue(0, max_);
  out.addColumn(std::move(count));
  out.addColumn(std::move(sum));
  out.addColumn(std::move(min));
  out.addColumn(std::move(max));
}

void ScalarAggregate::mergePartial(const Chunk& in, size_t row, size_t firstColumn) {
  count_ += in.column(firstColumn).getValue(row).asInt64();
  Value sum = in.column(firstColumn + 1).getValue(row);
  if (sum.type().id() == TypeId::kDouble) {
    doubleSum_ = addDoubles(doubleSum_, sum.asDouble());
  } else if (__builtin_add_overflow(integerSum_, sum.asDecimal(), &integerSum_)) {
    sumOverflow_ = true;
  }
  mergeMinMax(in.column(firstColumn + 2).getValue(row), in.column(firstColumn + 3).getValue(row));
}

void ScalarAggregate::mergeState(int64_t count, __int128 integerSum, bool sumOverflow, double doubleSum,
                                 const Value& min, const Value& max) {
  count_ += count;
  if (sumOverflow || __builtin_add_overflow(integerSum_, integerSum, &integerSum_)) sumOverflow_ = true;
  doubleSum_ = addDoubles(doubleSum_, doubleSum);
  mergeMinMax(min, max);
}

Value ScalarAggregate::finalize() const {
  auto overflow = [&]() {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "{} out of range in {}", resultType_.toString(),
                    aggregateFunctionName(function_));
  };
  switch (function_) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return Value::bigInt(count_);
    case AggregateFunction::kMin:
      return min_;
    case AggregateFunction::kMax:
      return max_;
    case AggregateFunction::kSum:
      if (count_ == 0) return Value::null(resultType_);
      if (sumOverflow_) overflow();
      if (resultType_.id() == TypeId::kDouble) return Value::ofDouble(resultType_, doubleSum_);
      if (resultType_.id() == TypeId::kBigInt) {
        if (integerSum_ > std::numeric_limits<int64_t>::max() || integerSum_ < std::numeric_limits<int64_t>::min()) {
          overflow();
        }
        return Value::bigInt(static_cast<int64_t>(integerSum_));
      }
      if (!fitsPrecision(integerSum_, resultType_.precision())) overflow();
      return Value::decimal(resultType_, integerSum_);
    case AggregateFunction::kAvg: {
      if (count_ == 0) return Value::null(resultType_);
      if (sumOverflow_) overflow();
      if (resultType_.id() == TypeId::kDouble) return Value::doublePrecision(doubleSum_ / static_cast<double>(count_));
      int fromScale = argumentType_.id() == TypeId::kDecimal ? argumentType_.scale() : 0;
      bool rescaleOverflow = false;
      // One extra digit, so that the division can round half away from zero.
      __int128 scaled = rescaleDecimal(integerSum_, fromScale, resultType_.scale() + 1, rescaleOverflow);
      if (rescaleOverflow) overflow();
      __int128 quotient = scaled / count_;
      quotient = quotient >= 0 ? (quotient + 5) / 10 : (quotient - 5) / 10;
      return Value::decimal(resultType_, quotient);
    }
    default:
      break;  // collecting aggregates and statistics: HashAggregation computes them
  }
  SHOAL_CHECK(false, "{} has no scalar-state implementation", aggregateFunctionName(function_));
  return Value::null(resultType_);
}

}  // namespace shoal::engine
