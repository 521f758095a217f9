#include "engine/expression/date_functions.h"

#include <algorithm>

#include "common/status.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/date.h"

namespace shoal::engine {
namespace {

// PostgreSQL's date range: 4713-11-24 BC to 5874897-12-31 AD (year 0 is 1 BC here).
constexpr CivilDate kMinDate{-4712, 11, 24};
constexpr CivilDate kMaxDate{5874897, 12, 31};
constexpr int64_t kMinDays = daysFromCivil(kMinDate);
constexpr int64_t kMaxDays = daysFromCivil(kMaxDate);
constexpr int64_t kMonthsPerYear = 12;

[[noreturn]] void failOutOfRange() {
  SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date out of range");
}

int32_t checkedDays(int64_t days) {
  if (days > kMaxDays || days < kMinDays) failOutOfRange();
  return static_cast<int32_t>(days);
}

int32_t addMonths(int32_t days, int32_t months) {
  if (isInfiniteDate(days)) return days;
  CivilDate date = civilFromDays(days);
  // Count months from year 0 so that one floor division splits year and month.
  int64_t monthIndex = int64_t{date.year} * kMonthsPerYear + (date.month - 1) + months;
  int64_t monthOfYear = ((monthIndex % kMonthsPerYear) + kMonthsPerYear) % kMonthsPerYear;
  int64_t year = (monthIndex - monthOfYear) / kMonthsPerYear;
  // Reject far-off years before daysFromCivil, whose int32 arithmetic they would overflow.
  if (year < kMinDate.year || year > kMaxDate.year) failOutOfRange();
  CivilDate target{static_cast<int32_t>(year), static_cast<uint32_t>(monthOfYear + 1), 0};
  target.day = std::min(date.day, daysInMonth(target.year, target.month));
  return checkedDays(daysFromCivil(target));
}

}  // namespace

Vector evaluateDateArithmetic(ScalarFunction function, const Vector& left, const Vector& right) {
  if (function == ScalarFunction::kDateDifference) {
    Vector out(LogicalType::integer(), left.size());
    binaryLoop<int32_t, int32_t, int32_t>(left, right, out, [](int32_t a, int32_t b) {
      if (isInfiniteDate(a) || isInfiniteDate(b)) {
        SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "cannot subtract infinite dates");
      }
      return a - b;
    });
    return out;
  }
  Vector out(LogicalType::date(), left.size());
  int sign = function == ScalarFunction::kDateAddDays ? 1 : -1;
  binaryLoop<int32_t, int32_t, int32_t>(left, right, out, [&](int32_t days, int32_t delta) {
    // An infinite date stays where it is, whatever is added.
    return isInfiniteDate(days) ? days : checkedDays(int64_t{days} + sign * int64_t{delta});
  });
  return out;
}

Vector evaluateDateAddMonths(const Vector& dates, const Vector& months) {
  Vector out(LogicalType::date(), dates.size());
  binaryLoop<int32_t, int32_t, int32_t>(dates, months, out, addMonths);
  return out;
}

Vector evaluateExtract(ScalarFunction field, const Vector& dates) {
  Vector out(LogicalType::bigInt(), dates.size());
  const int32_t* days = dates.data<int32_t>();
  int64_t* result = out.data<int64_t>();
  for (size_t row = 0; row < dates.size(); ++row) {
    if (dates.isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    if (isInfiniteDate(days[row])) {
      // PostgreSQL's year of an infinite date is an infinite numeric; its month and day are NULL.
      if (field == ScalarFunction::kExtractYear) {
        SHOAL_USER_FAIL(SqlState::kFeatureNotSupported,
                        "EXTRACT from an infinite date is infinite, which Shoal's numeric cannot hold yet");
      }
      out.setNull(row, true);
      continue;
    }
    const CivilDate date = civilFromDays(days[row]);
    switch (field) {
      case ScalarFunction::kExtractYear:
        // The calendar has no year 0: the civil year 0 is 1 BC.
        result[row] = date.year > 0 ? date.year : int64_t{date.year} - 1;
        break;
      case ScalarFunction::kExtractMonth:
        result[row] = date.month;
        break;
      case ScalarFunction::kExtractDay:
        result[row] = date.day;
        break;
      default:
        SHOAL_UNREACHABLE("EXTRACT of {}", scalarFunctionName(field));
    }
  }
  return out;
}

}  // namespace shoal::engine
