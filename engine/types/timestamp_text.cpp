#include "engine/types/timestamp_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "common/status.h"
#include "engine/types/date.h"

namespace shoal::engine {
namespace {

static_assert(kMinTimestamp == int64_t{daysFromCivil(CivilDate{-4713, 11, 24})} * kMicrosPerDay);
static_assert(kEndTimestamp == int64_t{daysFromCivil(CivilDate{294247, 1, 1})} * kMicrosPerDay);

int64_t floorDivide(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  return quotient - ((value % divisor != 0) && ((value < 0) != (divisor < 0)) ? 1 : 0);
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

bool isAlpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0;
}

/// The fixed-offset abbreviations of PostgreSQL's 'Default' timezone_abbreviations set that
/// clients commonly send (seconds east of UTC). Abbreviations whose meaning changed over time
/// (MSK, SGT) are left out.
struct Abbreviation {
  std::string_view name;
  int32_t offset;
};
constexpr Abbreviation kAbbreviations[] = {
    {"acdt", 37800},  {"acst", 34200}, {"adt", -10800}, {"aedt", 39600}, {"aest", 36000}, {"akdt", -28800},
    {"akst", -32400}, {"ast", -14400}, {"awst", 28800}, {"bst", 3600},   {"cdt", -18000}, {"cest", 7200},
    {"cet", 3600},    {"cst", -21600}, {"eat", 10800},  {"edt", -14400}, {"eest", 10800}, {"eet", 7200},
    {"est", -18000},  {"gmt", 0},      {"hkt", 28800},  {"hst", -36000}, {"ict", 25200},  {"ist", 7200},
    {"jst", 32400},   {"kst", 32400},  {"mdt", -21600}, {"mest", 7200},  {"met", 3600},   {"mst", -25200},
    {"ndt", -9000},   {"nst", -12600}, {"nzdt", 46800}, {"nzst", 43200}, {"pdt", -25200}, {"pkt", 18000},
    {"pst", -28800},  {"sast", 7200},  {"uct", 0},      {"ut", 0},       {"utc", 0},      {"wat", 3600},
    {"wet", 0},       {"z", 0},        {"zulu", 0},
};

/// Words PostgreSQL's tokenizer knows as date/time keywords: one of these followed by a digit
/// or '+' is not the start of a zone name ('t10:00' is the ISO 'T').
constexpr std::string_view kKeywords[] = {"ad",  "allballs", "am", "bc",    "epoch",    "infinity",
                                          "now", "pm",       "t",  "today", "tomorrow", "yesterday"};

enum class Special { kNone, kInfinity, kMinusInfinity, kEpoch, kNow };

/// The fields of a timestamp's text, tokenized and checked as PostgreSQL's ParseDateTime and
/// DecodeDateTime do, for the ISO forms.
class TimestampParser {
 public:
  TimestampParser(std::string_view original, std::string_view typeName) : original_(original), typeName_(typeName) {}

  /// `timeOnly`: TIME's input, where the date is optional (and then ignored) and 'HHMMSS' stands alone.
  void parse(bool timeOnly = false) {
    timeOnly_ = timeOnly;
    std::string_view text = original_;
    size_t first = text.find_first_not_of(" \t\n\r\f\v");
    text = first == std::string_view::npos ? std::string_view() : text.substr(first);
    text = text.substr(0, text.find_last_not_of(" \t\n\r\f\v") + 1);
    text_.resize(text.size());
    std::transform(text.begin(), text.end(), text_.begin(), [](unsigned char c) { return std::tolower(c); });
    if (text_ == "infinity") special_ = Special::kInfinity;
    if (text_ == "-infinity") special_ = Special::kMinusInfinity;
    if (text_ == "epoch") special_ = Special::kEpoch;
    if (text_ == "now") special_ = Special::kNow;
    if (special_ != Special::kNone) return;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++pos_;
      } else if (isDigit(c)) {
        readNumericField();
      } else if ((c == '+' || c == '-') && pos_ + 1 < text_.size() && isDigit(text_[pos_ + 1])) {
        readOffset();
      } else if (isAlpha(c)) {
        readWord();
      } else {
        failSyntax();
      }
    }
    if (timeOnly_ ? !hasTime_ : !hasDate_ && dayShift_ == kNoDayShift) failSyntax();
  }

