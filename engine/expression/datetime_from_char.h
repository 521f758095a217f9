#pragma once

#include "engine/types/time_zone.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// to_date(text, format) -> DATE and to_timestamp(text, format) -> TIMESTAMPTZ (the local time in `zone`, the
/// session's TimeZone), reading the text as PostgreSQL 15's formatting.c does outside FX mode: a format space
/// or separator matches one input space or separator or none, other format characters skip one input
/// character, numeric fields read their width of digits before another digit field and all their digits
/// before anything else (or under FM), names match without regard to case, the input may end early (missing
/// fields take their defaults) and text after the last field is ignored. Fields: YYYY YYY YY Y, MM, Month
/// Mon, DD, DDD, D, Day Dy (matched, ignored), HH HH12 HH24, MI, SS, MS, US, AM PM A.M. P.M., AD BC A.D.
/// B.C., FX, FM and TH (each case as PostgreSQL spells it). ISO weeks, Q, J, RM, SSSS, TZ and the FF fields
/// give 0A000. Fails with 22007 for text that does not match, 22008 for a field or result out of range.
Vector evaluateDateTimeFromChar(const Vector& inputs, const Vector& formats, bool toDate, const TimeZone& zone);

}  // namespace shoal::engine
