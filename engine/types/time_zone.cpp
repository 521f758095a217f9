#include "engine/types/time_zone.h"

#include <date/tz.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "common/status.h"
#include "engine/types/date.h"

namespace shoal::engine {

/// When a transition of a POSIX rule happens: 'Mm.w.d' (day d of week w of month m, week 5 being
/// the last), 'Jn' (day 1..365, never counting February 29) or 'n' (day 0..365), at `time`
/// seconds after local midnight.
struct PosixTransitionDate {
  char kind = 'M';
  int month = 0;
  int week = 0;
  int weekday = 0;
  int day = 0;
  int32_t time = 2 * 3600;
};

/// A POSIX TZ string such as 'CET-1CEST,M3.5.0,M10.5.0/3', with offsets stored east positive.
struct PosixZoneRule {
  std::string stdAbbreviation;
  std::string dstAbbreviation;
  int32_t stdOffset = 0;
  int32_t dstOffset = 0;
  bool hasDst = false;
  PosixTransitionDate start;
  PosixTransitionDate end;
};

namespace {

// tzdata has no transition this late; a later `end` means "the last period, open-ended".
constexpr int64_t kFarFutureSeconds = 253402300800;  // 10000-01-01
constexpr std::string_view kZoneInfoDirectory = "/usr/share/zoneinfo/";
constexpr int64_t kSecondsPerDay = 86400;

int64_t floorDivide(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  return quotient - ((value % divisor != 0) && ((value < 0) != (divisor < 0)) ? 1 : 0);
}

std::string toLower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string toUpper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

// --- POSIX TZ strings ---

class PosixParser {
 public:
  explicit PosixParser(std::string_view text) : text_(text) {}

  std::optional<PosixZoneRule> parse() {
    PosixZoneRule rule;
    int32_t westOffset = 0;
    // PostgreSQL's tzparse accepts an empty standard name ('+05:30'), but never a missing offset.
    if (!readName(rule.stdAbbreviation) || !readClock(westOffset, 167)) return std::nullopt;
    rule.stdOffset = -westOffset;
    if (atEnd()) return rule;
    if (!readName(rule.dstAbbreviation) || rule.dstAbbreviation.empty()) return std::nullopt;
    rule.hasDst = true;
    rule.dstOffset = rule.stdOffset + 3600;
    if (!atEnd() && text_[pos_] != ',') {
      if (!readClock(westOffset, 167)) return std::nullopt;
      rule.dstOffset = -westOffset;
    }
    if (atEnd()) {
      // PostgreSQL falls back to its 'posixrules' zone, America/New_York: the US rules.
      rule.start = PosixTransitionDate{'M', 3, 2, 0, 0, 2 * 3600};
      rule.end = PosixTransitionDate{'M', 11, 1, 0, 0, 2 * 3600};
      return rule;
    }
    if (!consume(',') || !readDate(rule.start) || !consume(',') || !readDate(rule.end) || !atEnd()) {
      return std::nullopt;
    }
    return rule;
  }

