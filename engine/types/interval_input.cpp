// INTERVAL input, as PostgreSQL 15's interval_in: ParseDateTime splits the text into fields, DecodeInterval reads
// them from right to left so that a unit is seen before its number, and DecodeISO8601Interval reads 'P...' text.

#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "common/sql_state.h"
#include "common/status.h"
#include "engine/types/interval.h"

namespace shoal::engine {

namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
/// PostgreSQL's interval_field_overflow: a field of the text does not fit (SqlState has no name for it yet).
constexpr std::string_view kIntervalFieldOverflow = "22015";

int32_t checkedMonths(int64_t value) {
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "interval out of range");
  }
  return static_cast<int32_t>(value);
}

enum class FieldKind { kNumber, kSignedNumber, kTime, kWord };

struct Field {
  FieldKind kind;
  std::string text;
};

/// The unit words interval input knows; DecodeUnits compares at most 10 characters.
enum class Unit {
  kMicrosecond,
  kMillisecond,
  kSecond,
  kMinute,
  kHour,
  kDay,
  kWeek,
  kMonth,
  kYear,
  kDecade,
  kCentury,
  kMillennium,
  kAgo,
  kIgnore,
  kNone
};

Unit unitNamed(std::string word) {
  if (word.size() > 10) word.resize(10);
  static const std::pair<std::string_view, Unit> kUnits[] = {{"ago", Unit::kAgo},
                                                             {"c", Unit::kCentury},
                                                             {"cent", Unit::kCentury},
                                                             {"centuries", Unit::kCentury},
                                                             {"century", Unit::kCentury},
                                                             {"d", Unit::kDay},
                                                             {"day", Unit::kDay},
                                                             {"days", Unit::kDay},
                                                             {"dec", Unit::kDecade},
                                                             {"decade", Unit::kDecade},
                                                             {"decades", Unit::kDecade},
                                                             {"decs", Unit::kDecade},
                                                             {"h", Unit::kHour},
                                                             {"hour", Unit::kHour},
                                                             {"hours", Unit::kHour},
                                                             {"hr", Unit::kHour},
                                                             {"hrs", Unit::kHour},
                                                             {"m", Unit::kMinute},
                                                             {"microsecon", Unit::kMicrosecond},
                                                             {"mil", Unit::kMillennium},
                                                             {"millennia", Unit::kMillennium},
                                                             {"millennium", Unit::kMillennium},
                                                             {"millisecon", Unit::kMillisecond},
                                                             {"mils", Unit::kMillennium},
                                                             {"min", Unit::kMinute},
                                                             {"mins", Unit::kMinute},
                                                             {"minute", Unit::kMinute},
                                                             {"minutes", Unit::kMinute},
                                                             {"mon", Unit::kMonth},
                                                             {"mons", Unit::kMonth},
                                                             {"month", Unit::kMonth},
                                                             {"months", Unit::kMonth},
                                                             {"ms", Unit::kMillisecond},
                                                             {"msec", Unit::kMillisecond},
                                                             {"mseconds", Unit::kMillisecond},
                                                             {"msecs", Unit::kMillisecond},
                                                             {"s", Unit::kSecond},
                                                             {"sec", Unit::kSecond},
                                                             {"second", Unit::kSecond},
                                                             {"seconds", Unit::kSecond},
                                                             {"secs", Unit::kSecond},
                                                             {"us", Unit::kMicrosecond},
                                                             {"usec", Unit::kMicrosecond},
                                                             {"useconds", Unit::kMicrosecond},
                                                             {"usecs", Unit::kMicrosecond},
                                                             {"w", Unit::kWeek},
                                                             {"week", Unit::kWeek},
                                                             {"weeks", Unit::kWeek},
                                                             {"y", Unit::kYear},
                                                             {"year", Unit::kYear},
                                                             {"years", Unit::kYear},
                                                             {"yr", Unit::kYear},
                                                             {"yrs", Unit::kYear},
                                                             {"@", Unit::kIgnore}};
  for (const auto& [name, unit] : kUnits) {
    if (word == name) return unit;
  }
  return Unit::kNone;
}

