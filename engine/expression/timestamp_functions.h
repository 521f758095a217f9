#pragma once

#include <optional>
#include <string_view>

#include "engine/vector/vector.h"

namespace shoal::engine {

class TimeZone;

// EXTRACT, date_part, date_trunc and interval arithmetic over timestamp and timestamptz, as in
// PostgreSQL 15. A timestamptz is taken apart in the session's TimeZone, which the plan carries.

/// The fields EXTRACT and date_trunc name; the plan carries them as integers, so keep the order.
enum class TimestampField : int32_t {
  kMicroseconds,
  kMilliseconds,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kQuarter,
  kYear,
  kDecade,
  kCentury,
  kMillennium,
  kDayOfWeek,     // dow: Sunday 0
  kIsoDayOfWeek,  // isodow: Monday 1 .. Sunday 7
  kDayOfYear,     // doy
  kIsoYear,
  kEpoch,
  kTimezone,  // timestamptz only: the offset in seconds east of UTC
  kTimezoneHour,
  kTimezoneMinute,
};

/// The field a (lower-case) unit names, with PostgreSQL's synonyms ('years', 'msec', 'dow'); nullopt when none.
std::optional<TimestampField> timestampFieldNamed(std::string_view unit);
/// The scale of EXTRACT's numeric result for the field (second: 6, milliseconds: 3, epoch: 6, else 0).
int extractScale(TimestampField field);
/// Whether date_trunc accepts the field (microseconds .. millennium).
bool truncates(TimestampField field);

/// EXTRACT(field FROM value) of a timestamp or timestamptz column, as numeric(20,6): the exact value
/// scaled by 10^6, which the binder casts to the field's own scale; or date_part's double precision when
/// `resultType` is that. `zone`: for timestamptz. The fields that grow with time are infinite for infinity:
/// an infinite double, which Shoal's numeric cannot hold (0A000); the others are NULL, as in PostgreSQL.
Vector evaluateTimestampPart(const Vector& values, TimestampField field, const TimeZone& zone,
                             const LogicalType& resultType);

/// date_trunc(field, value): the timestamp cut down to the start of its field (a Monday for week), in
/// local time for timestamptz.
Vector evaluateTimestampTrunc(const Vector& values, TimestampField field, const TimeZone& zone);

/// value + interval, as timestamp_pl_interval: months first (the day clamped to the month's end), then days,
/// both in local time for timestamptz, then the microseconds.
Vector evaluateTimestampAddInterval(const Vector& values, const Vector& intervals, const TimeZone& zone);

}  // namespace shoal::engine
