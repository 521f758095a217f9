#include "engine/types/json_parser.h"

#include <charconv>
#include <vector>

#include "common/stack_depth.h"
#include "common/status.h"

namespace shoal::engine {

namespace {

constexpr std::string_view kUntranslatableCharacter = "22P05";

bool isJsonSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void appendUtf8(uint32_t code, std::string& out) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

[[noreturn]] void failJsonSyntax(std::string_view detail) {
  throw ShoalError(Status(SqlState::kInvalidTextRepresentation, "invalid input syntax for type json")
                       .withDetail(std::string(detail)));
}

/// Where the token that starts at `position` ends: at whitespace or JSON punctuation.
size_t tokenEnd(std::string_view text, size_t position) {
  while (position < text.size() && !isJsonSpace(text[position]) &&
         std::string_view("{}[],:\"").find(text[position]) == std::string_view::npos) {
    ++position;
  }
  return position;
}

/// Calls `visit(valueText)` for each element of an array, or `visit(valueText, keyText)` for each member of
/// an object; the text was validated when it was stored.
template <class Visit>
void forEachMember(std::string_view container, Visit&& visit) {
  JsonReader reader(container);
  const bool object = reader.consume('{');
  if (!object && !reader.consume('[')) return;
  if (reader.consume(object ? '}' : ']')) return;
  do {
    std::string_view key;
    if (object) {
      key = reader.readValue();
      reader.consume(':');
    }
    visit(reader.readValue(), key);
  } while (reader.consume(','));
}

}  // namespace

std::string_view jsonKindName(JsonKind kind) {
  switch (kind) {
    case JsonKind::kObject:
      return "object";
    case JsonKind::kArray:
      return "array";
    case JsonKind::kString:
      return "string";
    case JsonKind::kNumber:
      return "number";
    case JsonKind::kBoolean:
      return "boolean";
    case JsonKind::kNull:
      return "null";
  }
  return "null";
}

void JsonReader::fail(std::string_view detail) const {
  failJsonSyntax(detail);
}

void JsonReader::skipSpace() {
  while (position_ < text_.size() && isJsonSpace(text_[position_])) ++position_;
}

bool JsonReader::consume(char c) {
  skipSpace();
  if (position_ < text_.size() && text_[position_] == c) {
    ++position_;
    return true;
  }
  return false;
}

std::string_view JsonReader::wholeValue() {
  std::string_view value = readValue();
  skipSpace();
  if (!atEnd()) {
    // PostgreSQL names the token that follows: a word, or one character.
    const size_t end = tokenEnd(text_, position_);
    fail(fmt::format("Token \"{}\" is invalid.", text_.substr(position_, std::max<size_t>(end - position_, 1))));
  }
  return value;
}

std::string_view JsonReader::readValue() {
  skipSpace();
  if (atEnd()) fail("The input string ended unexpectedly.");
  const size_t begin = position_;
  const char c = text_[position_];
  if (c == '{' || c == '[') {
    checkStackDepth();
    const bool object = c == '{';
    const char close = object ? '}' : ']';
    ++position_;
    if (!consume(close)) {
      do {
        if (object) {
          skipSpace();
          if (atEnd()) fail("The input string ended unexpectedly.");
          if (text_[position_] != '"') {
            fail(fmt::format("Expected string or \"}}\", but found \"{}\".", text_.substr(position_, 1)));
          }
          readString();
          if (!consume(':')) {
            if (atEnd()) fail("The input string ended unexpectedly.");
            fail(fmt::format("Expected \":\", but found \"{}\".", text_.substr(position_, 1)));
          }
        }
        skipSpace();
        if (!atEnd() && (text_[position_] == ']' || text_[position_] == '}' || text_[position_] == ',')) {
          fail(fmt::format("Expected JSON value, but found \"{}\".", text_.substr(position_, 1)));
        }
        readValue();
      } while (consume(','));
      if (!consume(close)) {
        if (atEnd()) fail("The input string ended unexpectedly.");
        fail(fmt::format("Expected \",\" or \"{}\", but found \"{}\".", close, text_.substr(position_, 1)));
      }
    }
  } else if (c == '"') {
    readString();
  } else if (c == '-' || isDigit(c)) {
    readNumber();
  } else {
    readWord();
  }
  return text_.substr(begin, position_ - begin);
}

void JsonReader::readString() {
  ++position_;  // the opening quote
  while (true) {
    if (atEnd()) fail("The input string ended unexpectedly.");
    const char c = text_[position_];
    if (c == '"') {
      ++position_;
      return;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      fail(fmt::format("Character with value 0x{:02x} must be escaped.", static_cast<unsigned char>(c)));
    }
    if (c == '\\') {
      if (position_ + 1 >= text_.size()) fail("The input string ended unexpectedly.");
      const char escape = text_[position_ + 1];
      if (escape == 'u') {
        for (size_t i = 2; i < 6; ++i) {
          if (position_ + i >= text_.size() || hexDigit(text_[position_ + i]) < 0) {
            fail("\"\\u\" must be followed by four hexadecimal digits.");
          }
        }
        position_ += 6;
        continue;
      }
      if (std::string_view("\"\\/bfnrt").find(escape) == std::string_view::npos) {
        fail(fmt::format("Escape sequence \"\\{}\" is invalid.", escape));
      }
      position_ += 2;
      continue;
    }
    ++position_;
  }
}

void JsonReader::readNumber() {
  // The token runs to the next delimiter; then it must be -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
  const size_t begin = position_;
  const size_t end = tokenEnd(text_, position_);
  std::string_view token = text_.substr(begin, end - begin);
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < token.size() && isDigit(token[i])) ++i;
    return i - start;
  };
  bool valid = true;
  if (i < token.size() && token[i] == '-') ++i;
  if (i < token.size() && token[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    valid = false;
  }
  if (valid && i < token.size() && token[i] == '.') {
    ++i;
    valid = digits() > 0;
  }
  if (valid && i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
    valid = digits() > 0;
  }
  if (!valid || i != token.size()) fail(fmt::format("Token \"{}\" is invalid.", token));
  position_ = end;
}

