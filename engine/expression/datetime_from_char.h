#pragma once

#include "engine/types/time_zone.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// to_date(text, format) -> DATE and to_timestamp(text, format) -> TIMESTAMPTZ (the local time in `zone`, the
/// session's TimeZone), reading the text as PostgreSQL 15's formatting.c does outside FX mode: a format space
/// or separator matches one input space or separator or none, other format characters skip one input
/// character, numeric fields read their width of digits before another digit field and all their digits
/// before anything else (or under FM), names match without regard to case, the input may end early (missing
/// fields take their defaults) and text after the last field is ignored. Every field PostgreSQL 15 reads
/// (datetime_format_template.h), combined as its do_to_timestamp does; TZH/TZM give the offset from UTC in
/// place of `zone`. TZ and OF fail with 0A000 (to_char only). Fails with 22007 for text that does not match
/// or mixes Gregorian and ISO week fields, 22008 for a field or result out of range, 22009 for an offset.
Vector evaluateDateTimeFromChar(const Vector& inputs, const Vector& formats, bool toDate, const TimeZone& zone);

}  // namespace shoal::engine
