#include "engine/expression/interval_functions.h"

#include <cmath>
#include <limits>

#include "common/status.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/interval.h"
#include "engine/types/time_zone.h"

namespace shoal::engine {

namespace {

constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr int128_t kExtractUnit = 1'000'000;  // the scale of evaluateIntervalPart's numeric(38,6)

[[noreturn]] void failOutOfRange() {
  SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "interval out of range");
}

bool isInfinite(int64_t micros) {
  return micros == kTimestampInfinity || micros == kTimestampMinusInfinity;
}

/// out[row] = op(interval) for every valid row, the intervals unpacked and the result packed.
template <class Op>
Vector mapIntervals(const Vector& intervals, Op&& op) {
  Vector out(LogicalType::interval(), intervals.size());
  unaryLoop<int128_t, int128_t>(intervals, out,
                                [&](int128_t packed) { return packInterval(op(unpackInterval(packed))); });
  return out;
}

/// interval2itm: an interval's fields as EXTRACT and date_trunc see them, each carrying the interval's sign.
struct IntervalFields {
  int64_t years;
  int64_t months;
  int64_t days;
  int64_t hours;
  int64_t minutes;
  int64_t seconds;
  int64_t micros;
};

IntervalFields fieldsOf(const Interval& interval) {
  IntervalFields fields{};
  fields.years = interval.months / 12;
  fields.months = interval.months % 12;
  fields.days = interval.days;
  int64_t time = interval.micros;
  fields.hours = time / kMicrosPerHour;
  time -= fields.hours * kMicrosPerHour;
  fields.minutes = time / kMicrosPerMinute;
  time -= fields.minutes * kMicrosPerMinute;
  fields.seconds = time / kMicrosPerSecond;
  fields.micros = time - fields.seconds * kMicrosPerSecond;
  return fields;
}

/// itm2interval: the fields back into an interval; fails with 22008 when they do not fit.
Interval intervalOf(const IntervalFields& fields) {
  const __int128 months = __int128{fields.years} * 12 + fields.months;
  const __int128 micros =
      ((__int128{fields.hours} * 60 + fields.minutes) * 60 + fields.seconds) * kMicrosPerSecond + fields.micros;
  if (months < std::numeric_limits<int32_t>::min() || months > std::numeric_limits<int32_t>::max() ||
      micros < std::numeric_limits<int64_t>::min() || micros > std::numeric_limits<int64_t>::max()) {
    failOutOfRange();
  }
  return Interval{static_cast<int32_t>(months), static_cast<int32_t>(fields.days), static_cast<int64_t>(micros)};
}

}  // namespace

Vector evaluateIntervalArithmetic(ScalarFunction function, const Vector& left, const Vector* right) {
  Vector out(LogicalType::interval(), left.size());
  switch (function) {
    case ScalarFunction::kIntervalNegate:
      return mapIntervals(left, [](const Interval& interval) { return negateInterval(interval); });
    case ScalarFunction::kIntervalAdd:
    case ScalarFunction::kIntervalSubtract: {
      const bool add = function == ScalarFunction::kIntervalAdd;
      binaryLoop<int128_t, int128_t, int128_t>(left, *right, out, [&](int128_t a, int128_t b) {
        const Interval x = unpackInterval(a);
        const Interval y = unpackInterval(b);
        return packInterval(add ? addIntervals(x, y) : subtractIntervals(x, y));
      });
      return out;
    }
    case ScalarFunction::kIntervalMultiply:
    case ScalarFunction::kIntervalDivide: {
      const bool multiply = function == ScalarFunction::kIntervalMultiply;
      binaryLoop<int128_t, double, int128_t>(left, *right, out, [&](int128_t a, double factor) {
        const Interval x = unpackInterval(a);
        return packInterval(multiply ? multiplyInterval(x, factor) : divideInterval(x, factor));
      });
      return out;
    }
    default:
      SHOAL_UNREACHABLE("interval arithmetic {}", scalarFunctionName(function));
  }
}

