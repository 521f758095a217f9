#pragma once

#include "engine/vector/vector.h"

namespace shoal::engine {

// Dates and timestamps built from numbers, as PostgreSQL 15's make_date, make_timestamp, make_timestamptz and
// to_timestamp(double precision) build them. Negative years are BC; there is no year 0.

/// make_date(year, month, day INTEGER). Fails with 22008 "date field value out of range: 2023-02-29" or "date
/// out of range: ...".
Vector evaluateMakeDate(const Vector& years, const Vector& months, const Vector& days);

/// make_timestamp(year, month, day, hour, min INTEGER, sec DOUBLE PRECISION), or make_timestamptz with the local
/// time read in the zone each row's `zones` names (a TEXT vector) when `zones` is given. Hour 24 is allowed with
/// nothing after it, and sec up to 60. Fails with 22008 on a field or result out of range.
Vector evaluateMakeTimestamp(std::span<const Vector* const> parts, const Vector* zones);

/// make_time(hour, min INTEGER, sec DOUBLE PRECISION) -> time; 24:00:00 is the largest. Fails with 22008 "time
/// field value out of range: 25:00:00".
Vector evaluateMakeTime(const Vector& hours, const Vector& minutes, const Vector& seconds);

/// to_timestamp(seconds since 1970 DOUBLE PRECISION) -> timestamptz; infinities stay infinite. Fails with 22008
/// for NaN or out of range.
Vector evaluateToTimestamp(const Vector& seconds);

}  // namespace shoal::engine