  /// The local time the fields name, without a zone; `today` is the date of 'today' and kin.
  __int128 localMicros(std::optional<int32_t> today) const {
    if (dayShift_ != kNoDayShift && !today) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "\"{}\" needs the statement's time, which is not known here",
                      original_);
    }
    int32_t days = 0;
    if (hasDate_) {
      if (year_ < 1) failFieldOverflow();
      // No timestamp reaches 300000 AD or BC (294276 AD, 4713 BC are the ends); the day count of a larger year
      // would overflow, so it is out of range before it is counted.
      if (year_ > 300000) failRange();
      int32_t year = beforeChrist_ ? static_cast<int32_t>(1 - year_) : static_cast<int32_t>(year_);
      if (month_ < 1 || month_ > 12 || day_ < 1 || day_ > static_cast<int64_t>(daysInMonth(year, month_))) {
        failFieldOverflow();
      }
      days = daysFromCivil(CivilDate{year, static_cast<uint32_t>(month_), static_cast<uint32_t>(day_)});
    } else {
      days = *today + dayShift_;
    }
    return static_cast<__int128>(days) * kMicrosPerDay + timeOfDayMicros();
  }

  /// Microseconds since midnight: 23:59:60 and 24:00:00 are the next midnight; nothing may go past it.
  int64_t timeOfDayMicros() const {
    int64_t hour = hour_;
    if (meridiem_ != 0) {
      if (hour > 12) failFieldOverflow();
      hour = hour % 12 + (meridiem_ == 2 ? 12 : 0);
    }
    int64_t timeMicros = ((hour * 60 + minute_) * 60 + second_) * kMicrosPerSecond + fraction_;
    if (minute_ > 59 || second_ > 60 || hour > 24 || timeMicros > kMicrosPerDay) failFieldOverflow();
    return timeMicros;
  }

  [[noreturn]] void failSyntax() const {
    SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "invalid input syntax for type {}: \"{}\"", typeName_, original_);
  }
  [[noreturn]] void failFieldOverflow() const {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date/time field value out of range: \"{}\"", original_);
  }
  [[noreturn]] void failRange() const {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "timestamp out of range: \"{}\"", original_);
  }

  static constexpr int32_t kNoDayShift = INT32_MIN;

  Special special_ = Special::kNone;
  int32_t dayShift_ = kNoDayShift;  // 'today' 0, 'tomorrow' 1, 'yesterday' -1
  std::optional<int32_t> zoneOffset_;
  const TimeZone* zone_ = nullptr;

 private:
  /// A run of digits, with its length; values too long to be any field are out of range.
  std::pair<int64_t, size_t> readDigits() {
    size_t begin = pos_;
    int64_t value = 0;
    while (pos_ < text_.size() && isDigit(text_[pos_])) {
      if (pos_ - begin >= 12) failFieldOverflow();
      value = value * 10 + (text_[pos_++] - '0');
    }
    if (pos_ == begin) failSyntax();
    return {value, pos_ - begin};
  }

  bool consume(char c) {
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  void setDate(int64_t year, int64_t month, int64_t day) {
    // PostgreSQL reads a date only before the time ('10:11:12 2024-01-05' is rejected).
    if (hasDate_ || hasTime_ || dayShift_ != kNoDayShift) failSyntax();
    hasDate_ = true;
    year_ = year;
    month_ = month;
    day_ = day;
  }

  void setTime(int64_t hour, int64_t minute, int64_t second) {
    if (hasTime_) failSyntax();
    hasTime_ = true;
    hour_ = hour;
    minute_ = minute;
    second_ = second;
    if (consume('.')) {
      // PostgreSQL rounds the fraction with rint() of the double: .0000005 becomes 0, .0000015 2.
      size_t begin = pos_;
      while (pos_ < text_.size() && isDigit(text_[pos_])) ++pos_;
      std::string digits = "0." + text_.substr(begin, pos_ - begin) + "0";
      double fraction = 0;
      std::from_chars(digits.data(), digits.data() + digits.size(), fraction);
      fraction_ = static_cast<int64_t>(std::nearbyint(fraction * kMicrosPerSecond));
    }
  }

  void readNumericField() {
    auto [first, firstLength] = readDigits();
    char delimiter = pos_ < text_.size() ? text_[pos_] : '\0';
    if (delimiter == '-' || delimiter == '/') {
      ++pos_;
      auto [second, secondLength] = readDigits();
      if (!consume(delimiter)) failSyntax();
      auto [third, thirdLength] = readDigits();
      if (firstLength >= 3) {
        setDate(first, second, third);
      } else {
        // DateStyle's MDY ordering, with PostgreSQL's two-digit year rule.
        if (thirdLength <= 2) third += third < 70 ? 2000 : 1900;
        setDate(third, first, second);
      }
    } else if (delimiter == ':') {
      ++pos_;
      auto [minute, minuteLength] = readDigits();
      int64_t second = 0;
      if (consume(':')) {
        second = pos_ < text_.size() && isDigit(text_[pos_]) ? readDigits().first : -1;
        if (second < 0) failSyntax();
      }
      setTime(first, minute, second);
    } else if (firstLength == 8 && !hasDate_) {
      setDate(first / 10000, first / 100 % 100, first % 100);  // YYYYMMDD
    } else if (firstLength == 6 && (hasDate_ || timeOnly_)) {
      setTime(first / 10000, first / 100 % 100, first % 100);  // HHMMSS
    } else {
      failSyntax();
    }
  }

  /// +HH, +HH:MM[:SS], +HHMM: hours east of UTC, at most 15.
  void readOffset() {
    bool negative = text_[pos_++] == '-';
    auto [hours, hoursLength] = readDigits();
    int64_t minutes = 0;
    int64_t seconds = 0;
    if (consume(':')) {
      minutes = readDigits().first;
      if (consume(':')) seconds = readDigits().first;
    } else if (hoursLength > 2) {
      minutes = hours % 100;
      hours /= 100;
    }
    if (hours > 15 || minutes >= 60 || seconds >= 60) {
      SHOAL_USER_FAIL(SqlState::kInvalidTimeZoneDisplacementValue, "time zone displacement out of range: \"{}\"",
                      original_);
    }
    setZoneOffset(static_cast<int32_t>((hours * 3600 + minutes * 60 + seconds) * (negative ? -1 : 1)));
  }

  void setZoneOffset(int32_t offset) {
    if (zoneOffset_ || zone_ != nullptr) failSyntax();
    zoneOffset_ = offset;
  }

  void readWord() {
    size_t begin = pos_;
    while (pos_ < text_.size() && isAlpha(text_[pos_])) ++pos_;
    std::string word = text_.substr(begin, pos_ - begin);
    bool keyword = std::find(std::begin(kKeywords), std::end(kKeywords), word) != std::end(kKeywords);
    char next = pos_ < text_.size() ? text_[pos_] : '\0';
    // As PostgreSQL's tokenizer: 'europe/berlin', 'utc+3' and 'est5edt' are one zone name.
    if (next == '-' || next == '/' || next == '.' || (!keyword && (next == '+' || isDigit(next)))) {
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                     std::string_view("+-/_.:").find(text_[pos_]) != std::string_view::npos)) {
        ++pos_;
      }
      std::string name = text_.substr(begin, pos_ - begin);
      const TimeZone* zone = TimeZone::find(name);
      if (zone == nullptr) {
        SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "time zone \"{}\" not recognized", name);
      }
      setZone(zone);
      return;
    }
    if (word == "t") {
      if (!hasDate_ || pos_ >= text_.size()) failSyntax();
    } else if (word == "am" || word == "pm") {
      if (meridiem_ != 0) failSyntax();
      meridiem_ = word == "am" ? 1 : 2;
    } else if (word == "bc" || word == "ad") {
      if (eraSeen_) failSyntax();
      eraSeen_ = true;
      beforeChrist_ = word == "bc";
    } else if (word == "allballs") {
      setTime(0, 0, 0);
    } else if (word == "today" || word == "tomorrow" || word == "yesterday") {
      if (hasDate_ || dayShift_ != kNoDayShift) failSyntax();
      dayShift_ = word == "today" ? 0 : (word == "tomorrow" ? 1 : -1);
    } else if (keyword) {
      failSyntax();  // 'epoch', 'now' and 'infinity' stand alone
    } else if (auto it = std::find_if(std::begin(kAbbreviations), std::end(kAbbreviations),
                                      [&](const Abbreviation& entry) { return entry.name == word; });
               it != std::end(kAbbreviations)) {
      setZoneOffset(it->offset);
    } else if (const TimeZone* zone = TimeZone::find(word)) {
      setZone(zone);
    } else {
      failSyntax();
    }
  }

  void setZone(const TimeZone* zone) {
    if (zoneOffset_ || zone_ != nullptr) failSyntax();
    zone_ = zone;
  }

  std::string_view original_;
  std::string_view typeName_;
  std::string text_;  // trimmed and lowercased
  size_t pos_ = 0;
  bool timeOnly_ = false;
  bool hasDate_ = false;
  bool hasTime_ = false;
  bool eraSeen_ = false;
  bool beforeChrist_ = false;
  int meridiem_ = 0;  // 0 none, 1 AM, 2 PM
  int64_t year_ = 0;
  int64_t month_ = 0;
  int64_t day_ = 0;
  int64_t hour_ = 0;
  int64_t minute_ = 0;
  int64_t second_ = 0;
  int64_t fraction_ = 0;  // microseconds, 0..1'000'000 after rounding
};

