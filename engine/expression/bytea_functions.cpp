#include "engine/expression/bytea_functions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/check.h"
#include "common/status.h"

namespace shoal::engine {
namespace {

enum class Encoding { kHex, kBase64, kEscape };

Encoding encodingNamed(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "hex") return Encoding::kHex;
  if (lower == "base64") return Encoding::kBase64;
  if (lower == "escape") return Encoding::kEscape;
  SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "unrecognized encoding: \"{}\"", name);
}

constexpr std::string_view kHexDigits = "0123456789abcdef";
constexpr std::string_view kBase64Digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr size_t kBase64LineLength = 76;  // pg_base64_encode starts a new line after this many characters

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void encode(std::string_view bytes, Encoding encoding, std::string& out) {
  switch (encoding) {
    case Encoding::kHex:
      for (unsigned char c : bytes) {
        out += kHexDigits[c >> 4];
        out += kHexDigits[c & 15];
      }
      return;
    case Encoding::kEscape:
      for (unsigned char c : bytes) {
        if (c == 0 || c >= 0x80) {
          out += fmt::format("\\{:03o}", c);
        } else if (c == '\\') {
          out += "\\\\";
        } else {
          out += static_cast<char>(c);
        }
      }
      return;
    case Encoding::kBase64: {
      size_t lineStart = out.size();
      for (size_t i = 0; i < bytes.size(); i += 3) {
        uint32_t group = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        if (i + 1 < bytes.size()) group |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        if (i + 2 < bytes.size()) group |= static_cast<unsigned char>(bytes[i + 2]);
        if (out.size() - lineStart >= kBase64LineLength) {
          out += '\n';
          lineStart = out.size();
        }
        out += kBase64Digits[(group >> 18) & 63];
        out += kBase64Digits[(group >> 12) & 63];
        out += i + 1 < bytes.size() ? kBase64Digits[(group >> 6) & 63] : '=';
        out += i + 2 < bytes.size() ? kBase64Digits[group & 63] : '=';
      }
      return;
    }
  }
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid hexadecimal digit: \"{}\"", std::string_view(&c, 1));
}

void decodeHex(std::string_view text, std::string& out) {
  for (size_t i = 0; i < text.size();) {
    if (isSpace(text[i])) {
      ++i;
      continue;
    }
    const int high = hexValue(text[i]);
    if (i + 1 >= text.size()) {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid hexadecimal data: odd number of digits");
    }
    out += static_cast<char>(high << 4 | hexValue(text[i + 1]));
    i += 2;
  }
}

void decodeBase64(std::string_view text, std::string& out) {
  uint32_t group = 0;
  int digits = 0;  // in the current group of four
  int end = 0;     // the bytes the last group keeps once "=" was seen: 1 after "xx=", 2 after "xxx="
  for (char c : text) {
    if (isSpace(c)) continue;
    uint32_t value = 0;
    if (c == '=') {
      if (end == 0) {
        if (digits != 2 && digits != 3) {
          SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "unexpected \"=\" while decoding base64 sequence");
        }
        end = digits - 1;
      }
    } else {
      const size_t found = kBase64Digits.find(c);
      if (found == std::string_view::npos) {
        SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid symbol \"{}\" found while decoding base64 sequence",
                        std::string_view(&c, 1));
      }
      value = static_cast<uint32_t>(found);
    }
    group = group << 6 | value;
    if (++digits == 4) {
      out += static_cast<char>(group >> 16);
      if (end == 0 || end > 1) out += static_cast<char>((group >> 8) & 255);
      if (end == 0 || end > 2) out += static_cast<char>(group & 255);
      group = 0;
      digits = 0;
    }
  }
  if (digits != 0) {
    throw ShoalError(Status(SqlState::kInvalidParameterValue, "invalid base64 end sequence")
                         .withHint("Input data is missing padding, is truncated, or is otherwise corrupted."));
  }
}

bool isOctal(char c) {
  return c >= '0' && c <= '7';
}

void decodeEscape(std::string_view text, std::string& out) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '3' && isOctal(text[i + 2]) &&
               isOctal(text[i + 3])) {
      out += static_cast<char>((text[i + 1] - '0') << 6 | (text[i + 2] - '0') << 3 | (text[i + 3] - '0'));
      i += 3;
    } else {
      SHOAL_USER_FAIL(SqlState::kInvalidTextRepresentation, "invalid input syntax for type bytea");
    }
  }
}

/// substring's bytes from 1-based `start` for `count` (all the rest without one), as bytea_substring cuts them.
std::string_view substring(std::string_view bytes, int64_t start, std::optional<int64_t> count) {
  if (count && *count < 0) SHOAL_USER_FAIL(SqlState::kSubstringError, "negative substring length not allowed");
  const int64_t first = std::max<int64_t>(start, 1);
  const int64_t end = count ? start + *count : static_cast<int64_t>(bytes.size()) + 1;  // exclusive, 1-based
  if (end <= first || first > static_cast<int64_t>(bytes.size())) return {};
  const int64_t last = std::min<int64_t>(end, static_cast<int64_t>(bytes.size()) + 1);
  return bytes.substr(static_cast<size_t>(first - 1), static_cast<size_t>(last - first));
}

}  // namespace

Vector evaluateByteaFunction(ScalarFunction function, std::span<const Vector* const> arguments, size_t rows) {
  const LogicalType resultType = function == ScalarFunction::kOctetLength   ? LogicalType::integer()
                                 : function == ScalarFunction::kByteaEncode ? LogicalType::text()
                                                                            : LogicalType::bytea();
  Vector out(resultType, rows);
  for (const Vector* argument : arguments) out.validity().intersect(argument->validity());
  std::string buffer;
  for (size_t row = 0; row < rows; ++row) {
    if (out.isNull(row)) continue;
    const std::string_view bytes = arguments[0]->data<StringRef>()[row].view();
    switch (function) {
      case ScalarFunction::kOctetLength:
        out.data<int32_t>()[row] = static_cast<int32_t>(bytes.size());
        break;
      case ScalarFunction::kByteaEncode:
      case ScalarFunction::kByteaDecode: {
        const Encoding encoding = encodingNamed(arguments[1]->data<StringRef>()[row].view());
        buffer.clear();
        if (function == ScalarFunction::kByteaEncode) {
          encode(bytes, encoding, buffer);
        } else if (encoding == Encoding::kHex) {
          decodeHex(bytes, buffer);
        } else if (encoding == Encoding::kBase64) {
          decodeBase64(bytes, buffer);
        } else {
          decodeEscape(bytes, buffer);
        }
        out.setString(row, buffer);
        break;
      }
      case ScalarFunction::kByteaSubstring: {
        std::optional<int64_t> count;
        if (arguments.size() > 2) count = arguments[2]->data<int32_t>()[row];
        out.setString(row, substring(bytes, arguments[1]->data<int32_t>()[row], count));
        break;
      }
      default:
        SHOAL_UNREACHABLE("{} is no bytea function", scalarFunctionName(function));
    }
  }
  return out;
}

}  // namespace shoal::engine
