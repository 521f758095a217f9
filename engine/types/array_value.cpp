#include "engine/types/array_value.h"

#include <strings.h>

#include <fmt/format.h>

#include <cstring>

#include "common/byte_reader.h"
#include "common/status.h"
#include "common/varint.h"
#include "engine/types/text_format.h"
#include "engine/types/value_bytes.h"
#include "engine/vector/vector.h"

namespace shoal::engine {
namespace {

constexpr char kNullElement = 0;
constexpr char kPresentElement = 1;

bool isArraySpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/// array_out quotes an element that is empty, spells NULL, or holds a delimiter, brace, quote,
/// backslash or white space.
bool needsQuotes(std::string_view text) {
  if (text.empty() || (text.size() == 4 && strncasecmp(text.data(), "null", 4) == 0)) return true;
  for (char c : text) {
    if (c == '{' || c == '}' || c == ',' || c == '"' || c == '\\' || isArraySpace(c)) return true;
  }
  return false;
}

/// Reads array_in's text, one element at a time.
class ArrayTextParser {
 public:
  ArrayTextParser(std::string_view text, const LogicalType& arrayType, const TimeZone* zone)
      : text_(text), elementType_(arrayType.elementType()), zone_(zone) {}

  std::string parse() {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '[') {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "array bounds are not supported: \"{}\"", text_);
    }
    if (pos_ >= text_.size() || text_[pos_] != '{')
      malformed("Array value must start with \"{\" or dimension information.");
    ++pos_;
    std::vector<Value> elements;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
    } else {
      while (true) {
        elements.push_back(readElement());
        skipSpace();
        if (pos_ >= text_.size()) malformed("Unexpected end of input.");
        char c = text_[pos_++];
        if (c == '}') break;
        if (c != ',') malformed(fmt::format("Unexpected \"{}\" character.", c));
      }
    }
    skipSpace();
    if (pos_ != text_.size()) malformed("Junk after closing right brace.");
    return encodeArray(elements, elementType_);
  }

 private:
  Value readElement() {
    skipSpace();
    if (pos_ >= text_.size()) malformed("Unexpected end of input.");
    if (text_[pos_] == '{') {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "multidimensional arrays are not supported: \"{}\"", text_);
    }
    std::string element;
    if (text_[pos_] == '"') {
      ++pos_;
      while (true) {
        if (pos_ >= text_.size()) malformed("Unexpected end of input.");
        char c = text_[pos_++];
        if (c == '"') break;
        if (c == '\\') {
          if (pos_ >= text_.size()) malformed("Unexpected end of input.");
          c = text_[pos_++];
        }
        element.push_back(c);
      }
      return parseValue(element, elementType_, zone_);
    }
    bool escaped = false;
    size_t keptLength = 0;  // up to the last character that is not trailing white space
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}') {
      char c = text_[pos_++];
      if (c == '"' || c == '{') malformed(fmt::format("Unexpected \"{}\" character.", c));
      if (c == '\\') {
        if (pos_ >= text_.size()) malformed("Unexpected end of input.");
        element.push_back(text_[pos_++]);
        escaped = true;
        keptLength = element.size();
        continue;
      }
      element.push_back(c);
      if (!isArraySpace(c)) keptLength = element.size();
    }
    element.resize(keptLength);
    if (element.empty() && !escaped) malformed("Unexpected \",\" character.");
    if (!escaped && element.size() == 4 && strncasecmp(element.data(), "null", 4) == 0) {
      return Value::null(elementType_);
    }
    return parseValue(element, elementType_, zone_);
  }

  void skipSpace() {
    while (pos_ < text_.size() && isArraySpace(text_[pos_])) ++pos_;
  }

  [[noreturn]] void malformed(std::string_view detail) const {
    throw ShoalError(Status(SqlState::kInvalidTextRepresentation, fmt::format("malformed array literal: \"{}\"", text_))
                         .withDetail(std::string(detail)));
  }

  std::string_view text_;
  LogicalType elementType_;
  const TimeZone* zone_;
  size_t pos_ = 0;
};

}  // namespace

std::string encodeArray(std::span<const Value> elements, const LogicalType& elementType) {
  std::string out;
  appendVarint(out, elements.size());
  for (const Value& element : elements) {
    if (element.isNull()) {
      out.push_back(kNullElement);
      continue;
    }
    out.push_back(kPresentElement);
    appendValueBytes(out, elementType, element);
  }
  return out;
}

std::vector<Value> decodeArray(std::string_view bytes, const LogicalType& arrayType) {
  ByteReader reader(bytes, "array value");
  const LogicalType elementType = arrayType.elementType();
  size_t count = reader.readVarint();
  if (count > bytes.size()) reader.fail("element count beyond its bytes");
  std::vector<Value> elements;
  elements.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    char tag = reader.read<char>();
    if (tag == kNullElement) {
      elements.push_back(Value::null(elementType));
    } else if (tag == kPresentElement) {
      elements.push_back(readValueBytes(reader, elementType));
    } else {
      reader.fail("bad element tag");
    }
  }
  if (!reader.atEnd()) reader.fail("bytes after the last element");
  return elements;
}

size_t arrayCardinality(std::string_view bytes) {
  ByteReader reader(bytes, "array value");
  return reader.readVarint();
}

void appendArrayText(std::string_view bytes, const LogicalType& arrayType, std::string& out, const TimeZone* zone) {
  if (arrayType.isVector()) {
    // int2vector and oidvector: "1 2 3" (their elements are never NULL).
    bool first = true;
    for (const Value& element : decodeArray(bytes, arrayType)) {
      if (!first) out += ' ';
      first = false;
      out += element.toString();
    }
    return;
  }
  const std::vector<Value> elements = decodeArray(bytes, arrayType);
  if (arrayType.isZeroBased() && !elements.empty()) out += fmt::format("[0:{}]=", elements.size() - 1);
  Vector values(arrayType.elementType(), elements.size());
  for (size_t i = 0; i < elements.size(); ++i) values.setValue(i, elements[i]);
  out += '{';
  std::string text;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i > 0) out += ',';
    if (elements[i].isNull()) {
      out += "NULL";
      continue;
    }
    text.clear();
    values.appendText(i, text, zone);
    if (!needsQuotes(text)) {
      out += text;
      continue;
    }
    out += '"';
    for (char c : text) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
}

std::string parseArrayText(std::string_view text, const LogicalType& arrayType, const TimeZone* zone) {
  if (arrayType.isVector()) {
    // int2vectorin/oidvectorin: integers separated by spaces.
    std::vector<Value> elements;
    size_t at = 0;
    while (at < text.size()) {
      if (text[at] == ' ') {
        ++at;
        continue;
      }
      size_t end = text.find(' ', at);
      if (end == std::string_view::npos) end = text.size();
      elements.push_back(parseValue(text.substr(at, end - at), arrayType.elementType()));
      at = end;
    }
    return encodeArray(elements, arrayType.elementType());
  }
  return ArrayTextParser(text, arrayType, zone).parse();
}

Value makeArrayValue(std::span<const Value> elements, const LogicalType& arrayType) {
  return Value::array(arrayType, encodeArray(elements, arrayType.elementType()));
}

}  // namespace shoal::engine
