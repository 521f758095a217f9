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

namespace {

/// The items of a container's text: elements, or keys and values.
struct JsonbItems {
  std::vector<std::string_view> keys;
  std::vector<std::string_view> values;
};

JsonbItems itemsOf(std::string_view container, bool object) {
  JsonbItems items;
  JsonReader reader(container);
  reader.consume(object ? '{' : '[');
  if (reader.consume(object ? '}' : ']')) return items;
  do {
    if (object) {
      items.keys.push_back(reader.readValue());
      reader.consume(':');
    }
    items.values.push_back(reader.readValue());
  } while (reader.consume(','));
  return items;
}

/// PostgreSQL's jbvType order: null, string, numeric, boolean, then array and object.
int kindRank(JsonKind kind) {
  switch (kind) {
    case JsonKind::kNull:
      return 0;
    case JsonKind::kString:
      return 1;
    case JsonKind::kNumber:
      return 2;
    case JsonKind::kBoolean:
      return 3;
    case JsonKind::kArray:
      return 4;
    case JsonKind::kObject:
      return 5;
  }
  return 0;
}

int sign(int64_t value) {
  return value < 0 ? -1 : value > 0 ? 1 : 0;
}

/// Compares two numbers in numeric's printed form (no exponent): by sign, then digits around the point.
int compareNumericText(std::string_view a, std::string_view b) {
  const bool negativeA = a[0] == '-';
  const bool negativeB = b[0] == '-';
  if (negativeA) a.remove_prefix(1);
  if (negativeB) b.remove_prefix(1);
  auto split = [](std::string_view text) {
    const size_t point = text.find('.');
    std::string_view integer = text.substr(0, point);
    std::string_view fraction = point == std::string_view::npos ? std::string_view{} : text.substr(point + 1);
    integer.remove_prefix(std::min(integer.find_first_not_of('0'), integer.size()));
    fraction = fraction.substr(0, fraction.find_last_not_of('0') + 1);
    return std::pair{integer, fraction};
  };
  auto [integerA, fractionA] = split(a);
  auto [integerB, fractionB] = split(b);
  const bool zeroA = integerA.empty() && fractionA.empty();
  const bool zeroB = integerB.empty() && fractionB.empty();
  const int signA = zeroA ? 0 : negativeA ? -1 : 1;
  const int signB = zeroB ? 0 : negativeB ? -1 : 1;
  if (signA != signB) return signA < signB ? -1 : 1;
  int magnitude = 0;
  if (integerA.size() != integerB.size()) {
    magnitude = integerA.size() < integerB.size() ? -1 : 1;
  } else if (int order = integerA.compare(integerB); order != 0) {
    magnitude = sign(order);
  } else {
    magnitude = sign(fractionA.compare(fractionB));  // trailing zeros removed: plain byte order is numeric order
  }
  return signA < 0 ? -magnitude : magnitude;
}

int compareScalars(JsonKind kind, std::string_view a, std::string_view b) {
  switch (kind) {
    case JsonKind::kString:
      return sign(decodeJsonString(a).compare(decodeJsonString(b)));
    case JsonKind::kNumber:
      return compareNumericText(a, b);
    case JsonKind::kBoolean:
      return a == b ? 0 : a == "false" ? -1 : 1;
    default:
      return 0;  // null
  }
}

/// One position of the parallel walk: two values, each a scalar or a nested container (never raw scalars).
int compareValues(std::string_view a, std::string_view b);

int compareContainers(std::string_view a, std::string_view b, bool rawA, bool rawB) {
  const bool object = jsonKindOf(a) == JsonKind::kObject;
  JsonbItems itemsA = rawA ? JsonbItems{{}, {a}} : itemsOf(a, object);
  JsonbItems itemsB = rawB ? JsonbItems{{}, {b}} : itemsOf(b, object);
  int result = rawA != rawB ? (rawA ? -1 : 1) : 0;
  if (itemsA.values.size() != itemsB.values.size()) result = itemsA.values.size() < itemsB.values.size() ? -1 : 1;
  if (result != 0) return result;
  checkStackDepth();
  for (size_t i = 0; i < itemsA.values.size(); ++i) {
    if (object) {
      if (int order = compareScalars(JsonKind::kString, itemsA.keys[i], itemsB.keys[i]); order != 0) return order;
    }
    if (int order = compareValues(itemsA.values[i], itemsB.values[i]); order != 0) return order;
  }
  return 0;
}

int compareValues(std::string_view a, std::string_view b) {
  const JsonKind kindA = jsonKindOf(a);
  const JsonKind kindB = jsonKindOf(b);
  if (kindA != kindB) return kindRank(kindA) < kindRank(kindB) ? -1 : 1;
  if (kindA == JsonKind::kArray || kindA == JsonKind::kObject) return compareContainers(a, b, false, false);
  return compareScalars(kindA, a, b);
}

}  // namespace

