#pragma once

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

// DATE arithmetic and fields. Results outside PostgreSQL's date range
// (4713-11-24 BC to 5874897-12-31 AD) fail with 22008 "date out of range".

/// date + integer and date - integer (days, giving DATE), date - date (days, giving INTEGER).
Vector evaluateDateArithmetic(ScalarFunction function, const Vector& left, const Vector& right);

/// date + n months (n may be negative): PostgreSQL's date + interval 'n months',
/// the day clamped to the last day of the target month (2024-01-31 + 1 month is 2024-02-29).
Vector evaluateDateAddMonths(const Vector& dates, const Vector& months);

/// EXTRACT(YEAR | MONTH | DAY FROM date) as BIGINT. Years BC are negative and
/// there is no year 0 (1 BC is -1), as PostgreSQL reports them.
Vector evaluateExtract(ScalarFunction field, const Vector& dates);

}  // namespace shoal::engine