 private:
  bool atEnd() const { return pos_ >= text_.size(); }
  bool consume(char c) {
    if (atEnd() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  bool readName(std::string& out) {
    if (consume('<')) {
      size_t close = text_.find('>', pos_);
      if (close == std::string_view::npos) return false;
      out = std::string(text_.substr(pos_, close - pos_));
      pos_ = close + 1;
      return true;
    }
    while (!atEnd() && std::isalpha(static_cast<unsigned char>(text_[pos_]))) out += text_[pos_++];
    return true;
  }

  bool readNumber(int& value, int maxDigits) {
    size_t begin = pos_;
    value = 0;
    while (!atEnd() && pos_ - begin < static_cast<size_t>(maxDigits) &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      value = value * 10 + (text_[pos_++] - '0');
    }
    return pos_ > begin;
  }

  /// [+-]h[h][:mm[:ss]], as seconds.
  bool readClock(int32_t& seconds, int maxHours) {
    bool negative = false;
    if (consume('-')) {
      negative = true;
    } else {
      consume('+');
    }
    int hours = 0;
    int minutes = 0;
    int secs = 0;
    if (!readNumber(hours, 3) || hours > maxHours) return false;
    if (consume(':') && (!readNumber(minutes, 2) || minutes > 59)) return false;
    if (consume(':') && (!readNumber(secs, 2) || secs > 59)) return false;
    seconds = (hours * 3600 + minutes * 60 + secs) * (negative ? -1 : 1);
    return true;
  }

  bool readDate(PosixTransitionDate& date) {
    if (consume('M')) {
      date.kind = 'M';
      if (!readNumber(date.month, 2) || !consume('.') || !readNumber(date.week, 1) || !consume('.') ||
          !readNumber(date.weekday, 1) || date.month < 1 || date.month > 12 || date.week < 1 || date.week > 5 ||
          date.weekday > 6) {
        return false;
      }
    } else {
      date.kind = consume('J') ? 'J' : 'N';
      if (!readNumber(date.day, 3) || date.day > 365 || (date.kind == 'J' && date.day < 1)) return false;
    }
    return !consume('/') || readClock(date.time, 167);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

/// Days since 1970-01-01 of a transition date in `year`.
int64_t transitionDay(const PosixTransitionDate& date, int32_t year) {
  int64_t january1 = daysFromCivil(CivilDate{year, 1, 1});
  if (date.kind == 'J') return january1 + date.day - 1 + (isLeapYear(year) && date.day >= 60 ? 1 : 0);
  if (date.kind == 'N') return january1 + date.day;
  int64_t first = daysFromCivil(CivilDate{year, static_cast<uint32_t>(date.month), 1});
  int64_t firstWeekday = ((first + 4) % 7 + 7) % 7;  // 1970-01-01 was a Thursday
  int64_t day = first + (date.weekday - firstWeekday + 7) % 7 + (date.week - 1) * 7;
  while (day >= first + daysInMonth(year, static_cast<uint32_t>(date.month))) day -= 7;
  return day;
}

// --- tzdata ---

/// tzdata's zone names by their lowercase spelling: PostgreSQL matches names case-insensitively.
const std::unordered_map<std::string, std::string>& tzdataNames() {
  static const std::unordered_map<std::string, std::string> names = [] {
    std::unordered_map<std::string, std::string> result;
    for (const auto& zone : date::get_tzdb().zones) result.emplace(toLower(zone.name()), zone.name());
    return result;
  }();
  return names;
}

/// The POSIX rule at the end of a TZif file. The date library stops at the file's last
/// transition (2037); PostgreSQL goes on with this rule, so New York keeps DST in 2100.
std::unique_ptr<PosixZoneRule> readFooterRule(const std::string& name) {
  std::ifstream file(std::string(kZoneInfoDirectory) + name, std::ios::binary);
  std::stringstream contents;
  contents << file.rdbuf();
  std::string bytes = contents.str();
  if (bytes.size() < 2 || bytes.compare(0, 4, "TZif") != 0 || bytes.back() != '\n') return nullptr;
  size_t start = bytes.rfind('\n', bytes.size() - 2);
  if (start == std::string::npos) return nullptr;
  std::optional<PosixZoneRule> rule =
      PosixParser(std::string_view(bytes).substr(start + 1, bytes.size() - start - 2)).parse();
  return rule ? std::make_unique<PosixZoneRule>(*rule) : nullptr;
}

std::unique_ptr<TimeZone> makeZone(std::string_view name) {
  if (auto it = tzdataNames().find(toLower(name)); it != tzdataNames().end()) {
    try {
      const date::time_zone* zone = date::locate_zone(it->second);
      return std::make_unique<TimeZone>(it->second, zone, readFooterRule(it->second));
    } catch (const std::exception&) {
      return nullptr;  // listed but unreadable: PostgreSQL would not recognize it either
    }
  }
  std::string upper = toUpper(name);
  std::optional<PosixZoneRule> rule = PosixParser(upper).parse();
  if (!rule) return nullptr;
  return std::make_unique<TimeZone>(upper, nullptr, std::make_unique<PosixZoneRule>(*rule));
}

/// A SET TIME ZONE value that strtod reads whole is hours east of UTC ('-3.5').
std::unique_ptr<TimeZone> makeOffsetZone(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\n\r\f\v");
  if (begin == std::string_view::npos) return nullptr;
  text.remove_prefix(begin);
  if (text.front() == '+') text.remove_prefix(1);
  double hours = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), hours);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(hours) || std::fabs(hours) >= 168) {
    return nullptr;
  }
  auto rule = std::make_unique<PosixZoneRule>();
  rule->stdOffset = static_cast<int32_t>(hours * 3600);
  // PostgreSQL names it by its POSIX spelling: '<+05>-05', '<-03:30>+03:30'.
  int32_t magnitude = std::abs(rule->stdOffset);
  std::string digits = fmt::format("{:02}", magnitude / 3600);
  if (magnitude % 3600 != 0) digits += fmt::format(":{:02}", magnitude % 3600 / 60);
  if (magnitude % 60 != 0) digits += fmt::format(":{:02}", magnitude % 60);
  bool west = rule->stdOffset < 0;
  rule->stdAbbreviation = (west ? "-" : "+") + digits;
  std::string name = fmt::format("<{}{}>{}{}", west ? '-' : '+', digits, west ? '+' : '-', digits);
  return std::make_unique<TimeZone>(std::move(name), nullptr, std::move(rule));
}

/// Zones by the text they were asked for, prefixed by the kind of lookup; never evicted, so
/// references stay valid for the process.
const TimeZone* cachedZone(std::string_view kind, std::string_view text) {
  static std::mutex mutex;
  static std::unordered_map<std::string, std::unique_ptr<TimeZone>> zones;
  std::string key = std::string(kind) + std::string(text);
  std::lock_guard lock(mutex);
  auto it = zones.find(key);
  if (it == zones.end()) {
    std::unique_ptr<TimeZone> zone = kind == "setting:" ? makeOffsetZone(text) : nullptr;
    if (!zone) zone = makeZone(text);
    it = zones.emplace(std::move(key), std::move(zone)).first;
  }
  return it->second.get();
}

}  // namespace

TimeZone::TimeZone(std::string name, const date::time_zone* tzdb, std::unique_ptr<PosixZoneRule> rule)
    : name_(std::move(name)), tzdb_(tzdb), rule_(std::move(rule)) {
  if (tzdb_ == nullptr) return;
  // From before the earliest timestamp (4714 BC) to the open-ended last period.
  int64_t at = -300'000'000'000;
  while (true) {
    date::sys_info info = tzdb_->get_info(date::sys_seconds{std::chrono::seconds{at}});
    int64_t end = info.end.time_since_epoch().count();
    history_.push_back({history_.empty() ? std::numeric_limits<int64_t>::min() : at, end,
                        static_cast<int32_t>(info.offset.count()), info.abbrev});
    if (end >= kFarFutureSeconds || end <= at) break;
    at = end;
  }
}

TimeZone::~TimeZone() = default;

const TimeZone& TimeZone::named(std::string_view name) {
  const TimeZone* zone = cachedZone("setting:", name);
  if (zone == nullptr) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid value for parameter \"TimeZone\": \"{}\"", name);
  }
  return *zone;
}

