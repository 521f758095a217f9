#pragma once

#include "engine/vector/vector.h"

namespace shoal::engine {

class TimeZone;

/// A cast between two of date, timestamp and timestamptz, from a timestamp or an interval to time, or
/// from time to interval.
bool isDateTimeCast(const LogicalType& from, const LogicalType& to);

/// Converts as PostgreSQL 15 does: a timestamp or a date is a local time in `zone` when it meets a
/// timestamptz; infinity stays infinity; a timestamp outside the date range fails with 22008. A
/// timestamp's time is its local time of day (NULL for infinity), an interval's its time part wrapped
/// into one day.
void castDateTime(const Vector& input, Vector& out, const TimeZone& zone);

/// The date of a local time (days since 1970-01-01, rounding down before 1970 too); 22008 for infinity,
/// which Shoal's dates cannot hold.
int32_t dateOfTimestamp(int64_t localMicros);

/// The time of day of a local time, in [0, one day): before 1970 too.
int64_t timeOfDay(int64_t localMicros);

/// A timestamp rounded to `precision` (0..6) fractional digits, halves away from zero, as PostgreSQL
/// rounds timestamp(p) and CURRENT_TIMESTAMP(p); infinity stays.
int64_t roundTimestampToPrecision(int64_t micros, int precision);

}  // namespace shoal::engine
