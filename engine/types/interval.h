#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace shoal::engine {

// INTERVAL, as PostgreSQL 15 keeps it: months, days and microseconds, three fields that do not convert into
// each other (a month is not always 30 days, a day not always 24 hours across a DST change). A vector holds
// an interval packed into one int128 (physical type kInt128); comparisons, hashes and keys use its span
// instead (intervalSpan), so that '1 mon' = '30 days' and '25 hours' > '1 day', as in PostgreSQL.

struct Interval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t micros = 0;

  bool operator==(const Interval&) const = default;
};

using int128_t = __int128;

/// The packed form: months in bits 96..127, days in 64..95, microseconds in 0..63.
inline int128_t packInterval(const Interval& interval) {
  using u128 = unsigned __int128;
  u128 bits = (u128{static_cast<uint32_t>(interval.months)} << 96) |
              (u128{static_cast<uint32_t>(interval.days)} << 64) | u128{static_cast<uint64_t>(interval.micros)};
  return static_cast<int128_t>(bits);
}

inline Interval unpackInterval(int128_t packed) {
  const auto bits = static_cast<unsigned __int128>(packed);
  return Interval{static_cast<int32_t>(static_cast<uint32_t>(bits >> 96)),
                  static_cast<int32_t>(static_cast<uint32_t>(bits >> 64)), static_cast<int64_t>(bits)};
}

inline constexpr int64_t kIntervalMicrosPerDay = 86'400'000'000;
inline constexpr int32_t kIntervalDaysPerMonth = 30;

/// PostgreSQL's interval_cmp_value: the length in microseconds, counting a month as 30 days and a day as
/// 24 hours. What intervals are compared, sorted, hashed and grouped by.
inline int128_t intervalSpan(const Interval& interval) {
  return (int128_t{interval.months} * kIntervalDaysPerMonth + interval.days) * kIntervalMicrosPerDay + interval.micros;
}
inline int128_t intervalSpan(int128_t packed) {
  return intervalSpan(unpackInterval(packed));
}

/// PostgreSQL's INTERVAL_MASK bits: the fields of `interval '3' month` or `interval '1:02' minute to second`.
namespace interval_fields {
inline constexpr int kMonth = 1 << 1;
inline constexpr int kYear = 1 << 2;
inline constexpr int kDay = 1 << 3;
inline constexpr int kHour = 1 << 10;
inline constexpr int kMinute = 1 << 11;
inline constexpr int kSecond = 1 << 12;
inline constexpr int kFullRange = 0x7FFF;  // no fields named
inline constexpr int kFullPrecision = 0xFFFF;
}  // namespace interval_fields

/// interval_in with IntervalStyle postgres: '1 year 2 mons', '3 days 04:05:06.5', '-1 days +02:00', '1.5 hours',
/// '@ 1 day ago', '1-2' (years-months), '1 2:03:04' (days and a time) and ISO 8601's 'P1Y2M3DT4H5M6S'. A bare
/// number counts the smallest of `fields` (a mask of interval_fields; seconds when none), and `fields` keeps
/// only those fields (interval '1 day 02:00' day is 1 day); `precision` (0..6) rounds the seconds. Fails with
/// 22007 (bad syntax), or 22008 when a field or the result is out of range.
Interval parseInterval(std::string_view text, int fields = interval_fields::kFullRange,
                       int precision = interval_fields::kFullPrecision);

/// interval_out with IntervalStyle postgres: "1 year 2 mons 3 days 04:05:06.5", "-1 days +02:00:00", "00:00:00".
void appendIntervalText(const Interval& interval, std::string& out);
std::string intervalText(const Interval& interval);

// Arithmetic, as PostgreSQL's interval functions; each fails with 22008 "interval out of range" on overflow.
Interval addIntervals(const Interval& left, const Interval& right);
Interval subtractIntervals(const Interval& left, const Interval& right);
Interval negateInterval(const Interval& interval);
/// interval_mul: fractions of months and days cascade down into days and microseconds.
Interval multiplyInterval(const Interval& interval, double factor);
/// interval_div: fails with 22012 when `divisor` is 0.
Interval divideInterval(const Interval& interval, double divisor);

/// justify_hours: whole 24-hour periods into days, the signs made to agree.
Interval justifyHours(const Interval& interval);
/// justify_days: whole 30-day periods into months, the signs made to agree.
Interval justifyDays(const Interval& interval);
/// justify_interval: both, as PostgreSQL 15 does.
Interval justifyInterval(const Interval& interval);

/// The difference of two finite timestamps (timestamp_mi): microseconds, whole days carried out by
/// justify_hours. Fails with 22008 when it does not fit.
Interval timestampDifference(int64_t left, int64_t right);

/// age(left, right) of two local (or UTC) timestamps: the symbolic difference in years, months, days and time,
/// each borrowing from the next larger as timestamp_age does.
Interval timestampAge(int64_t leftLocal, int64_t rightLocal);

}  // namespace shoal::engine