/// The error cases of DecodeInterval.
struct BadFormat {};
struct FieldOverflow {};

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/// ParseDateTime's fields of interval text: numbers (with '.', '-' and ':' inside), signed numbers and words;
/// other punctuation only separates fields.
std::vector<Field> splitFields(std::string_view text) {
  std::vector<Field> fields;
  size_t position = 0;
  auto take = [&](auto accept) {
    const size_t start = position;
    while (position < text.size() && accept(text[position])) ++position;
    return std::string(text.substr(start, position - start));
  };
  auto numberChar = [](char c) { return isDigit(c) || c == '.' || c == ':' || c == '-'; };
  while (position < text.size()) {
    const char c = text[position];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++position;
    } else if (isDigit(c) || c == '.') {
      std::string number = take(numberChar);
      fields.push_back({number.find(':') != std::string::npos ? FieldKind::kTime : FieldKind::kNumber, number});
    } else if (c == '+' || c == '-') {
      ++position;
      if (position < text.size() && (isDigit(text[position]) || text[position] == '.')) {
        fields.push_back({FieldKind::kSignedNumber, std::string(1, c) + take(numberChar)});
      } else if (position < text.size() && isAlpha(text[position])) {
        throw BadFormat{};  // -infinity and friends are not intervals in PostgreSQL 15
      } else {
        throw BadFormat{};
      }
    } else if (isAlpha(c)) {
      std::string word = take([](char ch) { return isAlpha(ch); });
      for (char& ch : word) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      fields.push_back({FieldKind::kWord, word});
    } else if (std::ispunct(static_cast<unsigned char>(c))) {
      if (c == '@') fields.push_back({FieldKind::kWord, "@"});
      ++position;
    } else {
      throw BadFormat{};
    }
  }
  return fields;
}

/// The fields interval input has set so far, as DecodeInterval's fmask: each may be given once.
enum FieldBit : int {
  kBitMicrosecond = 1 << 0,
  kBitMillisecond = 1 << 1,
  kBitSecond = 1 << 2,
  kBitMinute = 1 << 3,
  kBitHour = 1 << 4,
  kBitDay = 1 << 5,
  kBitWeek = 1 << 6,
  kBitMonth = 1 << 7,
  kBitYear = 1 << 8,
  kBitDecade = 1 << 9,
  kBitCentury = 1 << 10,
  kBitMillennium = 1 << 11,
};
constexpr int kBitsTime = kBitHour | kBitMinute | kBitSecond;
constexpr int kBitsAllSeconds = kBitSecond | kBitMillisecond | kBitMicrosecond;

/// pg_itm_in: what the fields add up to before they become an interval.
struct Accumulated {
  int64_t years = 0;
  int64_t months = 0;
  int64_t days = 0;
  int64_t micros = 0;
};

int64_t checkedField(__int128 value) {
  if (value < std::numeric_limits<int64_t>::min() || value > std::numeric_limits<int64_t>::max()) {
    throw FieldOverflow{};
  }
  return static_cast<int64_t>(value);
}
int64_t checkedField32(__int128 value) {
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    throw FieldOverflow{};
  }
  return static_cast<int64_t>(value);
}

void addFractionMicros(double fraction, int64_t scale, Accumulated& sum) {
  if (fraction == 0) return;
  fraction *= static_cast<double>(scale);
  auto micros = static_cast<int64_t>(fraction);
  micros += static_cast<int64_t>(std::rint(fraction - static_cast<double>(micros)));
  sum.micros = checkedField(__int128{sum.micros} + micros);
}
void addMicros(int64_t value, double fraction, int64_t scale, Accumulated& sum) {
  sum.micros = checkedField(__int128{sum.micros} + __int128{value} * scale);
  addFractionMicros(fraction, scale, sum);
}
void addFractionDays(double fraction, int scale, Accumulated& sum) {
  if (fraction == 0) return;
  fraction *= scale;
  const auto extraDays = static_cast<int32_t>(fraction);
  sum.days = checkedField32(__int128{sum.days} + extraDays);
  addFractionMicros(fraction - extraDays, kIntervalMicrosPerDay, sum);
}
void addYears(int64_t value, double fraction, int scale, Accumulated& sum) {
  sum.years = checkedField32(__int128{sum.years} + __int128{value} * scale);
  const auto extraMonths = static_cast<int64_t>(std::rint(fraction * scale * 12));
  sum.months = checkedField32(__int128{sum.months} + extraMonths);
}

