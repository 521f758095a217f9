// to_char of numbers. The template is parsed once per distinct format text into nodes and a description
// (digits before and after the point, which sign and where); each value is then turned into PostgreSQL's
// intermediate "number string" (its digits rounded to the template's fraction digits, or '#' when the integer
// part does not fit) and a sign, and the nodes are rendered over that string the way formatting.c's
// NUM_processor does, quirks included: a C string is written there, so a NUL written into it (a '.' the
// number string lacks, SG of a Roman numeral) ends the result.

#include "engine/expression/number_to_char.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "common/status.h"
#include "engine/expression/datetime_to_char.h"
#include "engine/types/text_format.h"

namespace shoal::engine {
namespace {

enum class Pattern {
  kComma,
  kPoint,
  kZero,
  kNine,
  kBlank,
  kCentury,  // C: parsed, prints nothing
  kLocalePoint,
  kExponent,
  kFillMode,
  kGroup,
  kCurrency,
  kMinus,
  kPlus,
  kBrackets,
  kRomanUpper,
  kRomanLower,
  kSign,
  kSpell,  // SP: parsed, prints nothing
  kLocaleSign,
  kOrdinalUpper,
  kOrdinalLower,
  kShift,
};

struct PatternName {
  std::string_view name;
  Pattern pattern;
};

// Longest names first where one is a prefix of another (SG and SP before S), as PostgreSQL's table.
constexpr PatternName kPatterns[] = {
    {",", Pattern::kComma},         {".", Pattern::kPoint},         {"0", Pattern::kZero},
    {"9", Pattern::kNine},          {"B", Pattern::kBlank},         {"C", Pattern::kCentury},
    {"D", Pattern::kLocalePoint},   {"EEEE", Pattern::kExponent},   {"FM", Pattern::kFillMode},
    {"G", Pattern::kGroup},         {"L", Pattern::kCurrency},      {"MI", Pattern::kMinus},
    {"PL", Pattern::kPlus},         {"PR", Pattern::kBrackets},     {"RN", Pattern::kRomanUpper},
    {"SG", Pattern::kSign},         {"SP", Pattern::kSpell},        {"S", Pattern::kLocaleSign},
    {"TH", Pattern::kOrdinalUpper}, {"V", Pattern::kShift},         {"b", Pattern::kBlank},
    {"c", Pattern::kCentury},       {"d", Pattern::kLocalePoint},   {"eeee", Pattern::kExponent},
    {"fm", Pattern::kFillMode},     {"g", Pattern::kGroup},         {"l", Pattern::kCurrency},
    {"mi", Pattern::kMinus},        {"pl", Pattern::kPlus},         {"pr", Pattern::kBrackets},
    {"rn", Pattern::kRomanLower},   {"sg", Pattern::kSign},         {"sp", Pattern::kSpell},
    {"s", Pattern::kLocaleSign},    {"th", Pattern::kOrdinalLower}, {"v", Pattern::kShift},
};

// The description's flags (NUMDesc's NUM_F_*).
enum Flag : uint32_t {
  kDecimal = 1 << 0,
  kZeroFill = 1 << 1,
  kBlankFlag = 1 << 2,
  kFill = 1 << 3,
  kLocaleSignFlag = 1 << 4,
  kBracket = 1 << 5,
  kMinusFlag = 1 << 6,
  kPlusFlag = 1 << 7,
  kRoman = 1 << 8,
  kMulti = 1 << 9,
  kEeee = 1 << 10,
};

enum class SignPlace { kNone, kBefore, kAfter };

struct Description {
  int pre = 0;   // digit positions before the point
  int post = 0;  // and after it
  SignPlace localeSign = SignPlace::kNone;
  uint32_t flags = 0;
  int preLocaleSign = 0;  // `pre` when S stood before the digits
  int multi = 0;          // V's digits: the value is shifted left by them
  int zeroStart = 0;      // 1-based position of the first 0 (0: none)
  int zeroEnd = 0;        // position of the last 0

