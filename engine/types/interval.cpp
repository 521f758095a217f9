#include "engine/types/interval.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "common/sql_state.h"
#include "common/status.h"
#include "engine/types/date.h"

namespace shoal::engine {

namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;

[[noreturn]] void failOutOfRange() {
  SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "interval out of range");
}

int32_t checkedInt32(int64_t value) {
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) failOutOfRange();
  return static_cast<int32_t>(value);
}

int64_t checkedAdd(int64_t left, int64_t right) {
  int64_t sum;
  if (__builtin_add_overflow(left, right, &sum)) failOutOfRange();
  return sum;
}

}  // namespace

void appendIntervalText(const Interval& interval, std::string& out) {
  const int32_t years = interval.months / 12;
  const int32_t months = interval.months % 12;
  bool isZero = true;
  bool isBefore = false;
  auto part = [&](int64_t value, std::string_view unit) {
    if (value == 0) return;
    fmt::format_to(std::back_inserter(out), "{}{}{} {}{}", isZero ? "" : " ", isBefore && value > 0 ? "+" : "", value,
                   unit, value != 1 ? "s" : "");
    isBefore = value < 0;
    isZero = false;
  };
  part(years, "year");
  part(months, "mon");
  part(interval.days, "day");
  int64_t time = interval.micros;
  const int64_t hours = time / kMicrosPerHour;
  time -= hours * kMicrosPerHour;
  const int64_t minutes = time / kMicrosPerMinute;
  time -= minutes * kMicrosPerMinute;
  const int64_t seconds = time / kMicrosPerSecond;
  const int64_t fraction = time - seconds * kMicrosPerSecond;
  if (isZero || hours != 0 || minutes != 0 || seconds != 0 || fraction != 0) {
    const bool minus = hours < 0 || minutes < 0 || seconds < 0 || fraction < 0;
    auto magnitude = [](int64_t v) { return v < 0 ? -static_cast<uint64_t>(v) : static_cast<uint64_t>(v); };
    fmt::format_to(std::back_inserter(out), "{}{}{:02}:{:02}:{:02}", isZero ? "" : " ",
                   minus ? "-" : (isBefore ? "+" : ""), magnitude(hours), magnitude(minutes), magnitude(seconds));
    if (fraction != 0) {
      std::string digits = fmt::format("{:06}", magnitude(fraction));
      while (digits.back() == '0') digits.pop_back();
      out += '.';
      out += digits;
    }
  }
}

std::string intervalText(const Interval& interval) {
  std::string out;
  appendIntervalText(interval, out);
  return out;
}

Interval addIntervals(const Interval& left, const Interval& right) {
  return Interval{checkedInt32(int64_t{left.months} + right.months), checkedInt32(int64_t{left.days} + right.days),
                  checkedAdd(left.micros, right.micros)};
}

Interval negateInterval(const Interval& interval) {
  if (interval.months == std::numeric_limits<int32_t>::min() || interval.days == std::numeric_limits<int32_t>::min() ||
      interval.micros == std::numeric_limits<int64_t>::min()) {
    failOutOfRange();
  }
  return Interval{-interval.months, -interval.days, -interval.micros};
}

Interval subtractIntervals(const Interval& left, const Interval& right) {
  int64_t micros;
  if (__builtin_sub_overflow(left.micros, right.micros, &micros)) failOutOfRange();
  return Interval{checkedInt32(int64_t{left.months} - right.months), checkedInt32(int64_t{left.days} - right.days),
                  micros};
}

namespace {

bool fitsInt32(double value) {
  return !std::isnan(value) && value >= -2147483648.0 && value < 2147483648.0;
}
bool fitsInt64(double value) {
  return !std::isnan(value) && value >= -9223372036854775808.0 && value < 9223372036854775808.0;
}
double roundToMicros(double value) {
  return std::rint(value * 1'000'000.0) / 1'000'000.0;
}

/// What interval_mul and interval_div share: month and day products whose fractions cascade down.
Interval scaleInterval(double monthsExact, double daysExact, double timeResult) {
  constexpr double kSecondsPerDay = 86'400.0;
  if (!fitsInt32(monthsExact) || !fitsInt32(daysExact)) failOutOfRange();
  Interval result;
  result.months = static_cast<int32_t>(monthsExact);
  result.days = static_cast<int32_t>(daysExact);
  double monthRemainderDays = roundToMicros((monthsExact - result.months) * kIntervalDaysPerMonth);
  double secondRemainder = roundToMicros(
      (daysExact - result.days + monthRemainderDays - static_cast<int32_t>(monthRemainderDays)) * kSecondsPerDay);
  if (std::fabs(secondRemainder) >= kSecondsPerDay) {
    const auto wholeDays = static_cast<int32_t>(secondRemainder / kSecondsPerDay);
    result.days = checkedInt32(int64_t{result.days} + wholeDays);
    secondRemainder -= wholeDays * kSecondsPerDay;
  }
  result.days = checkedInt32(int64_t{result.days} + static_cast<int32_t>(monthRemainderDays));
  const double time = std::rint(timeResult + secondRemainder * kMicrosPerSecond);
  if (!fitsInt64(time)) failOutOfRange();
  result.micros = static_cast<int64_t>(time);
  return result;
}

}  // namespace

Interval multiplyInterval(const Interval& interval, double factor) {
  return scaleInterval(interval.months * factor, interval.days * factor, static_cast<double>(interval.micros) * factor);
}