/// Adds `value` and `fraction` of `unit` as DecodeInterval does (a fraction of a month or week cascades into days
/// and time, of a year into months); returns the field bit the unit sets. BadFormat for units no interval has.
int addAmount(Unit unit, int64_t value, double fraction, Accumulated& sum) {
  auto addDays = [&](int scale) {
    sum.days = checkedField32(__int128{sum.days} + __int128{value} * scale);
    addFractionDays(fraction, scale, sum);
  };
  switch (unit) {
    case Unit::kMicrosecond:
      addMicros(value, fraction, 1, sum);
      return kBitMicrosecond;
    case Unit::kMillisecond:
      addMicros(value, fraction, 1000, sum);
      return kBitMillisecond;
    case Unit::kSecond:
      addMicros(value, fraction, kMicrosPerSecond, sum);
      return fraction == 0 ? kBitSecond : kBitsAllSeconds;  // a fraction also sets the smaller seconds
    case Unit::kMinute:
      addMicros(value, fraction, kMicrosPerMinute, sum);
      return kBitMinute;
    case Unit::kHour:
      addMicros(value, fraction, kMicrosPerHour, sum);
      return kBitHour;
    case Unit::kDay:
      addDays(1);
      return kBitDay;
    case Unit::kWeek:
      addDays(7);
      return kBitWeek;
    case Unit::kMonth:
      sum.months = checkedField32(__int128{sum.months} + value);
      addFractionDays(fraction, kIntervalDaysPerMonth, sum);
      return kBitMonth;
    case Unit::kYear:
      addYears(value, fraction, 1, sum);
      return kBitYear;
    case Unit::kDecade:
      addYears(value, fraction, 10, sum);
      return kBitDecade;
    case Unit::kCentury:
      addYears(value, fraction, 100, sum);
      return kBitCentury;
    case Unit::kMillennium:
      addYears(value, fraction, 1000, sum);
      return kBitMillennium;
    default:
      throw BadFormat{};
  }
}

/// strtoi64 at `text[position]`: optional sign and digits; FieldOverflow past int64.
int64_t readInteger(const std::string& text, size_t& position) {
  bool negative = false;
  if (position < text.size() && (text[position] == '-' || text[position] == '+')) negative = text[position++] == '-';
  __int128 value = 0;
  while (position < text.size() && isDigit(text[position])) {
    value = value * 10 + (text[position++] - '0');
    if (value > (__int128{1} << 64)) throw FieldOverflow{};
  }
  return checkedField(negative ? -value : value);
}

/// ParseFraction: "." followed by digits (or nothing) to the end of the field.
double readFraction(const std::string& text, size_t position) {
  if (position + 1 == text.size()) return 0;
  for (size_t i = position + 1; i < text.size(); ++i) {
    if (!isDigit(text[i])) throw BadFormat{};
  }
  return std::strtod(text.c_str() + position, nullptr);
}

/// DecodeTimeForInterval: hh:mm[:ss[.ffffff]] (mm:ss when the type names minute to second, or with a fraction).
int64_t decodeTime(const std::string& text, int range) {
  size_t position = 0;
  const int64_t hours = readInteger(text, position);
  if (position >= text.size() || text[position] != ':') throw BadFormat{};
  ++position;
  int64_t minutes = readInteger(text, position);
  if (minutes > std::numeric_limits<int32_t>::max()) throw FieldOverflow{};
  int64_t hour = hours;
  int64_t second = 0;
  int64_t fraction = 0;
  if (position == text.size()) {
    if (range == (interval_fields::kMinute | interval_fields::kSecond)) {
      second = minutes;
      minutes = hours;
      hour = 0;
    }
  } else if (text[position] == '.') {
    fraction = static_cast<int64_t>(std::rint(readFraction(text, position) * kMicrosPerSecond));
    second = minutes;
    minutes = hours;
    hour = 0;
  } else if (text[position] == ':') {
    ++position;
    second = readInteger(text, position);
    if (position < text.size()) {
      if (text[position] != '.') throw BadFormat{};
      fraction = static_cast<int64_t>(std::rint(readFraction(text, position) * kMicrosPerSecond));
    }
  } else {
    throw BadFormat{};
  }
  if (hour < 0 || minutes < 0 || minutes > 59 || second < 0 || second > 60 || fraction < 0 ||
      fraction > kMicrosPerSecond) {
    throw FieldOverflow{};
  }
  return checkedField(__int128{hour} * kMicrosPerHour + __int128{minutes} * kMicrosPerMinute +
                      __int128{second} * kMicrosPerSecond + fraction);
}

