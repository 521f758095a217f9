#include "engine/expression/datetime_format_template.h"

namespace shoal::engine::from_char {
namespace {

// Longest first where one keyword begins another (MONTH before MON before MM, HH24 before HH).
constexpr Keyword kKeywords[] = {
    {"A.D.", Field::kEraDotted, 0, false},
    {"a.d.", Field::kEraDotted, 0, false},
    {"A.M.", Field::kMeridiemDotted, 0, false},
    {"a.m.", Field::kMeridiemDotted, 0, false},
    {"AD", Field::kEra, 0, false},
    {"ad", Field::kEra, 0, false},
    {"AM", Field::kMeridiem, 0, false},
    {"am", Field::kMeridiem, 0, false},
    {"B.C.", Field::kEraDotted, 0, false},
    {"b.c.", Field::kEraDotted, 0, false},
    {"BC", Field::kEra, 0, false},
    {"bc", Field::kEra, 0, false},
    {"CC", Field::kCentury, 2, true},
    {"cc", Field::kCentury, 2, true},
    {"DAY", Field::kDayName, 0, false},
    {"Day", Field::kDayName, 0, false},
    {"day", Field::kDayName, 0, false},
    {"DDD", Field::kDayOfYear, 3, true},
    {"ddd", Field::kDayOfYear, 3, true},
    {"DD", Field::kDay, 2, true},
    {"dd", Field::kDay, 2, true},
    {"DY", Field::kDayShort, 0, false},
    {"Dy", Field::kDayShort, 0, false},
    {"dy", Field::kDayShort, 0, false},
    {"D", Field::kDayOfWeek, 1, true},
    {"d", Field::kDayOfWeek, 1, true},
    {"FF1", Field::kFraction, 1, true},
    {"ff1", Field::kFraction, 1, true},
    {"FF2", Field::kFraction, 2, true},
    {"ff2", Field::kFraction, 2, true},
    {"FF3", Field::kFraction, 3, true},
    {"ff3", Field::kFraction, 3, true},
    {"FF4", Field::kFraction, 4, true},
    {"ff4", Field::kFraction, 4, true},
    {"FF5", Field::kFraction, 5, true},
    {"ff5", Field::kFraction, 5, true},
    {"FF6", Field::kFraction, 6, true},
    {"ff6", Field::kFraction, 6, true},
    {"FX", Field::kFixed, 0, false},
    {"HH24", Field::kHour24, 2, true},
    {"hh24", Field::kHour24, 2, true},
    {"HH12", Field::kHour12, 2, true},
    {"hh12", Field::kHour12, 2, true},
    {"HH", Field::kHour12, 2, true},
    {"hh", Field::kHour12, 2, true},
    {"IDDD", Field::kIsoDayOfYear, 3, true},
    {"iddd", Field::kIsoDayOfYear, 3, true},
    {"ID", Field::kIsoDayOfWeek, 1, true},
    {"id", Field::kIsoDayOfWeek, 1, true},
    {"IW", Field::kIsoWeek, 2, true},
    {"iw", Field::kIsoWeek, 2, true},
    {"IYYY", Field::kIsoYear4, 4, true},
    {"iyyy", Field::kIsoYear4, 4, true},
    {"IYY", Field::kIsoYear3, 3, true},
    {"iyy", Field::kIsoYear3, 3, true},
    {"IY", Field::kIsoYear2, 2, true},
    {"iy", Field::kIsoYear2, 2, true},
    {"I", Field::kIsoYear1, 1, true},
    {"i", Field::kIsoYear1, 1, true},
    {"J", Field::kJulianDay, 1, true},
    {"j", Field::kJulianDay, 1, true},
    {"MI", Field::kMinute, 2, true},
    {"mi", Field::kMinute, 2, true},
    {"MM", Field::kMonth, 2, true},
    {"mm", Field::kMonth, 2, true},
    {"MONTH", Field::kMonthName, 0, false},
    {"Month", Field::kMonthName, 0, false},
    {"month", Field::kMonthName, 0, false},
    {"MON", Field::kMonthShort, 0, false},
    {"Mon", Field::kMonthShort, 0, false},
    {"mon", Field::kMonthShort, 0, false},
    {"MS", Field::kMillis, 3, true},
    {"ms", Field::kMillis, 3, true},
    {"OF", Field::kToCharOnly, 0, false},
    {"of", Field::kToCharOnly, 0, false},
    {"P.M.", Field::kMeridiemDotted, 0, false},
    {"p.m.", Field::kMeridiemDotted, 0, false},
    {"PM", Field::kMeridiem, 0, false},
    {"pm", Field::kMeridiem, 0, false},
    {"Q", Field::kQuarter, 1, true},
    {"q", Field::kQuarter, 1, true},
    {"RM", Field::kRomanMonth, 0, false},
    {"rm", Field::kRomanMonth, 0, false},
    {"SSSSS", Field::kSecondsOfDay, 5, true},
    {"sssss", Field::kSecondsOfDay, 5, true},
    {"SSSS", Field::kSecondsOfDay, 4, true},
    {"ssss", Field::kSecondsOfDay, 4, true},
    {"SS", Field::kSecond, 2, true},
    {"ss", Field::kSecond, 2, true},
    {"TZH", Field::kZoneHours, 2, true},
    {"TZM", Field::kZoneMinutes, 2, true},
    {"TZ", Field::kToCharOnly, 0, false},
    {"tz", Field::kToCharOnly, 0, false},
    {"US", Field::kMicros, 6, true},
    {"us", Field::kMicros, 6, true},
    {"WW", Field::kWeekOfYear, 2, true},
    {"ww", Field::kWeekOfYear, 2, true},
    {"W", Field::kWeekOfMonth, 1, true},
    {"w", Field::kWeekOfMonth, 1, true},
    {"Y,YYY", Field::kYearComma, 0, true},
    {"y,yyy", Field::kYearComma, 0, true},
    {"YYYY", Field::kYear4, 4, true},
    {"yyyy", Field::kYear4, 4, true},
    {"YYY", Field::kYear3, 3, true},
    {"yyy", Field::kYear3, 3, true},
    {"YY", Field::kYear2, 2, true},
    {"yy", Field::kYear2, 2, true},
    {"Y", Field::kYear1, 1, true},
    {"y", Field::kYear1, 1, true},
};

}  // namespace

DateMode dateModeOf(Field field) {
  switch (field) {
    case Field::kYear4:
    case Field::kYear3:
    case Field::kYear2:
    case Field::kYear1:
    case Field::kYearComma:
    case Field::kMonth:
    case Field::kMonthName:
    case Field::kMonthShort:
    case Field::kRomanMonth:
    case Field::kWeekOfYear:
    case Field::kWeekOfMonth:
    case Field::kDay:
    case Field::kDayOfYear:
    case Field::kDayOfWeek:
      return DateMode::kGregorian;
    case Field::kIsoYear4:
    case Field::kIsoYear3:
    case Field::kIsoYear2:
    case Field::kIsoYear1:
    case Field::kIsoWeek:
    case Field::kIsoDayOfYear:
    case Field::kIsoDayOfWeek:
      return DateMode::kIsoWeek;
    default:
      return DateMode::kNone;
  }
}

std::vector<Item> parseFormat(std::string_view format) {
  std::vector<Item> items;
  for (size_t pos = 0; pos < format.size();) {
    if (format[pos] == '"') {  // quoted text: each character is a literal
      for (++pos; pos < format.size() && format[pos] != '"'; ++pos) {
        if (format[pos] == '\\' && pos + 1 < format.size()) ++pos;
        items.push_back({Item::Kind::kCharacter});
      }
      ++pos;
      continue;
    }
    bool fillMode = false;
    if (format.substr(pos).starts_with("FM") || format.substr(pos).starts_with("fm")) {
      fillMode = true;
      pos += 2;
    }
    const Keyword* match = nullptr;
    for (const Keyword& keyword : kKeywords) {
      if (format.substr(pos).starts_with(keyword.text)) {
        match = &keyword;
        break;
      }
    }
    if (match != nullptr) {
      pos += match->text.size();
      bool ordinal = false;
      if (format.substr(pos).starts_with("TH") || format.substr(pos).starts_with("th")) {
        ordinal = true;
        pos += 2;
      }
      items.push_back({Item::Kind::kKeyword, match, fillMode, ordinal});
      continue;
    }
    const char c = format[pos++];
    if (c == '\\' && pos < format.size()) ++pos;
    items.push_back({c == ' ' ? Item::Kind::kSpace : isSeparator(c) ? Item::Kind::kSeparator : Item::Kind::kCharacter});
  }
  return items;
}

}  // namespace shoal::engine::from_char