/// The local date in `session` at the statement's time, for 'today' and kin.
std::optional<int32_t> localToday(std::optional<int64_t> nowUtcMicros, const TimeZone& session) {
  if (!nowUtcMicros) return std::nullopt;
  int64_t local = *nowUtcMicros + int64_t{session.offsetAt(*nowUtcMicros)} * kMicrosPerSecond;
  return static_cast<int32_t>(floorDivide(local, kMicrosPerDay));
}

[[noreturn]] void failNeedsNow(std::string_view text) {
  SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "\"{}\" needs the statement's time, which is not known here", text);
}

void appendLocalText(int64_t localMicros, std::string& out) {
  int64_t days = floorDivide(localMicros, kMicrosPerDay);
  int64_t timeMicros = localMicros - days * kMicrosPerDay;
  CivilDate date = civilFromDays(static_cast<int32_t>(days));
  int64_t seconds = timeMicros / kMicrosPerSecond;
  // PostgreSQL has no year 0: proleptic year 0 is 1 BC.
  out += fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", date.year <= 0 ? 1 - date.year : date.year, date.month,
                     date.day, seconds / 3600, seconds / 60 % 60, seconds % 60);
  if (int64_t fraction = timeMicros % kMicrosPerSecond; fraction != 0) {
    std::string digits = fmt::format("{:06}", fraction);
    out += '.';
    out += std::string_view(digits).substr(0, digits.find_last_not_of('0') + 1);
  }
}

}  // namespace

