#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/types/logical_type.h"
#include "engine/types/time_zone.h"

namespace shoal::engine {

// TIMESTAMP, TIMESTAMPTZ and TIME text, as PostgreSQL 15 reads and prints it with DateStyle ISO.
// A timestamp is microseconds since 1970-01-01 00:00:00 (UTC for TIMESTAMPTZ); 'infinity' and
// '-infinity' are kTimestampInfinity and kTimestampMinusInfinity.

/// The first valid timestamp, 4714-11-24 00:00:00 BC (Julian day 0), as in PostgreSQL.
inline constexpr int64_t kMinTimestamp = -210'866'803'200'000'000;
/// One past the last valid timestamp, 294247-01-01 00:00:00. PostgreSQL goes on to 294276 AD,
/// but its epoch is 2000: with ours (1970) those last 30 years do not fit in an int64.
inline constexpr int64_t kEndTimestamp = 9'223'371'244'800'000'000;

/// Returns whether a finite timestamp is in range (infinities are not).
inline bool isValidTimestamp(int64_t micros) {
  return micros >= kMinTimestamp && micros < kEndTimestamp;
}

/// TIMESTAMP input, as timestamp_in: 'YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]' (or 'T' between them),
/// 'YYYYMMDD[ HHMMSS]', 'M-D-Y', trailing BC/AD and AM/PM, 'infinity', '-infinity', 'epoch',
/// 'allballs'; a time zone in the text is checked, then ignored. Fractions round to microseconds
/// as PostgreSQL does (rint of the double). 'now', 'today', 'tomorrow' and 'yesterday' read the
/// date in `session` at `nowUtcMicros`, and fail with 0A000 when it is absent. Fails with 22007
/// (bad syntax), 22008 (field or timestamp out of range), 22009 (zone offset beyond 15 hours) or
/// 22023 (unknown zone name containing '/').
int64_t parseTimestamp(std::string_view text, std::optional<int64_t> nowUtcMicros = std::nullopt,
                       const TimeZone& session = TimeZone::utc());

/// TIMESTAMPTZ input: the same text, whose zone (+HH, +HH:MM, +HHMM, Z, UTC, 'Europe/Berlin',
/// PostgreSQL's default abbreviations with fixed offsets such as EST, PST, CET) decides the
/// instant; without one the time is local to `session`. 'today' is midnight in `session`.
int64_t parseTimestampTz(std::string_view text, const TimeZone& session,
                         std::optional<int64_t> nowUtcMicros = std::nullopt);

/// TIME input, as time_in: 'HH:MM[:SS[.ffffff]]', 'HHMMSS', AM/PM, 'allballs', or a timestamp's text whose
/// date (checked) and zone are ignored. 'now' is the local time in `session` at `nowUtcMicros`. 24:00:00 is
/// the largest value. Fails with 22007 or 22008 as parseTimestamp does.
int64_t parseTime(std::string_view text, std::optional<int64_t> nowUtcMicros = std::nullopt,
                  const TimeZone& session = TimeZone::utc());

/// '10:11:12', '10:11:12.5' (no trailing zeros), '24:00:00'.
void appendTimeText(int64_t micros, std::string& out);

/// A timestamp, timestamptz or time rounded to `type`'s fractional digits (timestamp(0) and the like), as
/// PostgreSQL's typmod rounds it: timestamps half away from zero around PostgreSQL's epoch, 2000-01-01
/// (infinities stay), times half up (23:59:59.9 as time(0) is 24:00:00). Unchanged for 6 digits.
int64_t roundToFractionalDigits(int64_t micros, const LogicalType& type);

/// '2024-01-05 10:11:12', '...:12.5' (no trailing zeros), '0044-03-15 12:00:00 BC',
/// '12345-06-07 08:09:10', 'infinity', '-infinity'.
void appendTimestampText(int64_t micros, std::string& out);

/// The local time in `zone` followed by its offset: '2024-01-05 10:11:12+01', '+05:30', or
/// '-04:56:02' for a local mean time; ' BC' comes last.
void appendTimestampTzText(int64_t utcMicros, const TimeZone& zone, std::string& out);

}  // namespace shoal::engine