  bool has(uint32_t flag) const { return (flags & flag) != 0; }
};

struct Node {
  bool isPattern = false;
  Pattern pattern = Pattern::kNine;
  std::string text;  // a literal character
};

struct Template {
  std::vector<Node> nodes;
  Description description;
};

[[noreturn]] void templateError(std::string message) {
  throw ShoalError(Status(SqlState::kSyntaxError, std::move(message)));
}

/// Folds one pattern into the description, with NUMDesc_prepare's checks.
void describe(Description& d, Pattern pattern) {
  if (d.has(kEeee) && pattern != Pattern::kExponent) templateError("\"EEEE\" must be the last pattern used");
  switch (pattern) {
    case Pattern::kNine:
      if (d.has(kBracket)) templateError("\"9\" must be ahead of \"PR\"");
      if (d.has(kMulti)) {
        ++d.multi;
      } else if (d.has(kDecimal)) {
        ++d.post;
      } else {
        ++d.pre;
      }
      break;
    case Pattern::kZero:
      if (d.has(kBracket)) templateError("\"0\" must be ahead of \"PR\"");
      if (!d.has(kZeroFill) && !d.has(kDecimal)) {
        d.flags |= kZeroFill;
        d.zeroStart = d.pre + 1;
      }
      if (d.has(kDecimal)) {
        ++d.post;
      } else {
        ++d.pre;
      }
      d.zeroEnd = d.pre + d.post;
      break;
    case Pattern::kBlank:
      if (d.pre == 0 && d.post == 0 && !d.has(kZeroFill)) d.flags |= kBlankFlag;
      break;
    case Pattern::kLocalePoint:
    case Pattern::kPoint:
      if (d.has(kDecimal)) templateError("multiple decimal points");
      if (d.has(kMulti)) templateError("cannot use \"V\" and decimal point together");
      d.flags |= kDecimal;
      break;
    case Pattern::kFillMode:
      d.flags |= kFill;
      break;
    case Pattern::kLocaleSign:
      if (d.has(kLocaleSignFlag)) templateError("cannot use \"S\" twice");
      if (d.has(kPlusFlag) || d.has(kMinusFlag) || d.has(kBracket)) {
        templateError("cannot use \"S\" and \"PL\"/\"MI\"/\"SG\"/\"PR\" together");
      }
      if (!d.has(kDecimal)) {
        d.localeSign = SignPlace::kBefore;
        d.preLocaleSign = d.pre;
      } else {
        d.localeSign = SignPlace::kAfter;
      }
      d.flags |= kLocaleSignFlag;
      break;
    case Pattern::kMinus:
      if (d.has(kLocaleSignFlag)) templateError("cannot use \"S\" and \"MI\" together");
      d.flags |= kMinusFlag;
      break;
    case Pattern::kPlus:
      if (d.has(kLocaleSignFlag)) templateError("cannot use \"S\" and \"PL\" together");
      d.flags |= kPlusFlag;
      break;
    case Pattern::kSign:
      if (d.has(kLocaleSignFlag)) templateError("cannot use \"S\" and \"SG\" together");
      d.flags |= kMinusFlag | kPlusFlag;
      break;
    case Pattern::kBrackets:
      if (d.has(kLocaleSignFlag) || d.has(kPlusFlag) || d.has(kMinusFlag)) {
        templateError("cannot use \"PR\" and \"S\"/\"PL\"/\"MI\"/\"SG\" together");
      }
      d.flags |= kBracket;
      break;
    case Pattern::kRomanUpper:
    case Pattern::kRomanLower:
      d.flags |= kRoman;
      break;
    case Pattern::kShift:
      if (d.has(kDecimal)) templateError("cannot use \"V\" and decimal point together");
      d.flags |= kMulti;
      break;
    case Pattern::kExponent:
      if (d.has(kEeee)) templateError("cannot use \"EEEE\" twice");
      if (d.has(kBlankFlag) || d.has(kFill) || d.has(kLocaleSignFlag) || d.has(kBracket) || d.has(kMinusFlag) ||
          d.has(kPlusFlag) || d.has(kRoman) || d.has(kMulti)) {
        throw ShoalError(Status(SqlState::kSyntaxError, "\"EEEE\" is incompatible with other formats")
                             .withDetail("\"EEEE\" may only be used together with digit and decimal point patterns."));
      }
      d.flags |= kEeee;
      break;
    default:
      break;
  }
}

Template parseTemplate(std::string_view format) {
  Template parsed;
  size_t at = 0;
  while (at < format.size()) {
    const PatternName* match = nullptr;
    for (const PatternName& candidate : kPatterns) {
      if (format.substr(at).starts_with(candidate.name)) {
        match = &candidate;
        break;
      }
    }
    if (match != nullptr) {
      parsed.nodes.push_back(Node{true, match->pattern, {}});
      describe(parsed.description, match->pattern);
      at += match->name.size();
      continue;
    }
    if (format[at] == '"') {  // "quoted text", where a backslash quotes the next character
      ++at;
      while (at < format.size()) {
        if (format[at] == '"') {
          ++at;
          break;
        }
        if (format[at] == '\\' && at + 1 < format.size()) ++at;
        parsed.nodes.push_back(Node{false, Pattern::kNine, std::string(1, format[at++])});
      }
      continue;
    }
    if (format[at] == '\\' && at + 1 < format.size() && format[at + 1] == '"') ++at;
    parsed.nodes.push_back(Node{false, Pattern::kNine, std::string(1, format[at++])});
  }
  return parsed;
}

/// The number string and sign that NUM_processor renders, and the blank positions before its first digit.
struct NumberString {
  std::string digits;
  char sign = '+';
  int outPreSpaces = 0;
};

/// Pads or overflows the integer part against the template: '#' everywhere when it does not fit.
void fitIntegerPart(NumberString& number, const Description& d) {
  const size_t point = number.digits.find('.');
  const int integerDigits = static_cast<int>(point == std::string::npos ? number.digits.size() : point);
  if (integerDigits < d.pre) {
    number.outPreSpaces = d.pre - integerDigits;
  } else if (integerDigits > d.pre) {
    number.digits.assign(static_cast<size_t>(d.pre + d.post + 1), '#');
    number.digits[static_cast<size_t>(d.pre)] = '.';
  }
}

std::string romanNumeral(int64_t value) {
  if (value < 1 || value > 3999) return std::string(15, '#');
  static constexpr std::string_view kOnes[] = {"", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"};
  static constexpr std::string_view kTens[] = {"", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"};
  static constexpr std::string_view kHundreds[] = {"", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"};
  std::string out(static_cast<size_t>(value / 1000), 'M');
  out += kHundreds[value / 100 % 10];
  out += kTens[value / 10 % 10];
  out += kOnes[value % 10];
  return out;
}

/// PostgreSQL's own printf: NaN and infinities spelled as its float8out spells them, the rest as C's.
std::string printFloat(const char* format, int precision, double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Infinity" : "Infinity";
  char buffer[512];
  std::snprintf(buffer, sizeof(buffer), format, precision, value);
  return buffer;
}

/// A float in scientific notation ("%+.*e", the + swapped for a space); '#' for NaN and infinities.
std::string floatScientific(double value, const Description& d) {
  if (std::isnan(value) || std::isinf(value)) {
    std::string out(static_cast<size_t>(d.pre + d.post + 6), '#');
    out[0] = ' ';
    out[static_cast<size_t>(d.pre + 1)] = '.';
    return out;
  }
  std::string out = printFloat("%+.*e", d.post, value);
  if (out[0] == '+') out[0] = ' ';
  return out;
}

/// An exact decimal as digits: the integer part (no leading zeros, "0" for none), the fraction, the sign.
struct DecimalDigits {
  std::string integer;
  std::string fraction;
  bool negative = false;
};

DecimalDigits digitsOf(int128_t unscaled, int scale) {
  std::string text;
  appendDecimalText(unscaled, scale, text);
  DecimalDigits digits;
  size_t at = 0;
  if (!text.empty() && text[0] == '-') {
    digits.negative = true;
    at = 1;
  }
  const size_t point = text.find('.');
  digits.integer = text.substr(at, point == std::string::npos ? std::string::npos : point - at);
  if (point != std::string::npos) digits.fraction = text.substr(point + 1);
  return digits;
}

/// Adds one to a string of decimal digits, growing it on a carry out ("99" -> "100").
void incrementDigits(std::string& digits) {
  for (size_t i = digits.size(); i-- > 0;) {
    if (digits[i] != '9') {
      ++digits[i];
      return;
    }
    digits[i] = '0';
  }
  digits.insert(digits.begin(), '1');
}

/// Rounds to `places` fraction digits, half away from zero (numeric_round), padding with zeros.
void roundDigits(DecimalDigits& digits, int places) {
  const auto keep = static_cast<size_t>(places);
  if (digits.fraction.size() > keep) {
    const bool up = digits.fraction[keep] >= '5';
    digits.fraction.resize(keep);
    if (up) {
      std::string all = digits.integer + digits.fraction;
      incrementDigits(all);
      digits.integer = all.substr(0, all.size() - keep);
      digits.fraction = all.substr(all.size() - keep);
    }
  }
  digits.fraction.resize(keep, '0');
  const size_t first = digits.integer.find_first_not_of('0');
  digits.integer = first == std::string::npos ? "0" : digits.integer.substr(first);
  if (digits.integer == "0" && digits.fraction.find_first_not_of('0') == std::string::npos) digits.negative = false;
}

/// numeric_out_sci: d.dd...e+XX with `places` fraction digits, rounded half away from zero; a mantissa that
/// rounds up to 10 stays 10, as PostgreSQL prints it. Positive numbers get a leading space.
std::string decimalScientific(const DecimalDigits& value, int places) {
  const std::string all = value.integer + value.fraction;
  const size_t first = all.find_first_not_of('0');
  int exponent = 0;
  std::string mantissa;
  if (first == std::string::npos) {
    mantissa.assign(static_cast<size_t>(places) + 1, '0');
  } else {
    exponent = static_cast<int>(value.integer.size()) - 1 - static_cast<int>(first);
    mantissa = all.substr(first, static_cast<size_t>(places) + 1);
    mantissa.resize(static_cast<size_t>(places) + 1, '0');
    const size_t next = first + static_cast<size_t>(places) + 1;
    if (next < all.size() && all[next] >= '5') incrementDigits(mantissa);
  }
  const size_t integerDigits = mantissa.size() - static_cast<size_t>(places);
  std::string out = value.negative ? "-" : " ";
  out += mantissa.substr(0, integerDigits);
  if (places > 0) out += "." + mantissa.substr(integerDigits);
  out += fmt::format("e{}{:02}", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out;
}

int32_t romanIntegerOf(const DecimalDigits& rounded) {
  // numeric_int4 of the value rounded to an integer: 22003 past int4.
  constexpr size_t kInt4Digits = 10;
  const int64_t magnitude =
      rounded.integer.size() > kInt4Digits ? std::numeric_limits<int64_t>::max() : std::stoll(rounded.integer);
  const int64_t value = rounded.negative ? -magnitude : magnitude;
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "integer out of range");
  }
  return static_cast<int32_t>(value);
}

/// An exact value (an integer or a numeric): numeric_to_char's and int8_to_char's number string.
NumberString exactNumberString(DecimalDigits value, Description& d, bool isInteger) {
  NumberString number;
  if (d.has(kRoman)) {
    roundDigits(value, 0);
    number.digits = romanNumeral(romanIntegerOf(value));
    return number;
  }
  if (d.has(kEeee)) {
    number.digits = decimalScientific(value, d.post);
    return number;
  }
  if (d.has(kMulti)) {
    // int8_to_char multiplies by dtoi8(10^n), which fails past 10^18 whatever the value.
    constexpr int kInt8PowersOfTen = 18;
    if (isInteger && d.multi > kInt8PowersOfTen)
      SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "bigint out of range");
    const auto shift = static_cast<size_t>(d.multi);
    std::string moved = value.fraction.substr(0, std::min(shift, value.fraction.size()));
    moved.resize(shift, '0');
    value.integer += moved;
    value.fraction = value.fraction.size() > shift ? value.fraction.substr(shift) : "";
    d.pre += d.multi;
    if (isInteger && value.integer.size() > 19) {
      // int8mul's overflow check (int4's shift wraps in PostgreSQL, but reaches here only for bigint).
      const std::string limit = value.negative ? "9223372036854775808" : "9223372036854775807";
      const size_t first = value.integer.find_first_not_of('0');
      const std::string significant = first == std::string::npos ? "0" : value.integer.substr(first);
      if (significant.size() > limit.size() || (significant.size() == limit.size() && significant > limit)) {
        SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "bigint out of range");
      }
    }
  }
  roundDigits(value, d.post);
  number.sign = value.negative ? '-' : '+';
  number.digits = value.integer;
  if (d.post > 0) number.digits += "." + value.fraction;
  fitIntegerPart(number, d);
  return number;
}

NumberString int4NumberString(int32_t value, Description& d) {
  NumberString number;
  if (d.has(kRoman)) {
    number.digits = romanNumeral(value);
    return number;
  }
  if (d.has(kEeee)) {
    number.digits = floatScientific(static_cast<double>(value), d);
    return number;
  }
  if (d.has(kMulti)) {
    // PostgreSQL multiplies in int32 (wrapping, -fwrapv) by (int32) 10^n.
    const double power = std::pow(10.0, d.multi);
    const int32_t factor =
        power > std::numeric_limits<int32_t>::max() ? std::numeric_limits<int32_t>::min() : static_cast<int32_t>(power);
    value = static_cast<int32_t>(static_cast<uint32_t>(value) * static_cast<uint32_t>(factor));
    d.pre += d.multi;
  }
  DecimalDigits digits;
  digits.negative = value < 0;
  digits.integer = std::to_string(value < 0 ? -static_cast<int64_t>(value) : static_cast<int64_t>(value));
  number.sign = digits.negative ? '-' : '+';
  number.digits = digits.integer;
  if (d.post > 0) number.digits += "." + std::string(static_cast<size_t>(d.post), '0');
  fitIntegerPart(number, d);
  return number;
}

NumberString floatNumberString(double value, bool isReal, Description& d) {
  NumberString number;
  if (d.has(kRoman)) {
    const double rounded = std::rint(value);
    const bool fits = !std::isnan(rounded) && rounded >= std::numeric_limits<int32_t>::min() &&
                      rounded <= std::numeric_limits<int32_t>::max();
    number.digits = romanNumeral(fits ? static_cast<int64_t>(rounded) : 0);
    return number;
  }
  if (d.has(kEeee)) {
    number.digits = floatScientific(isReal ? static_cast<double>(static_cast<float>(value)) : value, d);
    return number;
  }
  double shifted = value;
  if (d.has(kMulti)) {
    shifted = isReal ? static_cast<double>(static_cast<float>(value) * static_cast<float>(std::pow(10.0, d.multi)))
                     : value * std::pow(10.0, d.multi);
    d.pre += d.multi;
  }
  // The digits a float holds: 6 (FLT_DIG) or 15 (DBL_DIG) significant ones in all.
  const int significant = isReal ? 6 : 15;
  const int integerDigits = static_cast<int>(printFloat("%.*f", 0, std::fabs(shifted)).size());
  if (integerDigits >= significant) {
    d.post = 0;
  } else if (integerDigits + d.post > significant) {
    d.post = significant - integerDigits;
  }
  std::string text = printFloat("%.*f", d.post, shifted);
  if (text[0] == '-') {
    number.sign = '-';
    text.erase(0, 1);
  }
  number.digits = std::move(text);
  fitIntegerPart(number, d);
  return number;
}

/// TH/th of the number string: its last two digits' ordinal suffix; PostgreSQL's 22P02 when it ends in no digit.
std::string ordinalOf(const std::string& number, bool upper) {
  const auto digit = [&](size_t fromEnd) {
    const char c = number.size() >= fromEnd ? number[number.size() - fromEnd] : '0';
    return std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : 0;
  };
  if (number.empty() || !std::isdigit(static_cast<unsigned char>(number.back()))) {
    SHOAL_USER_FAIL(SqlState::kInvalidTextRepresentation, "\"{}\" is not a number", number);
  }
  return ordinalSuffix(digit(2) * 10 + digit(1), upper);
}

/// Renders the template's nodes over a number string (NUM_processor's to_char direction).
class NumberRenderer {
 public:
  NumberRenderer(Description d, const NumberString& number) : d_(d), number_(number.digits), sign_(number.sign) {
    outPreSpaces_ = number.outPreSpaces;
  }

