#pragma once

#include <cstdint>
#include <span>

#include "engine/expression/scalar_function.h"
#include "engine/expression/timestamp_functions.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

class TimeZone;

// The functions of INTERVAL values (interval.h), as PostgreSQL 15 computes them. Each fails with 22008
// "interval out of range" when a result does not fit.

/// interval + interval, interval - interval (both intervals), interval * and / a double precision factor, and
/// -interval (`right` unused).
Vector evaluateIntervalArithmetic(ScalarFunction function, const Vector& left, const Vector* right);

/// timestamp - timestamp (or timestamptz - timestamptz): the microseconds apart, whole days carried into days.
/// Fails with 22008 "cannot subtract infinite timestamps".
Vector evaluateTimestampDifference(const Vector& left, const Vector& right);

/// age(left, right) of two timestamps or timestamptz values (taken apart in `zone`): years, months, days and
/// time apart, as timestamp_age. Fails with 22008 on an infinite timestamp.
Vector evaluateTimestampAge(const Vector& left, const Vector& right, const TimeZone& zone);

/// Which justify_* function kIntervalJustify is; the plan carries it as an integer, so keep the order.
enum class IntervalJustification : int32_t { kHours, kDays, kBoth };
Vector evaluateIntervalJustify(const Vector& intervals, IntervalJustification justification);

/// make_interval(years, months, weeks, days, hours, mins, secs): six integer vectors and a double one.
Vector evaluateMakeInterval(std::span<const Vector* const> arguments);

/// Whether EXTRACT and date_part take the field from an interval (microseconds .. millennium, epoch).
bool extractsFromInterval(TimestampField field);
/// Whether date_trunc truncates an interval at the field (microseconds .. millennium, not week).
bool truncatesInterval(TimestampField field);

/// The fields kIntervalComponent takes apart; the plan carries them as integers, so keep the order.
enum class IntervalComponent : int32_t { kMonths, kDays, kMicroseconds };
/// One field of each interval, as BIGINT: what sum(interval) sums.
Vector evaluateIntervalComponent(const Vector& intervals, IntervalComponent component);
/// The interval of summed fields (any integer or decimal type of scale 0); fails with 22008 when they do not fit.
Vector evaluateIntervalFromComponents(const Vector& months, const Vector& days, const Vector& micros);

/// EXTRACT(field FROM interval) as numeric(38,6): the exact value scaled by 10^6 (as kTimestampPart's), which
/// the binder casts to the field's own scale. `asDouble`: date_part's double precision instead, computed as
/// PostgreSQL computes it (its epoch adds the parts in doubles, so the last digit matches).
Vector evaluateIntervalPart(const Vector& intervals, TimestampField field, bool asDouble);

/// date_trunc(field, interval): the fields below `field` zeroed.
Vector evaluateIntervalTrunc(const Vector& intervals, TimestampField field);

}  // namespace shoal::engine