Interval divideInterval(const Interval& interval, double divisor) {
  if (divisor == 0.0) SHOAL_USER_FAIL(SqlState::kDivisionByZero, "division by zero");
  return scaleInterval(interval.months / divisor, interval.days / divisor,
                       static_cast<double>(interval.micros) / divisor);
}

namespace {

/// Carries the whole `unit`s out of `smaller` (truncating, as PostgreSQL's TMODULO) and returns them.
template <class T>
T carryWhole(T& smaller, T unit) {
  const T whole = smaller / unit;
  smaller -= whole * unit;
  return whole;
}

/// Makes the smaller field's sign agree with the larger one's by borrowing one unit, as the justify functions do.
template <class Larger, class Smaller>
void agreeSigns(Larger& larger, Smaller& smaller, Smaller unit) {
  if (larger > 0 && smaller < 0) {
    smaller += unit;
    --larger;
  } else if (larger < 0 && smaller > 0) {
    smaller -= unit;
    ++larger;
  }
}

}  // namespace

Interval justifyHours(const Interval& interval) {
  Interval result = interval;
  result.days = checkedInt32(int64_t{result.days} + carryWhole(result.micros, kIntervalMicrosPerDay));
  agreeSigns(result.days, result.micros, kIntervalMicrosPerDay);
  return result;
}

Interval justifyDays(const Interval& interval) {
  Interval result = interval;
  result.months = checkedInt32(int64_t{result.months} + carryWhole(result.days, kIntervalDaysPerMonth));
  agreeSigns(result.months, result.days, kIntervalDaysPerMonth);
  return result;
}

Interval justifyInterval(const Interval& interval) {
  Interval result = interval;
  // Days first when they and the time agree: what keeps the day count from overflowing below.
  if ((result.days > 0 && result.micros > 0) || (result.days < 0 && result.micros < 0)) {
    result.months = checkedInt32(int64_t{result.months} + carryWhole(result.days, kIntervalDaysPerMonth));
  }
  int64_t days = int64_t{result.days} + carryWhole(result.micros, kIntervalMicrosPerDay);
  result.months = checkedInt32(int64_t{result.months} + carryWhole(days, int64_t{kIntervalDaysPerMonth}));
  result.days = static_cast<int32_t>(days);
  if (result.months > 0 && (result.days < 0 || (result.days == 0 && result.micros < 0))) {
    result.days += kIntervalDaysPerMonth;
    --result.months;
  } else if (result.months < 0 && (result.days > 0 || (result.days == 0 && result.micros > 0))) {
    result.days -= kIntervalDaysPerMonth;
    ++result.months;
  }
  agreeSigns(result.days, result.micros, kIntervalMicrosPerDay);
  return result;
}

Interval timestampDifference(int64_t left, int64_t right) {
  int64_t micros;
  if (__builtin_sub_overflow(left, right, &micros)) failOutOfRange();
  return justifyHours(Interval{0, 0, micros});
}

namespace {

/// A local timestamp taken apart as timestamp2tm does (the month 1-based, the year astronomical).
struct Fields {
  int64_t year;
  int64_t month;
  int64_t day;
  int64_t hour;
  int64_t minute;
  int64_t second;
  int64_t micros;
};

Fields fieldsOf(int64_t local) {
  int64_t days = local / kIntervalMicrosPerDay;
  int64_t time = local % kIntervalMicrosPerDay;
  if (time < 0) {
    time += kIntervalMicrosPerDay;
    --days;
  }
  const CivilDate date = civilFromDays(static_cast<int32_t>(days));
  return Fields{date.year,
                date.month,
                date.day,
                time / kMicrosPerHour,
                time / kMicrosPerMinute % 60,
                time / kMicrosPerSecond % 60,
                time % kMicrosPerSecond};
}

}  // namespace

Interval timestampAge(int64_t leftLocal, int64_t rightLocal) {
  const Fields first = fieldsOf(leftLocal);
  const Fields second = fieldsOf(rightLocal);
  const bool flip = leftLocal < rightLocal;
  const int64_t sign = flip ? -1 : 1;
  Fields tm{sign * (first.year - second.year),     sign * (first.month - second.month),
            sign * (first.day - second.day),       sign * (first.hour - second.hour),
            sign * (first.minute - second.minute), sign * (first.second - second.second),
            sign * (first.micros - second.micros)};
  while (tm.micros < 0) {
    tm.micros += kMicrosPerSecond;
    --tm.second;
  }
  while (tm.second < 0) {
    tm.second += 60;
    --tm.minute;
  }
  while (tm.minute < 0) {
    tm.minute += 60;
    --tm.hour;
  }
  while (tm.hour < 0) {
    tm.hour += 24;
    --tm.day;
  }
  const Fields& borrowFrom = flip ? first : second;
  while (tm.day < 0) {
    tm.day += daysInMonth(static_cast<int32_t>(borrowFrom.year), static_cast<uint32_t>(borrowFrom.month));
    --tm.month;
  }
  while (tm.month < 0) {
    tm.month += 12;
    --tm.year;
  }
  Interval result;
  result.months = checkedInt32(sign * (tm.year * 12 + tm.month));
  result.days = checkedInt32(sign * tm.day);
  result.micros = sign * (((tm.hour * 60 + tm.minute) * 60 + tm.second) * kMicrosPerSecond + tm.micros);
  return result;
}

}  // namespace shoal::engine