/// The unit a bare number counts: the smallest field the type names (interval '3' month), else seconds.
Unit defaultUnit(int range) {
  using namespace interval_fields;
  if (range == kYear) return Unit::kYear;
  if (range == kMonth || range == (kYear | kMonth)) return Unit::kMonth;
  if (range == kDay) return Unit::kDay;
  if (range == kHour || range == (kDay | kHour)) return Unit::kHour;
  if (range == kMinute || range == (kHour | kMinute) || range == (kDay | kHour | kMinute)) return Unit::kMinute;
  return Unit::kSecond;
}

/// DecodeInterval over the fields, right to left.
Accumulated decodeFields(const std::vector<Field>& fields, int range) {
  Accumulated sum;
  int seen = 0;
  Unit type = Unit::kNone;
  bool pendingUnit = false;
  bool ago = false;
  for (size_t index = fields.size(); index-- > 0;) {
    const Field& field = fields[index];
    int bits = 0;
    if (field.kind == FieldKind::kTime ||
        (field.kind == FieldKind::kSignedNumber && field.text.find(':') != std::string::npos)) {
      const bool negative = field.text[0] == '-';
      const bool signedTime = field.kind == FieldKind::kSignedNumber;
      int64_t micros = decodeTime(signedTime ? field.text.substr(1) : field.text, range);
      sum.micros = negative ? -micros : micros;  // DecodeTimeForInterval sets, not adds
      bits = kBitsTime;
      type = Unit::kDay;
      pendingUnit = false;
    } else if (field.kind == FieldKind::kNumber || field.kind == FieldKind::kSignedNumber) {
      if (type == Unit::kNone) type = defaultUnit(range);
      size_t position = 0;
      int64_t value = readInteger(field.text, position);
      double fraction = 0;
      if (position < field.text.size() && field.text[position] == '-') {
        // SQL's "years-months".
        ++position;
        const size_t monthsStart = position;
        int64_t months = readInteger(field.text, position);
        if (position == monthsStart || months < 0 || months >= 12) throw FieldOverflow{};
        if (position != field.text.size()) throw BadFormat{};
        type = Unit::kMonth;
        if (field.text[0] == '-') months = -months;
        value = checkedField(__int128{value} * 12 + months);
      } else if (position < field.text.size() && field.text[position] == '.') {
        fraction = readFraction(field.text, position);
        if (field.text[0] == '-') fraction = -fraction;
      } else if (position != field.text.size()) {
        throw BadFormat{};
      }
      bits = addAmount(type, value, fraction, sum);
      if (type == Unit::kHour) type = Unit::kDay;  // a bare number before hours counts days
      pendingUnit = false;
    } else {
      if (pendingUnit) throw BadFormat{};  // two units in a row
      const Unit unit = unitNamed(field.text);
      if (unit == Unit::kIgnore) continue;
      if (unit == Unit::kNone) throw BadFormat{};
      if (unit == Unit::kAgo) {
        if (index != fields.size() - 1) throw BadFormat{};
        ago = true;
        type = Unit::kNone;
      } else {
        type = unit;
        pendingUnit = true;
      }
    }
    if (bits & seen) throw BadFormat{};
    seen |= bits;
  }
  if (seen == 0 || pendingUnit) throw BadFormat{};
  if (ago) {
    for (int64_t* part : {&sum.micros, &sum.days, &sum.months, &sum.years}) {
      if (*part == std::numeric_limits<int64_t>::min()) throw FieldOverflow{};
      *part = -*part;
    }
  }
  return sum;
}