void JsonReader::readWord() {
  const size_t end = tokenEnd(text_, position_);
  std::string_view word = text_.substr(position_, end - position_);
  if (word != "true" && word != "false" && word != "null") {
    if (word.empty()) fail(fmt::format("Expected JSON value, but found \"{}\".", text_.substr(position_, 1)));
    fail(fmt::format("Token \"{}\" is invalid.", word));
  }
  position_ = end;
}

JsonKind jsonKindOf(std::string_view value) {
  switch (value.empty() ? 'n' : value[0]) {
    case '{':
      return JsonKind::kObject;
    case '[':
      return JsonKind::kArray;
    case '"':
      return JsonKind::kString;
    case 't':
    case 'f':
      return JsonKind::kBoolean;
    case 'n':
      return JsonKind::kNull;
    default:
      return JsonKind::kNumber;
  }
}

std::string decodeJsonString(std::string_view quoted) {
  std::string out;
  out.reserve(quoted.size());
  for (size_t i = 1; i + 1 < quoted.size(); ++i) {
    const char c = quoted[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    const char escape = quoted[++i];
    switch (escape) {
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        auto hex4 = [&](size_t at) {
          uint32_t code = 0;
          for (size_t k = 0; k < 4; ++k) code = code * 16 + static_cast<uint32_t>(hexDigit(quoted[at + k]));
          return code;
        };
        uint32_t code = hex4(i + 1);
        i += 4;
        if (code >= 0xD800 && code <= 0xDBFF) {
          if (i + 6 < quoted.size() && quoted[i + 1] == '\\' && quoted[i + 2] == 'u') {
            uint32_t low = hex4(i + 3);
            if (low >= 0xDC00 && low <= 0xDFFF) {
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
              i += 6;
              appendUtf8(code, out);
              break;
            }
          }
          failJsonSyntax("Unicode low surrogate must follow a high surrogate.");
        }
        if (code >= 0xDC00 && code <= 0xDFFF) failJsonSyntax("Unicode low surrogate must follow a high surrogate.");
        if (code == 0) {
          throw ShoalError(Status(kUntranslatableCharacter, "unsupported Unicode escape sequence")
                               .withDetail("\\u0000 cannot be converted to text."));
        }
        appendUtf8(code, out);
        break;
      }
      default:  // " \ /
        out += escape;
    }
  }
  return out;
}

std::optional<std::string_view> jsonObjectField(std::string_view object, std::string_view key) {
  if (jsonKindOf(object) != JsonKind::kObject) return std::nullopt;
  std::optional<std::string_view> found;
  forEachMember(object, [&](std::string_view value, std::string_view quotedKey) {
    // Most keys have no escapes: compare the text between the quotes first.
    std::string_view raw = quotedKey.substr(1, quotedKey.size() - 2);
    if (raw.find('\\') == std::string_view::npos ? raw == key : decodeJsonString(quotedKey) == key) found = value;
  });
  return found;
}

std::optional<std::string_view> jsonArrayElement(std::string_view array, int64_t index) {
  if (jsonKindOf(array) != JsonKind::kArray) return std::nullopt;
  std::vector<std::string_view> elements;
  forEachMember(array, [&](std::string_view value, std::string_view) { elements.push_back(value); });
  const auto count = static_cast<int64_t>(elements.size());
  if (index < 0) index += count;
  if (index < 0 || index >= count) return std::nullopt;
  return elements[static_cast<size_t>(index)];
}

std::optional<std::string_view> jsonPathStep(std::string_view value, std::string_view step) {
  if (jsonKindOf(value) == JsonKind::kObject) return jsonObjectField(value, step);
  if (jsonKindOf(value) != JsonKind::kArray) return std::nullopt;
  // PostgreSQL reads the index with strtol: leading whitespace and a + sign are allowed.
  while (!step.empty() && (step[0] == ' ' || (step[0] >= '\t' && step[0] <= '\r'))) step.remove_prefix(1);
  if (step.size() > 1 && step[0] == '+' && step[1] != '-') step.remove_prefix(1);
  int64_t index = 0;
  auto [end, error] = std::from_chars(step.data(), step.data() + step.size(), index);
  if (error != std::errc() || end != step.data() + step.size()) return std::nullopt;
  return jsonArrayElement(value, index);
}

}  // namespace shoal::engine
