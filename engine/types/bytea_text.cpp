#include "engine/types/bytea_text.h"

#include "common/sql_state.h"
#include "common/status.h"

namespace shoal::engine {

namespace {

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool isHexSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/// The UTF-8 character at `position`, for the message naming a bad digit.
std::string_view characterAt(std::string_view text, size_t position) {
  size_t length = 1;
  const auto lead = static_cast<unsigned char>(text[position]);
  if (lead >= 0xF0) {
    length = 4;
  } else if (lead >= 0xE0) {
    length = 3;
  } else if (lead >= 0xC0) {
    length = 2;
  }
  return text.substr(position, length);
}

std::string decodeHex(std::string_view digits) {
  std::string bytes;
  bytes.reserve(digits.size() / 2);
  size_t position = 0;
  auto digitAt = [&](size_t at) {
    const int value = hexDigit(digits[at]);
    if (value < 0) {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid hexadecimal digit: \"{}\"", characterAt(digits, at));
    }
    return value;
  };
  while (position < digits.size()) {
    if (isHexSpace(digits[position])) {
      ++position;
      continue;
    }
    const int high = digitAt(position++);
    if (position >= digits.size()) {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid hexadecimal data: odd number of digits");
    }
    const int low = digitAt(position++);
    bytes.push_back(static_cast<char>(high * 16 + low));
  }
  return bytes;
}

bool isOctal(char c, char highest) {
  return c >= '0' && c <= highest;
}

}  // namespace

std::string parseBytea(std::string_view text) {
  if (text.size() >= 2 && text[0] == '\\' && text[1] == 'x') return decodeHex(text.substr(2));
  std::string bytes;
  bytes.reserve(text.size());
  for (size_t position = 0; position < text.size();) {
    if (text[position] != '\\') {
      bytes.push_back(text[position++]);
    } else if (position + 3 < text.size() && isOctal(text[position + 1], '3') && isOctal(text[position + 2], '7') &&
               isOctal(text[position + 3], '7')) {
      bytes.push_back(static_cast<char>((text[position + 1] - '0') * 64 + (text[position + 2] - '0') * 8 +
                                        (text[position + 3] - '0')));
      position += 4;
    } else if (position + 1 < text.size() && text[position + 1] == '\\') {
      bytes.push_back('\\');
      position += 2;
    } else {
      SHOAL_USER_FAIL(SqlState::kInvalidTextRepresentation, "invalid input syntax for type bytea");
    }
  }
  return bytes;
}

void appendByteaText(std::string_view bytes, std::string& out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out.reserve(out.size() + 2 + 2 * bytes.size());
  out += "\\x";
  for (char byte : bytes) {
    const auto value = static_cast<unsigned char>(byte);
    out += kDigits[value >> 4];
    out += kDigits[value & 0xF];
  }
}

}  // namespace shoal::engine
