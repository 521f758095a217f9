#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace date {
class time_zone;
}  // namespace date

namespace shoal::engine {

inline constexpr int64_t kMicrosPerSecond = 1'000'000;
inline constexpr int64_t kMicrosPerDay = 86'400'000'000;
/// PostgreSQL's 'infinity' and '-infinity' timestamps.
inline constexpr int64_t kTimestampInfinity = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kTimestampMinusInfinity = std::numeric_limits<int64_t>::min();

struct PosixZoneRule;

/// A session time zone as PostgreSQL 15 understands one: a tzdata zone (history from
/// /usr/share/zoneinfo, and the file's POSIX rule beyond its last transition), a POSIX TZ
/// string ('UTC+3', 'EST5EDT,M3.2.0,M11.1.0'), or a fixed offset in hours ('5', '-3.5').
/// Immutable once built, so any thread may use one.
class TimeZone {
 public:
  /// The value of the TimeZone setting, resolved as PostgreSQL's check_timezone does: a number
  /// is hours east of UTC ('5' shows as '<+05>-05'); otherwise a tzdata name, matched
  /// case-insensitively; otherwise a POSIX TZ string (west positive: '+05:30' is UTC-5:30).
  /// Fails with 22023 `invalid value for parameter "TimeZone": "..."`. The result lives as
  /// long as the process; thread-safe.
  static const TimeZone& named(std::string_view name);
  /// A zone named inside timestamptz text ('europe/berlin', 'utc+3'): a tzdata name or a POSIX
  /// string, but not a bare number. Returns nullptr when PostgreSQL would not recognize it.
  static const TimeZone* find(std::string_view name);
  static const TimeZone& utc();

  /// What SHOW TimeZone prints: tzdata's spelling ('America/New_York' for 'america/new_york').
  const std::string& name() const { return name_; }
  /// Offset from UTC in seconds, east positive, at a UTC instant.
  int32_t offsetAt(int64_t utcMicros) const;
  /// The abbreviation ('CET', 'LMT', '+0530') in force at a UTC instant.
  std::string abbreviationAt(int64_t utcMicros) const;
  /// The UTC instant of a wall-clock time. In a spring-forward gap the offset before the
  /// transition applies (New York 02:30 becomes 03:30 EDT); in a fall-back overlap the one
  /// after it (01:30 is taken as EST), as PostgreSQL's DetermineTimeZoneOffset does.
  int64_t localToUtc(int64_t localMicros) const;

  TimeZone(std::string name, const date::time_zone* tzdb, std::unique_ptr<PosixZoneRule> rule);
  ~TimeZone();
  TimeZone(const TimeZone&) = delete;
  TimeZone& operator=(const TimeZone&) = delete;

 private:
  /// A span of UTC seconds with one offset; `end` is exclusive, INT64_MAX when open-ended.
  struct Period {
    int64_t end;
    int32_t offset;
    std::string_view abbreviation;  // into history_ or rule_
  };
  Period periodAt(int64_t utcSeconds) const;

  /// One period of tzdata's history, from `begin` (inclusive) to the next one's.
  struct HistoryPeriod {
    int64_t begin;
    int64_t end;
    int32_t offset;
    std::string abbreviation;
  };

  std::string name_;
  const date::time_zone* tzdb_;          // tzdata history; nullptr for POSIX strings and offsets
  std::unique_ptr<PosixZoneRule> rule_;  // the whole zone, or tzdata's rule past its last transition
  // tzdb_'s periods read once, in order: a per-row lookup is a binary search, not a tzdata query that
  // allocates (date_trunc of a date converts through the session's zone several times per row).
  std::vector<HistoryPeriod> history_;
};

}  // namespace shoal::engine