Vector evaluateTimestampDifference(const Vector& left, const Vector& right) {
  Vector out(LogicalType::interval(), left.size());
  binaryLoop<int64_t, int64_t, int128_t>(left, right, out, [](int64_t a, int64_t b) {
    if (isInfinite(a) || isInfinite(b)) {
      SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "cannot subtract infinite timestamps");
    }
    return packInterval(timestampDifference(a, b));
  });
  return out;
}

Vector evaluateTimestampAge(const Vector& left, const Vector& right, const TimeZone& zone) {
  const bool zoned = left.type().id() == TypeId::kTimestampTz;
  Vector out(LogicalType::interval(), left.size());
  auto local = [&](int64_t micros) {
    return zoned ? micros + int64_t{zone.offsetAt(micros)} * kMicrosPerSecond : micros;
  };
  binaryLoop<int64_t, int64_t, int128_t>(left, right, out, [&](int64_t a, int64_t b) {
    if (isInfinite(a) || isInfinite(b)) SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "timestamp out of range");
    return packInterval(timestampAge(local(a), local(b)));
  });
  return out;
}

Vector evaluateIntervalJustify(const Vector& intervals, IntervalJustification justification) {
  switch (justification) {
    case IntervalJustification::kHours:
      return mapIntervals(intervals, [](const Interval& interval) { return justifyHours(interval); });
    case IntervalJustification::kDays:
      return mapIntervals(intervals, [](const Interval& interval) { return justifyDays(interval); });
    case IntervalJustification::kBoth:
      return mapIntervals(intervals, [](const Interval& interval) { return justifyInterval(interval); });
  }
  SHOAL_UNREACHABLE("unknown interval justification");
}

Vector evaluateMakeInterval(std::span<const Vector* const> arguments) {
  SHOAL_CHECK_EQ(arguments.size(), size_t{7});
  const size_t numRows = arguments[0]->size();
  Vector out(LogicalType::interval(), numRows);
  for (size_t row = 0; row < numRows; ++row) {
    bool anyNull = false;
    for (const Vector* argument : arguments) anyNull = anyNull || argument->isNull(row);
    if (anyNull) {
      out.setNull(row, true);
      continue;
    }
    auto integer = [&](size_t index) { return int64_t{arguments[index]->data<int32_t>()[row]}; };
    const double seconds = arguments[6]->data<double>()[row];
    if (!std::isfinite(seconds)) failOutOfRange();
    const double secondMicros = std::rint(seconds * kMicrosPerSecond);
    if (!(secondMicros >= -9223372036854775808.0 && secondMicros < 9223372036854775808.0)) failOutOfRange();
    const __int128 months = __int128{integer(0)} * 12 + integer(1);
    const __int128 days = __int128{integer(2)} * 7 + integer(3);
    const __int128 micros = __int128{integer(4)} * kMicrosPerHour + __int128{integer(5)} * kMicrosPerMinute +
                            __int128{static_cast<int64_t>(secondMicros)};
    if (months < std::numeric_limits<int32_t>::min() || months > std::numeric_limits<int32_t>::max() ||
        days < std::numeric_limits<int32_t>::min() || days > std::numeric_limits<int32_t>::max() ||
        micros < std::numeric_limits<int64_t>::min() || micros > std::numeric_limits<int64_t>::max()) {
      failOutOfRange();
    }
    out.data<int128_t>()[row] =
        packInterval(Interval{static_cast<int32_t>(months), static_cast<int32_t>(days), static_cast<int64_t>(micros)});
  }
  return out;
}