int compareJsonb(std::string_view left, std::string_view right) {
  // At the top a scalar is a "raw scalar" array of one element.
  const JsonKind kindA = jsonKindOf(left);
  const JsonKind kindB = jsonKindOf(right);
  const bool rawA = kindA != JsonKind::kArray && kindA != JsonKind::kObject;
  const bool rawB = kindB != JsonKind::kArray && kindB != JsonKind::kObject;
  const bool objectA = kindA == JsonKind::kObject;
  const bool objectB = kindB == JsonKind::kObject;
  if (objectA != objectB) return objectA ? 1 : -1;  // an object against an array (raw or not)
  return compareContainers(left, right, rawA, rawB);
}

namespace {

void appendBigEndian32(uint32_t value, std::string& out) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((value >> shift) & 0xFF);
}

/// A number in numeric's printed form as order-preserving bytes: zero; or a sign, the power of ten of the
/// first significant digit (biased), and the significant digits, ended; negative numbers inverted.
void appendNumberKey(std::string_view text, std::string& out) {
  const bool negative = text[0] == '-';
  if (negative) text.remove_prefix(1);
  const size_t point = text.find('.');
  std::string digits(text.substr(0, point));
  int64_t exponent = static_cast<int64_t>(digits.size());
  if (point != std::string_view::npos) digits += text.substr(point + 1);
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    out += '\x01';
    return;
  }
  exponent -= static_cast<int64_t>(first);
  digits = digits.substr(first, digits.find_last_not_of('0') + 1 - first);
  std::string key;
  appendBigEndian32(static_cast<uint32_t>(exponent + (int64_t{1} << 31)), key);
  key += digits;
  key += '\0';
  if (negative) {
    for (char& c : key) c = static_cast<char>(~static_cast<unsigned char>(c));
  }
  out += negative ? '\x00' : '\x02';
  out += key;
}

void appendElementKey(std::string_view value, std::string& out);

void appendContainerKey(std::string_view container, std::string& out) {
  const bool object = jsonKindOf(container) == JsonKind::kObject;
  JsonbItems items = itemsOf(container, object);
  out += object ? '\x06' : '\x05';
  appendBigEndian32(static_cast<uint32_t>(items.values.size()), out);
  checkStackDepth();
  for (size_t i = 0; i < items.values.size(); ++i) {
    if (object) {
      out += decodeJsonString(items.keys[i]);  // jsonb strings hold no NUL: it ends them
      out += '\0';
    }
    appendElementKey(items.values[i], out);
  }
}

/// Each kind starts with its rank, so kinds order as compareJsonb orders them.
void appendElementKey(std::string_view value, std::string& out) {
  switch (jsonKindOf(value)) {
    case JsonKind::kNull:
      out += '\x01';
      return;
    case JsonKind::kString:
      out += '\x02';
      out += decodeJsonString(value);
      out += '\0';
      return;
    case JsonKind::kNumber:
      out += '\x03';
      appendNumberKey(value, out);
      return;
    case JsonKind::kBoolean:
      out += '\x04';
      out += value == "true" ? '\x01' : '\x00';
      return;
    default:
      appendContainerKey(value, out);
  }
}

}  // namespace

std::string jsonbSortKey(std::string_view jsonb) {
  std::string out;
  const JsonKind kind = jsonKindOf(jsonb);
  if (kind == JsonKind::kObject) {
    appendContainerKey(jsonb, out);
    return out;
  }
  // Arrays and top-level scalars (arrays of one): the length, then real arrays after raw scalars.
  const bool raw = kind != JsonKind::kArray;
  out += '\x05';
  if (raw) {
    appendBigEndian32(1, out);
    out += '\x00';
    appendElementKey(jsonb, out);
    return out;
  }
  std::string body;
  appendContainerKey(jsonb, body);
  out += body.substr(1, 4);
  out += '\x01';
  out += body.substr(5);
  return out;
}

}  // namespace shoal::engine