int64_t parseTimestamp(std::string_view text, std::optional<int64_t> nowUtcMicros, const TimeZone& session) {
  TimestampParser parser(text, "timestamp");
  parser.parse();
  switch (parser.special_) {
    case Special::kInfinity:
      return kTimestampInfinity;
    case Special::kMinusInfinity:
      return kTimestampMinusInfinity;
    case Special::kEpoch:
      return 0;
    case Special::kNow:
      if (!nowUtcMicros) failNeedsNow(text);
      return *nowUtcMicros + int64_t{session.offsetAt(*nowUtcMicros)} * kMicrosPerSecond;
    case Special::kNone:
      break;
  }
  __int128 local = parser.localMicros(localToday(nowUtcMicros, session));
  if (local < kMinTimestamp || local >= kEndTimestamp) parser.failRange();
  return static_cast<int64_t>(local);
}

int64_t parseTimestampTz(std::string_view text, const TimeZone& session, std::optional<int64_t> nowUtcMicros) {
  TimestampParser parser(text, "timestamp with time zone");
  parser.parse();
  switch (parser.special_) {
    case Special::kInfinity:
      return kTimestampInfinity;
    case Special::kMinusInfinity:
      return kTimestampMinusInfinity;
    case Special::kEpoch:
      return 0;
    case Special::kNow:
      if (!nowUtcMicros) failNeedsNow(text);
      return *nowUtcMicros;
    case Special::kNone:
      break;
  }
  __int128 local = parser.localMicros(localToday(nowUtcMicros, session));
  // No zone is a day away from UTC, so this keeps the zone arithmetic within int64.
  if (local < kMinTimestamp - kMicrosPerDay || local >= kEndTimestamp + kMicrosPerDay) parser.failRange();
  int64_t utc = 0;
  if (parser.zoneOffset_) {
    utc = static_cast<int64_t>(local) - int64_t{*parser.zoneOffset_} * kMicrosPerSecond;
  } else {
    utc = (parser.zone_ != nullptr ? *parser.zone_ : session).localToUtc(static_cast<int64_t>(local));
  }
  if (!isValidTimestamp(utc)) parser.failRange();
  return utc;
}

