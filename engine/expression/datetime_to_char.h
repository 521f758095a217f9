#pragma once

#include "engine/types/time_zone.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// to_char(timestamp or timestamptz, format) -> TEXT, with PostgreSQL 15's template patterns
/// (formatting.c): YYYY YYY YY Y Y,YYY IYYY IYY IY I, MM MONTH Month month MON Mon mon, DD DDD D ID,
/// DAY Day day DY Dy dy, W WW IW Q CC J, HH HH12 HH24 MI SS MS US SSSS, AM PM A.M. P.M. (and lower case),
/// TZ tz OF TZH TZM; the FM prefix (no padding), the TH/th suffix (ordinal), "quoted text" and \" literal.
/// Anything else is copied. timestamptz values are shown in `zone` (the session's TimeZone); a plain
/// timestamp has no zone: TZ prints nothing and OF +00. NULL for an infinite value or an empty format.
/// An interval formats its fields as PostgreSQL's interval_to_char does (signed, hours past 24); the fields
/// that name calendar dates fail with 22007, the ISO and Julian fields with 0A000.
Vector evaluateDateTimeToChar(const Vector& values, const Vector& formats, const TimeZone& zone);

/// TH/th: the ordinal suffix of a number, as PostgreSQL's get_th ("st", "nd", "rd", "th"; 11th to 13th).
std::string ordinalSuffix(int64_t number, bool upper);

}  // namespace shoal::engine
