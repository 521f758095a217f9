#include "engine/types/jsonb_text.h"

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "common/stack_depth.h"
#include "common/status.h"
#include "engine/types/json_parser.h"
#include "engine/types/json_text.h"

namespace shoal::engine {

namespace {

/// A JSON number as numeric_in reads it and numeric_out prints it: the digits at their display scale,
/// which is the fraction's length minus the exponent, never negative.
void appendNumeric(std::string_view token, std::string& out) {
  const bool negative = token[0] == '-';
  if (negative) token.remove_prefix(1);
  const size_t exponentAt = token.find_first_of("eE");
  int64_t exponent = 0;
  if (exponentAt != std::string_view::npos) {
    std::string_view text = token.substr(exponentAt + 1);
    if (!text.empty() && text[0] == '+') text.remove_prefix(1);
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), exponent);
    if (error != std::errc() || exponent > 131072 || exponent < -16383) {
      SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value overflows numeric format");
    }
    token = token.substr(0, exponentAt);
  }
  const size_t pointAt = token.find('.');
  std::string digits(token.substr(0, pointAt));
  const size_t integerDigits = digits.size();
  if (pointAt != std::string_view::npos) digits += token.substr(pointAt + 1);
  const int64_t point = static_cast<int64_t>(integerDigits) + exponent;  // where the decimal point falls
  const int64_t scale = std::max<int64_t>(0, static_cast<int64_t>(digits.size()) - point);
  std::string integer;
  std::string fraction;
  if (point <= 0) {
    integer = "0";
    fraction = std::string(static_cast<size_t>(-point), '0') + digits;
  } else if (point >= static_cast<int64_t>(digits.size())) {
    integer = digits + std::string(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    integer = digits.substr(0, static_cast<size_t>(point));
    fraction = digits.substr(static_cast<size_t>(point));
  }
  fraction.resize(static_cast<size_t>(scale), '0');
  const size_t firstNonZero = integer.find_first_not_of('0');
  integer = firstNonZero == std::string::npos ? "0" : integer.substr(firstNonZero);
  const bool zero = integer == "0" && fraction.find_first_not_of('0') == std::string::npos;
  if (negative && !zero) out += '-';
  out += integer;
  if (!fraction.empty()) {
    out += '.';
    out += fraction;
  }
}

void appendCanonical(std::string_view value, std::string& out) {
  switch (jsonKindOf(value)) {
    case JsonKind::kObject: {
      checkStackDepth();
      std::vector<std::pair<std::string, std::string_view>> members;
      JsonReader reader(value);
      reader.consume('{');
      if (!reader.consume('}')) {
        do {
          std::string key = decodeJsonString(reader.readValue());
          reader.consume(':');
          members.emplace_back(std::move(key), reader.readValue());
        } while (reader.consume(','));
      }
      // Shorter keys first, then by bytes; of a repeated key the last value stays.
      std::stable_sort(members.begin(), members.end(), [](const auto& a, const auto& b) {
        if (a.first.size() != b.first.size()) return a.first.size() < b.first.size();
        return a.first < b.first;
      });
      out += '{';
      bool first = true;
      for (size_t i = 0; i < members.size(); ++i) {
        if (i + 1 < members.size() && members[i + 1].first == members[i].first) continue;
        if (!first) out += ", ";
        first = false;
        appendJsonString(members[i].first, out);
        out += ": ";
        appendCanonical(members[i].second, out);
      }
      out += '}';
      return;
    }
    case JsonKind::kArray: {
      checkStackDepth();
      JsonReader reader(value);
      reader.consume('[');
      out += '[';
      if (!reader.consume(']')) {
        bool first = true;
        do {
          if (!first) out += ", ";
          first = false;
          appendCanonical(reader.readValue(), out);
        } while (reader.consume(','));
      }
      out += ']';
      return;
    }
    case JsonKind::kString:
      appendJsonString(decodeJsonString(value), out);
      return;
    case JsonKind::kNumber:
      appendNumeric(value, out);
      return;
    default:  // true, false, null
      out += value;
  }
}

}  // namespace

std::string jsonbFromText(std::string_view text) {
  JsonReader reader(text);
  std::string_view value = reader.wholeValue();
  std::string out;
  out.reserve(text.size());
  appendCanonical(value, out);
  return out;
}

}  // namespace shoal::engine