int64_t parseTime(std::string_view text, std::optional<int64_t> nowUtcMicros, const TimeZone& session) {
  TimestampParser parser(text, "time");
  parser.parse(/*timeOnly=*/true);
  switch (parser.special_) {
    case Special::kNow: {
      if (!nowUtcMicros) failNeedsNow(text);
      const int64_t local = *nowUtcMicros + int64_t{session.offsetAt(*nowUtcMicros)} * kMicrosPerSecond;
      return local - floorDivide(local, kMicrosPerDay) * kMicrosPerDay;
    }
    case Special::kNone:
      break;
    default:
      parser.failSyntax();  // TIME has no infinity or epoch
  }
  if (parser.dayShift_ == TimestampParser::kNoDayShift) (void)parser.localMicros(0);  // checks a date it names
  return parser.timeOfDayMicros();
}

void appendTimeText(int64_t micros, std::string& out) {
  const int64_t seconds = micros / kMicrosPerSecond;
  out += fmt::format("{:02}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60);
  if (int64_t fraction = micros % kMicrosPerSecond; fraction != 0) {
    std::string digits = fmt::format("{:06}", fraction);
    out += '.';
    out += std::string_view(digits).substr(0, digits.find_last_not_of('0') + 1);
  }
}

void appendTimestampText(int64_t micros, std::string& out) {
  if (micros == kTimestampInfinity || micros == kTimestampMinusInfinity) {
    out += micros == kTimestampInfinity ? "infinity" : "-infinity";
    return;
  }
  appendLocalText(micros, out);
  if (floorDivide(micros, kMicrosPerDay) < daysFromCivil(CivilDate{1, 1, 1})) out += " BC";
}

void appendTimestampTzText(int64_t utcMicros, const TimeZone& zone, std::string& out) {
  if (utcMicros == kTimestampInfinity || utcMicros == kTimestampMinusInfinity) {
    out += utcMicros == kTimestampInfinity ? "infinity" : "-infinity";
    return;
  }
  int32_t offset = zone.offsetAt(utcMicros);
  int64_t local = utcMicros + int64_t{offset} * kMicrosPerSecond;
  appendLocalText(local, out);
  int32_t magnitude = std::abs(offset);
  out += fmt::format("{}{:02}", offset < 0 ? '-' : '+', magnitude / 3600);
  if (magnitude % 3600 != 0) out += fmt::format(":{:02}", magnitude / 60 % 60);
  if (magnitude % 60 != 0) out += fmt::format(":{:02}", magnitude % 60);
  if (floorDivide(local, kMicrosPerDay) < daysFromCivil(CivilDate{1, 1, 1})) out += " BC";
}

int64_t roundToFractionalDigits(int64_t micros, const LogicalType& type) {
  if (!type.roundsFractions() || micros == kTimestampInfinity || micros == kTimestampMinusInfinity) return micros;
  int64_t scale = 1;
  for (int digit = type.fractionalDigits(); digit < LogicalType::kMaxFractionalDigits; ++digit) scale *= 10;
  const int64_t half = scale / 2;
  if (type.id() == TypeId::kTime) return (micros + half) / scale * scale;
  // 2000-01-01 is a whole number of seconds after 1970-01-01, so the steps line up; only which way a half
  // goes depends on the epoch.
  constexpr int64_t kPostgresEpochMicros = 946'684'800'000'000;
  const int64_t sincePostgresEpoch = micros - kPostgresEpochMicros;
  const int64_t rounded = sincePostgresEpoch >= 0 ? (sincePostgresEpoch + half) / scale * scale
                                                  : -((-sincePostgresEpoch + half) / scale * scale);
  return rounded + kPostgresEpochMicros;
}

}  // namespace shoal::engine