  std::string render(const std::vector<Node>& nodes) {
    if (d_.zeroStart > 0) --d_.zeroStart;
    if (d_.has(kEeee)) return number_;
    if (d_.has(kRoman)) {
      d_.localeSign = SignPlace::kNone;
      d_.preLocaleSign = d_.post = d_.pre = outPreSpaces_ = 0;
      sign_ = '\0';
      d_.flags = (d_.flags & kFill) | kRoman;
    }
    prepareSign();
    numCount_ = d_.post + d_.pre - 1;
    if (d_.has(kFill) && d_.has(kDecimal)) findLastRelevant();
    if (!signWrote_ && outPreSpaces_ == 0) ++numCount_;
    for (const Node& node : nodes) {
      if (!node.isPattern) {
        out_ += node.text;
        continue;
      }
      renderPattern(node.pattern);
    }
    // A NUL written into PostgreSQL's C string ends the result there.
    const size_t end = out_.find('\0');
    if (end != std::string::npos) out_.resize(end);
    return out_;
  }

 private:
  void prepareSign() {
    if (d_.has(kPlusFlag) || d_.has(kMinusFlag)) {
      signWrote_ = !(d_.has(kPlusFlag) && !d_.has(kMinusFlag));  // MI/PL/SG write the sign themselves
      return;
    }
    if (sign_ != '-' && d_.has(kFill)) d_.flags &= ~kBracket;
    signWrote_ = sign_ == '+' && d_.has(kFill) && !d_.has(kLocaleSignFlag);
    if (d_.localeSign == SignPlace::kBefore && d_.pre == d_.preLocaleSign) d_.localeSign = SignPlace::kAfter;
  }