Vector evaluateIntervalComponent(const Vector& intervals, IntervalComponent component) {
  Vector out(LogicalType::bigInt(), intervals.size());
  unaryLoop<int128_t, int64_t>(intervals, out, [&](int128_t packed) -> int64_t {
    const Interval interval = unpackInterval(packed);
    switch (component) {
      case IntervalComponent::kMonths:
        return interval.months;
      case IntervalComponent::kDays:
        return interval.days;
      case IntervalComponent::kMicroseconds:
        return interval.micros;
    }
    SHOAL_UNREACHABLE("unknown interval component");
  });
  return out;
}

Vector evaluateIntervalFromComponents(const Vector& months, const Vector& days, const Vector& micros) {
  const size_t numRows = months.size();
  Vector out(LogicalType::interval(), numRows);
  auto wide = [](const Vector& vector, size_t row) -> __int128 {
    switch (vector.type().physicalType()) {
      case PhysicalType::kInt32:
        return vector.data<int32_t>()[row];
      case PhysicalType::kInt64:
        return vector.data<int64_t>()[row];
      case PhysicalType::kInt128:
        return vector.data<int128_t>()[row];
      default:
        SHOAL_UNREACHABLE("interval component of type {}", vector.type().toString());
    }
  };
  for (size_t row = 0; row < numRows; ++row) {
    if (months.isNull(row) || days.isNull(row) || micros.isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    const __int128 m = wide(months, row);
    const __int128 d = wide(days, row);
    const __int128 t = wide(micros, row);
    if (m < std::numeric_limits<int32_t>::min() || m > std::numeric_limits<int32_t>::max() ||
        d < std::numeric_limits<int32_t>::min() || d > std::numeric_limits<int32_t>::max() ||
        t < std::numeric_limits<int64_t>::min() || t > std::numeric_limits<int64_t>::max()) {
      failOutOfRange();
    }
    out.data<int128_t>()[row] =
        packInterval(Interval{static_cast<int32_t>(m), static_cast<int32_t>(d), static_cast<int64_t>(t)});
  }
  return out;
}

bool extractsFromInterval(TimestampField field) {
  switch (field) {
    case TimestampField::kMicroseconds:
    case TimestampField::kMilliseconds:
    case TimestampField::kSecond:
    case TimestampField::kMinute:
    case TimestampField::kHour:
    case TimestampField::kDay:
    case TimestampField::kMonth:
    case TimestampField::kQuarter:
    case TimestampField::kYear:
    case TimestampField::kDecade:
    case TimestampField::kCentury:
    case TimestampField::kMillennium:
    case TimestampField::kEpoch:
      return true;
    default:
      return false;
  }
}

bool truncatesInterval(TimestampField field) {
  return extractsFromInterval(field) && field != TimestampField::kEpoch;
}

Vector evaluateIntervalPart(const Vector& intervals, TimestampField field, bool asDouble) {
  SHOAL_CHECK(extractsFromInterval(field), "EXTRACT field {} of an interval", static_cast<int>(field));
  if (asDouble) {
    Vector out(LogicalType::doublePrecision(), intervals.size());
    unaryLoop<int128_t, double>(intervals, out, [&](int128_t packed) -> double {
      const Interval interval = unpackInterval(packed);
      const IntervalFields fields = fieldsOf(interval);
      constexpr double kSecondsPerDay = 86'400.0;
      switch (field) {
        case TimestampField::kMicroseconds:
          return static_cast<double>(fields.seconds) * 1'000'000.0 + static_cast<double>(fields.micros);
        case TimestampField::kMilliseconds:
          return static_cast<double>(fields.seconds) * 1000.0 + static_cast<double>(fields.micros) / 1000.0;
        case TimestampField::kSecond:
          return static_cast<double>(fields.seconds) + static_cast<double>(fields.micros) / 1'000'000.0;
        case TimestampField::kEpoch: {
          double result = static_cast<double>(interval.micros) / 1'000'000.0;
          result += 365.25 * kSecondsPerDay * static_cast<double>(interval.months / 12);
          result += 30.0 * kSecondsPerDay * static_cast<double>(interval.months % 12);
          result += kSecondsPerDay * static_cast<double>(interval.days);
          return result;
        }
        default:
          break;
      }
      // The whole fields: the numeric path's value, exact in a double.
      Vector one(LogicalType::interval(), 1);
      one.data<int128_t>()[0] = packed;
      return static_cast<double>(evaluateIntervalPart(one, field, false).data<int128_t>()[0] / kExtractUnit);
    });
    return out;
  }
  Vector out(LogicalType::decimal(LogicalType::kMaxDecimalPrecision, 6), intervals.size());
  unaryLoop<int128_t, int128_t>(intervals, out, [&](int128_t packed) -> int128_t {
    const Interval interval = unpackInterval(packed);
    const IntervalFields fields = fieldsOf(interval);
    const int128_t secondMicros = int128_t{fields.seconds} * kMicrosPerSecond + fields.micros;
    switch (field) {
      case TimestampField::kMicroseconds:
        return secondMicros * kExtractUnit;
      case TimestampField::kMilliseconds:
        return secondMicros * 1000;
      case TimestampField::kSecond:
        return secondMicros;
      case TimestampField::kMinute:
        return fields.minutes * kExtractUnit;
      case TimestampField::kHour:
        return fields.hours * kExtractUnit;
      case TimestampField::kDay:
        return fields.days * kExtractUnit;
      case TimestampField::kMonth:
        return fields.months * kExtractUnit;
      case TimestampField::kQuarter:
        return (fields.months / 3 + 1) * kExtractUnit;
      case TimestampField::kYear:
        return fields.years * kExtractUnit;
      case TimestampField::kDecade:
        return fields.years / 10 * kExtractUnit;
      case TimestampField::kCentury:
        return fields.years / 100 * kExtractUnit;
      case TimestampField::kMillennium:
        return fields.years / 1000 * kExtractUnit;
      case TimestampField::kEpoch: {
        // A year counts 365.25 days, a month 30, a day 24 hours (PostgreSQL multiplies by 4 to stay exact).
        const int128_t quarterDays =
            int128_t{4 * 365 + 1} * fields.years + int128_t{4 * 30} * fields.months + int128_t{4} * fields.days;
        return quarterDays * (86'400 / 4) * kMicrosPerSecond + interval.micros;
      }
      default:
        SHOAL_UNREACHABLE("EXTRACT field of an interval");
    }
  });
  return out;
}

Vector evaluateIntervalTrunc(const Vector& intervals, TimestampField field) {
  SHOAL_CHECK(truncatesInterval(field), "date_trunc field {} of an interval", static_cast<int>(field));
  return mapIntervals(intervals, [&](const Interval& interval) {
    IntervalFields fields = fieldsOf(interval);
    // The fields from the unit down, as interval_trunc's fall-through switch.
    switch (field) {
      case TimestampField::kMillennium:
        fields.years = fields.years / 1000 * 1000;
        [[fallthrough]];
      case TimestampField::kCentury:
        fields.years = fields.years / 100 * 100;
        [[fallthrough]];
      case TimestampField::kDecade:
        fields.years = fields.years / 10 * 10;
        [[fallthrough]];
      case TimestampField::kYear:
        fields.months = 0;
        [[fallthrough]];
      case TimestampField::kQuarter:
        fields.months = 3 * (fields.months / 3);
        [[fallthrough]];
      case TimestampField::kMonth:
        fields.days = 0;
        [[fallthrough]];
      case TimestampField::kDay:
        fields.hours = 0;
        [[fallthrough]];
      case TimestampField::kHour:
        fields.minutes = 0;
        [[fallthrough]];
      case TimestampField::kMinute:
        fields.seconds = 0;
        [[fallthrough]];
      case TimestampField::kSecond:
        fields.micros = 0;
        break;
      case TimestampField::kMilliseconds:
        fields.micros = fields.micros / 1000 * 1000;
        break;
      default:
        break;
    }
    return intervalOf(fields);
  });
}

}  // namespace shoal::engine
