#include "engine/expression/text_functions.h"

#include <openssl/evp.h>

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "engine/types/utf8.h"

namespace shoal::engine {
namespace {

/// PostgreSQL's largest field (1 GB less its header): longer results fail with 54000.
constexpr size_t kMaxResultBytes = (size_t{1} << 30) - 5;

std::string_view text(const Vector& vector, size_t row) {
  return vector.data<StringRef>()[row].view();
}

int64_t integer(const Vector& vector, size_t row) {
  if (vector.type().id() == TypeId::kBigInt) return vector.data<int64_t>()[row];
  return vector.data<int32_t>()[row];
}

/// Byte offsets of each character's start in `value`, and its size last.
std::vector<size_t> characterOffsets(std::string_view value) {
  std::vector<size_t> offsets;
  for (size_t offset = 0; offset < value.size(); offset = utf8NextCharacter(value, offset)) offsets.push_back(offset);
  offsets.push_back(value.size());
  return offsets;
}

void checkLength(size_t bytes) {
  if (bytes > kMaxResultBytes) SHOAL_USER_FAIL(SqlState::kProgramLimitExceeded, "requested length too large");
}

/// lpad and rpad into `out`: `value` cut or filled with `fill` (repeated, cut at the last whole character) to
/// `length` characters.
void pad(std::string_view value, int64_t length, std::string_view fill, bool left, std::string& out) {
  out.clear();
  if (length <= 0) return;
  // PostgreSQL refuses a length whose worst case (4 bytes a character) passes the limit, before allocating.
  if (length > static_cast<int64_t>(kMaxResultBytes / 4)) checkLength(kMaxResultBytes + 1);
  const auto characters = static_cast<int64_t>(utf8CharacterCount(value));
  if (characters >= length || fill.empty()) {
    out.append(value.substr(0, utf8SkipCharacters(value, 0, length)));
    return;
  }
  if (!left) out.append(value);
  const int64_t missing = length - characters;
  if (fill.size() == 1) {
    out.append(static_cast<size_t>(missing), fill[0]);
  } else {
    const auto fillCharacters = static_cast<int64_t>(utf8CharacterCount(fill));
    for (int64_t done = 0; done < missing; done += fillCharacters) {
      out.append(fill.substr(0, utf8SkipCharacters(fill, 0, missing - done)));
    }
  }
  if (left) out.append(value);
}

/// btrim, ltrim and rtrim: the characters of `set` removed from the chosen ends.
std::string_view trim(std::string_view value, std::string_view set, bool leading, bool trailing) {
  std::vector<std::string_view> members;
  for (size_t offset = 0; offset < set.size();) {
    size_t next = utf8NextCharacter(set, offset);
    members.push_back(set.substr(offset, next - offset));
    offset = next;
  }
  auto isMember = [&](std::string_view character) {
    return std::find(members.begin(), members.end(), character) != members.end();
  };
  std::vector<size_t> offsets = characterOffsets(value);
  size_t first = 0;
  size_t last = offsets.size() - 1;  // one past the last character kept
  while (leading && first < last && isMember(value.substr(offsets[first], offsets[first + 1] - offsets[first]))) {
    ++first;
  }
  while (trailing && last > first && isMember(value.substr(offsets[last - 1], offsets[last] - offsets[last - 1]))) {
    --last;
  }
  return value.substr(offsets[first], offsets[last] - offsets[first]);
}

/// split_part: the field'th piece of `value` cut at `delimiter`, counting from the end when negative.
std::string_view splitPart(std::string_view value, std::string_view delimiter, int64_t field) {
  if (field == 0) SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "field position must not be zero");
  if (delimiter.empty()) return field == 1 || field == -1 ? value : std::string_view();
  if (value.empty()) return {};
  if (field < 0) {
    // Counting from the end: the number of pieces is one more than the delimiters found.
    int64_t pieces = 1;
    for (size_t found = value.find(delimiter); found != std::string_view::npos;
         found = value.find(delimiter, found + delimiter.size())) {
      ++pieces;
    }
    field += pieces + 1;
    if (field <= 0) return {};
  }
  size_t start = 0;
  for (int64_t piece = 1;; ++piece) {
    const size_t found = value.find(delimiter, start);
    if (piece == field) return value.substr(start, found == std::string_view::npos ? found : found - start);
    if (found == std::string_view::npos) return {};
    start = found + delimiter.size();
  }
}

/// left(text, n) and right(text, n): the first or last n characters; a negative n drops |n| from the other end.
std::string_view leftOrRight(std::string_view value, int64_t count, bool left) {
  std::vector<size_t> offsets = characterOffsets(value);
  const auto characters = static_cast<int64_t>(offsets.size() - 1);
  int64_t keep = count >= 0 ? std::min(count, characters) : std::max<int64_t>(characters + count, 0);
  if (left) return value.substr(0, offsets[static_cast<size_t>(keep)]);
  return value.substr(offsets[static_cast<size_t>(characters - keep)]);
}

/// Decodes the UTF-8 character at `offset` (an invalid byte decodes as itself).
char32_t decodeCharacter(std::string_view value, size_t offset, size_t length) {
  auto byte = [&](size_t i) { return static_cast<char32_t>(static_cast<unsigned char>(value[offset + i])); };
  switch (length) {
    case 2:
      return ((byte(0) & 0x1F) << 6) | (byte(1) & 0x3F);
    case 3:
      return ((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
    case 4:
      return ((byte(0) & 0x07) << 18) | ((byte(1) & 0x3F) << 12) | ((byte(2) & 0x3F) << 6) | (byte(3) & 0x3F);
    default:
      return byte(0);
  }
}

void appendCharacter(char32_t code, std::string& out) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

enum class CaseMapping { kLower, kUpper, kInitcap };

bool isAsciiAlphanumeric(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/// Appends `value` case-mapped as PostgreSQL's lower, upper and initcap do under the C locale Shoal's database
/// declares (pg_database.datctype): ASCII letters change, every other byte passes through and, for initcap,
/// ends a word (upper case after a non-alphanumeric byte, lower case elsewhere).
void appendCaseMapped(std::string_view value, CaseMapping mapping, std::string& out) {
  bool wordStart = true;
  for (char c : value) {
    const auto byte = static_cast<unsigned char>(c);
    const bool upper = mapping == CaseMapping::kUpper || (mapping == CaseMapping::kInitcap && wordStart);
    if (upper && byte >= 'a' && byte <= 'z') c = static_cast<char>(byte - 'a' + 'A');
    if (!upper && byte >= 'A' && byte <= 'Z') c = static_cast<char>(byte - 'A' + 'a');
    out.push_back(c);
    wordStart = !isAsciiAlphanumeric(byte);
  }
}

std::string md5Hex(std::string_view value) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  SHOAL_CHECK(EVP_Digest(value.data(), value.size(), digest, &size, EVP_md5(), nullptr) == 1, "MD5 failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 0xF]);
  }
  return hex;
}

std::string toHex(uint64_t value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  do {
    hex.push_back(kHex[value & 0xF]);
    value >>= 4;
  } while (value != 0);
  std::reverse(hex.begin(), hex.end());
  return hex;
}

std::string chr(int64_t code) {
  if (code < 0) SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "character number must be positive");
  if (code == 0) SHOAL_USER_FAIL(SqlState::kProgramLimitExceeded, "null character not permitted");
  if (code > 0x10FFFF) {
    SHOAL_USER_FAIL(SqlState::kProgramLimitExceeded, "requested character too large for encoding: {}", code);
  }
  if (code >= 0xD800 && code <= 0xDFFF) {
    SHOAL_USER_FAIL(SqlState::kProgramLimitExceeded, "requested character not valid for encoding: {}", code);
  }
  std::string out;
  appendCharacter(static_cast<char32_t>(code), out);
  return out;
}

/// concat and concat_ws: the non-NULL values of `arguments` from `first` on, `separator` between them.
std::string concatenate(std::span<const Vector* const> arguments, size_t first, std::string_view separator,
                        size_t row) {
  std::string joined;
  bool any = false;
  for (size_t i = first; i < arguments.size(); ++i) {
    if (arguments[i]->isNull(row)) continue;
    if (any) joined.append(separator);
    joined.append(text(*arguments[i], row));
    any = true;
    checkLength(joined.size());
  }
  return joined;
}

bool skipsNulls(ScalarFunction function) {
  return function == ScalarFunction::kConcatValues || function == ScalarFunction::kConcatWithSeparator;
}

}  // namespace

LogicalType textFunctionResultType(ScalarFunction function) {
  switch (function) {
    case ScalarFunction::kStrpos:
    case ScalarFunction::kAscii:
      return LogicalType::integer();
    case ScalarFunction::kStartsWith:
      return LogicalType::boolean();
    case ScalarFunction::kRegexMatchArray:
      return LogicalType::array(LogicalType::text());
    default:
      return LogicalType::text();
  }
}

void appendLowerCase(std::string_view value, std::string& out) {
  appendCaseMapped(value, CaseMapping::kLower, out);
}

void appendUpperCase(std::string_view value, std::string& out) {
  appendCaseMapped(value, CaseMapping::kUpper, out);
}

Vector evaluateTextFunction(ScalarFunction function, std::span<const Vector* const> arguments, size_t rows) {
  Vector out(textFunctionResultType(function), rows);
  if (!skipsNulls(function)) {
    for (const Vector* argument : arguments) out.validity().intersect(argument->validity());
  } else if (function == ScalarFunction::kConcatWithSeparator) {
    out.validity() = arguments[0]->validity();
  }
  const Vector& first = *arguments[0];
  std::string buffer;
  for (size_t row = 0; row < rows; ++row) {
    if (out.isNull(row)) continue;
    auto argument = [&](size_t i) { return text(*arguments[i], row); };
    switch (function) {
      case ScalarFunction::kConcatValues:
        out.setString(row, concatenate(arguments, 0, {}, row));
        break;
      case ScalarFunction::kConcatWithSeparator:
        out.setString(row, concatenate(arguments, 1, argument(0), row));
        break;
      case ScalarFunction::kLeftPad:
      case ScalarFunction::kRightPad:
        pad(argument(0), integer(*arguments[1], row), argument(2), function == ScalarFunction::kLeftPad, buffer);
        out.setString(row, buffer);
        break;
      case ScalarFunction::kTrimBoth:
      case ScalarFunction::kTrimLeading:
      case ScalarFunction::kTrimTrailing:
        out.setString(row, trim(argument(0), argument(1), function != ScalarFunction::kTrimTrailing,
                                function != ScalarFunction::kTrimLeading));
        break;
      case ScalarFunction::kSplitPart:
        out.setString(row, splitPart(argument(0), argument(1), integer(*arguments[2], row)));
        break;
      case ScalarFunction::kStrpos: {
        std::string_view haystack = argument(0);
        size_t found = haystack.find(argument(1));
        out.data<int32_t>()[row] = found == std::string_view::npos
                                       ? 0
                                       : static_cast<int32_t>(utf8CharacterCount(haystack.substr(0, found)) + 1);
        break;
      }
      case ScalarFunction::kInitcap:
        buffer.clear();
        appendCaseMapped(argument(0), CaseMapping::kInitcap, buffer);
        out.setString(row, buffer);
        break;
      case ScalarFunction::kReverse: {
        std::string_view value = argument(0);
        buffer.clear();
        std::vector<size_t> offsets = characterOffsets(value);
        for (size_t i = offsets.size() - 1; i > 0; --i)
          buffer.append(value.substr(offsets[i - 1], offsets[i] - offsets[i - 1]));
        out.setString(row, buffer);
        break;
      }
      case ScalarFunction::kMd5:
        out.setString(row, md5Hex(argument(0)));
        break;
      case ScalarFunction::kRepeat: {
        const int64_t count = std::max<int64_t>(integer(*arguments[1], row), 0);
        std::string_view value = argument(0);
        if (!value.empty() && static_cast<uint64_t>(count) > kMaxResultBytes / value.size())
          checkLength(kMaxResultBytes + 1);
        buffer.clear();
        for (int64_t i = 0; i < count; ++i) buffer.append(value);
        out.setString(row, buffer);
        break;
      }
      case ScalarFunction::kStartsWith:
        out.data<uint8_t>()[row] = argument(0).starts_with(argument(1)) ? 1 : 0;
        break;
      case ScalarFunction::kLeft:
      case ScalarFunction::kRight:
        out.setString(row, leftOrRight(argument(0), integer(*arguments[1], row), function == ScalarFunction::kLeft));
        break;
      case ScalarFunction::kAscii: {
        std::string_view value = argument(0);
        out.data<int32_t>()[row] =
            value.empty()
                ? 0
                : static_cast<int32_t>(decodeCharacter(value, 0, std::min(utf8SequenceLength(value[0]), value.size())));
        break;
      }
      case ScalarFunction::kChr:
        out.setString(row, chr(integer(first, row)));
        break;
      case ScalarFunction::kToHex: {
        const int64_t value = integer(first, row);
        // A negative integer prints as its two's complement in the argument's width.
        out.setString(row, toHex(first.type().id() == TypeId::kBigInt ? static_cast<uint64_t>(value)
                                                                      : static_cast<uint32_t>(value)));
        break;
      }
      default:
        SHOAL_UNREACHABLE("not a text function");
    }
  }
  return out;
}

}  // namespace shoal::engine