  /// FM drops trailing fraction zeros, up to the last 0 of the template.
  void findLastRelevant() {
    const size_t point = number_.find('.');
    if (point == std::string::npos) return;
    lastRelevant_ = point;
    for (size_t i = point + 1; i < number_.size(); ++i) {
      if (number_[i] != '0') lastRelevant_ = i;
    }
    if (d_.zeroEnd > outPreSpaces_) {
      const size_t lastZero = std::min(number_.size() - 1, static_cast<size_t>(d_.zeroEnd - outPreSpaces_));
      if (lastRelevant_ < lastZero) lastRelevant_ = lastZero;
    }
  }

  bool lastRelevantIsPoint() const { return lastRelevant_ != std::string::npos && number_[lastRelevant_] == '.'; }

  char current() const { return at_ < number_.size() ? number_[at_] : '\0'; }

  /// "0.1" under 9.9 shows " .1": a leading zero before the point is a blank.
  bool predecimalSpace() const {
    return !d_.has(kZeroFill) && at_ == 0 && !number_.empty() && number_[0] == '0' && d_.post != 0;
  }

  void renderPattern(Pattern pattern) {
    switch (pattern) {
      case Pattern::kNine:
      case Pattern::kZero:
      case Pattern::kPoint:
      case Pattern::kLocalePoint:
        renderDigit(pattern);
        return;
      case Pattern::kComma:
      case Pattern::kGroup:
        if (numIn_) {
          out_ += ',';
        } else if (!d_.has(kFill)) {
          out_ += ' ';
        }
        return;
      case Pattern::kCurrency:
        out_ += ' ';  // the C locale's currency symbol
        return;
      case Pattern::kRomanUpper:
      case Pattern::kRomanLower: {
        std::string roman = number_;
        if (pattern == Pattern::kRomanLower) {
          for (char& c : roman) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        out_ += d_.has(kFill) ? roman : fmt::format("{:>15}", roman);
        return;
      }
      case Pattern::kOrdinalUpper:
      case Pattern::kOrdinalLower:
        if (d_.has(kRoman) || number_.starts_with('#') || sign_ == '-' || d_.has(kDecimal)) return;
        out_ += ordinalOf(number_, pattern == Pattern::kOrdinalUpper);
        return;
      case Pattern::kMinus:
      case Pattern::kPlus: {
        // MI shows a minus, PL a plus, where the value has that sign; a blank otherwise (nothing under FM).
        const char shown = pattern == Pattern::kMinus ? '-' : '+';
        if (sign_ == shown) {
          out_ += shown;
        } else if (!d_.has(kFill)) {
          out_ += ' ';
        }
        return;
      }
      case Pattern::kSign:
        out_ += sign_;
        return;
      default:
        return;  // B, C, SP, S, PR, FM, V and EEEE print nothing here
    }
  }

  void writeLeadingSign() {
    if (d_.has(kLocaleSignFlag)) {
      if (d_.localeSign == SignPlace::kBefore) {
        out_ += sign_ == '-' ? '-' : '+';
        signWrote_ = true;
      }
    } else if (d_.has(kBracket)) {
      out_ += sign_ == '+' ? ' ' : '<';
      signWrote_ = true;
    } else if (sign_ == '+') {
      if (!d_.has(kFill)) out_ += ' ';
      signWrote_ = true;
    } else if (sign_ == '-') {
      out_ += '-';
      signWrote_ = true;
    }
  }

  void renderDigit(Pattern pattern) {
    if (d_.has(kRoman)) return;
    numIn_ = false;
    if (!signWrote_ && (numCurr_ >= outPreSpaces_ || (d_.has(kZeroFill) && d_.zeroStart == numCurr_)) &&
        (!predecimalSpace() || lastRelevantIsPoint())) {
      writeLeadingSign();
    }
    if (numCurr_ < outPreSpaces_ && (d_.zeroStart > numCurr_ || !d_.has(kZeroFill))) {
      if (!d_.has(kFill)) out_ += ' ';
    } else if (d_.has(kZeroFill) && numCurr_ < outPreSpaces_ && d_.zeroStart <= numCurr_) {
      out_ += '0';
      numIn_ = true;
    } else {
      if (current() == '.') {
        out_ += '.';
      } else if (lastRelevant_ != std::string::npos && at_ > lastRelevant_ && pattern != Pattern::kZero) {
        // a trailing fraction zero FM drops
      } else if (predecimalSpace()) {
        if (!d_.has(kFill)) {
          out_ += ' ';
        } else if (lastRelevantIsPoint()) {
          out_ += '0';
        }
      } else {
        out_ += current();
        numIn_ = true;
      }
      if (at_ < number_.size()) ++at_;
    }
    int end = numCount_ + (outPreSpaces_ > 0 ? 1 : 0) + (d_.has(kDecimal) ? 1 : 0);
    if (lastRelevant_ != std::string::npos && lastRelevant_ == at_) end = numCurr_;
    if (numCurr_ + 1 == end) {
      if (signWrote_ && d_.has(kBracket)) {
        out_ += sign_ == '+' ? ' ' : '>';
      } else if (d_.has(kLocaleSignFlag) && d_.localeSign == SignPlace::kAfter) {
        out_ += sign_ == '-' ? '-' : '+';
      }
    }
    ++numCurr_;
  }

  Description d_;
  std::string number_;
  char sign_;
  int outPreSpaces_ = 0;
  bool signWrote_ = false;
  int numCount_ = 0;
  bool numIn_ = false;
  int numCurr_ = 0;
  size_t at_ = 0;
  size_t lastRelevant_ = std::string::npos;
  std::string out_;
};

NumberString numberStringAt(const Vector& values, size_t row, Description& d) {
  const LogicalType& type = values.type();
  switch (type.id()) {
    case TypeId::kSmallInt:
    case TypeId::kInteger:
      return int4NumberString(values.data<int32_t>()[row], d);
    case TypeId::kBigInt:
      return exactNumberString(digitsOf(values.data<int64_t>()[row], 0), d, true);
    case TypeId::kDecimal: {
      const int128_t unscaled =
          type.physicalType() == PhysicalType::kInt64 ? values.data<int64_t>()[row] : values.data<int128_t>()[row];
      return exactNumberString(digitsOf(unscaled, type.scale()), d, false);
    }
    case TypeId::kDouble:
      return floatNumberString(values.data<double>()[row], type.isReal(), d);
    default:
      SHOAL_UNREACHABLE("to_char of {}", type.toString());
  }
}

}  // namespace

Vector evaluateNumberToChar(const Vector& values, const Vector& formats) {
  Vector out(LogicalType::text(), values.size());
  std::string parsedFormat;  // formats are mostly one constant: parsed again only when the text changes
  Template parsed;
  bool haveTemplate = false;
  for (size_t row = 0; row < values.size(); ++row) {
    if (values.isNull(row) || formats.isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    const std::string_view format = formats.data<StringRef>()[row].view();
    if (format.empty()) {
      out.setString(row, "");
      continue;
    }
    if (!haveTemplate || format != parsedFormat) {
      parsed = parseTemplate(format);
      parsedFormat = format;
      haveTemplate = true;
    }
    Description description = parsed.description;
    const NumberString number = numberStringAt(values, row, description);
    out.setString(row, NumberRenderer(description, number).render(parsed.nodes));
  }
  return out;
}

}  // namespace shoal::engine