const TimeZone* TimeZone::find(std::string_view name) {
  return cachedZone("text:", name);
}

const TimeZone& TimeZone::utc() {
  static const TimeZone zone = [] {
    auto rule = std::make_unique<PosixZoneRule>();
    rule->stdAbbreviation = "UTC";
    return TimeZone("UTC", nullptr, std::move(rule));
  }();
  return zone;
}

TimeZone::Period TimeZone::periodAt(int64_t utcSeconds) const {
  if (tzdb_ != nullptr) {
    auto after = std::upper_bound(history_.begin(), history_.end(), utcSeconds,
                                  [](int64_t seconds, const HistoryPeriod& period) { return seconds < period.begin; });
    const HistoryPeriod& period = *(after - 1);  // the first period begins at INT64_MIN
    bool lastPeriod = period.end >= kFarFutureSeconds;
    if (!lastPeriod || rule_ == nullptr || !rule_->hasDst) {
      return Period{lastPeriod ? std::numeric_limits<int64_t>::max() : period.end, period.offset, period.abbreviation};
    }
  }
  const PosixZoneRule& rule = *rule_;
  if (!rule.hasDst) return Period{std::numeric_limits<int64_t>::max(), rule.stdOffset, rule.stdAbbreviation};
  // The transitions of the years around this one, as UTC seconds with the DST state they start.
  int32_t year = civilFromDays(static_cast<int32_t>(floorDivide(utcSeconds + rule.stdOffset, kSecondsPerDay))).year;
  std::array<std::pair<int64_t, bool>, 6> transitions;
  for (int i = 0; i < 3; ++i) {
    int32_t y = year - 1 + i;
    transitions[2 * i] = {transitionDay(rule.start, y) * kSecondsPerDay + rule.start.time - rule.stdOffset, true};
    transitions[2 * i + 1] = {transitionDay(rule.end, y) * kSecondsPerDay + rule.end.time - rule.dstOffset, false};
  }
  std::sort(transitions.begin(), transitions.end());
  bool dst = !transitions[0].second;
  int64_t end = std::numeric_limits<int64_t>::max();
  for (const auto& [at, startsDst] : transitions) {
    if (at > utcSeconds) {
      end = at;
      break;
    }
    dst = startsDst;
  }
  return dst ? Period{end, rule.dstOffset, rule.dstAbbreviation} : Period{end, rule.stdOffset, rule.stdAbbreviation};
}

int32_t TimeZone::offsetAt(int64_t utcMicros) const {
  return periodAt(floorDivide(utcMicros, kMicrosPerSecond)).offset;
}

std::string TimeZone::abbreviationAt(int64_t utcMicros) const {
  return std::string(periodAt(floorDivide(utcMicros, kMicrosPerSecond)).abbreviation);
}

int64_t TimeZone::localToUtc(int64_t localMicros) const {
  if (localMicros == kTimestampInfinity || localMicros == kTimestampMinusInfinity) return localMicros;
  // PostgreSQL's DetermineTimeZoneOffset: find the first transition after (local time - 1 day),
  // then see on which side of it each candidate offset puts the instant.
  int64_t local = floorDivide(localMicros, kMicrosPerSecond);
  Period before = periodAt(local - kSecondsPerDay);
  int32_t offset = before.offset;
  if (before.end != std::numeric_limits<int64_t>::max()) {
    int32_t afterOffset = periodAt(before.end).offset;
    int64_t beforeTime = local - before.offset;
    int64_t afterTime = local - afterOffset;
    if (beforeTime >= before.end && afterTime >= before.end) {
      offset = afterOffset;
    } else if (!(beforeTime < before.end && afterTime < before.end)) {
      // A gap (spring forward) keeps the offset before; an overlap (fall back) takes the one after.
      offset = beforeTime > afterTime ? before.offset : afterOffset;
    }
  }
  return localMicros - int64_t{offset} * kMicrosPerSecond;
}

}  // namespace shoal::engine