/// DecodeISO8601Interval's format with designators: P[nY][nM][nW][nD][T[nH][nM][nS]], numbers signed and
/// fractional. Anything else is BadFormat.
Accumulated decodeIso8601(std::string_view text) {
  if (text.empty() || text[0] != 'P') throw BadFormat{};
  Accumulated sum;
  bool timePart = false;
  size_t position = 1;
  const std::string owned(text);
  if (position == owned.size()) throw BadFormat{};
  while (position < owned.size()) {
    if (owned[position] == 'T') {
      if (timePart) throw BadFormat{};
      timePart = true;
      ++position;
      continue;
    }
    const size_t start = position;
    if (owned[position] == '-' || owned[position] == '+') ++position;
    while (position < owned.size() && (isDigit(owned[position]) || owned[position] == '.')) ++position;
    if (position == start || position == owned.size()) throw BadFormat{};
    const std::string number = owned.substr(start, position - start);
    size_t cursor = 0;
    int64_t value = readInteger(number, cursor);
    double fraction = 0;
    if (cursor < number.size()) {
      if (number[cursor] != '.') throw BadFormat{};
      fraction = readFraction(number, cursor);
      if (number[0] == '-') fraction = -fraction;
    }
    const char unit = owned[position++];
    static constexpr std::pair<char, Unit> kDateUnits[] = {
        {'Y', Unit::kYear}, {'M', Unit::kMonth}, {'W', Unit::kWeek}, {'D', Unit::kDay}};
    static constexpr std::pair<char, Unit> kTimeUnits[] = {
        {'H', Unit::kHour}, {'M', Unit::kMinute}, {'S', Unit::kSecond}};
    Unit named = Unit::kNone;
    for (const auto& [letter, meaning] : timePart ? std::span<const std::pair<char, Unit>>(kTimeUnits)
                                                  : std::span<const std::pair<char, Unit>>(kDateUnits)) {
      if (letter == unit) named = meaning;
    }
    addAmount(named, value, fraction, sum);
  }
  return sum;
}

/// AdjustIntervalForTypmod: drops the fields below the type's last one, then rounds the seconds.
void restrictToFields(Interval& interval, int range, int precision) {
  using namespace interval_fields;
  auto truncateTime = [&](int64_t unit) { interval.micros = interval.micros / unit * unit; };
  if (range == kYear) {
    interval.months = interval.months / 12 * 12;
    interval.days = 0;
    interval.micros = 0;
  } else if (range == kMonth || range == (kYear | kMonth)) {
    interval.days = 0;
    interval.micros = 0;
  } else if (range == kDay) {
    interval.micros = 0;
  } else if (range == kHour || range == (kDay | kHour)) {
    truncateTime(kMicrosPerHour);
  } else if (range == kMinute || range == (kDay | kHour | kMinute) || range == (kHour | kMinute)) {
    truncateTime(kMicrosPerMinute);
  }
  if (precision >= 0 && precision < 6) {
    int64_t scale = 1;
    for (int i = precision; i < 6; ++i) scale *= 10;
    const int64_t half = scale / 2;
    interval.micros =
        interval.micros >= 0 ? (interval.micros + half) / scale * scale : -((-interval.micros + half) / scale * scale);
  }
}

}  // namespace

Interval parseInterval(std::string_view text, int fields, int precision) {
  const int range = fields == interval_fields::kFullRange ? 0 : fields;
  Accumulated sum;
  try {
    try {
      sum = decodeFields(splitFields(text), range);
    } catch (const BadFormat&) {
      size_t start = 0;
      while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
      sum = decodeIso8601(text.substr(start));
    }
  } catch (const BadFormat&) {
    SHOAL_USER_FAIL(SqlState::kInvalidDatetimeFormat, "invalid input syntax for type interval: \"{}\"", text);
  } catch (const FieldOverflow&) {
    SHOAL_USER_FAIL(kIntervalFieldOverflow, "interval field value out of range: \"{}\"", text);
  }
  Interval interval;
  interval.months = checkedMonths(sum.years * 12 + sum.months);
  interval.days = static_cast<int32_t>(sum.days);
  interval.micros = sum.micros;
  restrictToFields(interval, range, precision == interval_fields::kFullPrecision ? -1 : precision);
  return interval;
}

}  // namespace shoal::engine
