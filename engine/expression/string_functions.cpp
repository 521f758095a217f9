#include "engine/expression/string_functions.h"

#include <algorithm>
#include <optional>

#include "common/status.h"
#include "engine/expression/text_functions.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/utf8.h"

namespace shoal::engine {
namespace {

/// PostgreSQL's text_substr: characters [start, start + length) of `text`, clipped to the text.
std::string_view substring(std::string_view text, int64_t start, std::optional<int64_t> length) {
  if (length.has_value() && *length < 0) {
    SHOAL_USER_FAIL(SqlState::kSubstringError, "negative substring length not allowed");
  }
  // Positions before the first character still use up the length: the end stays at start + length.
  int64_t first = std::max<int64_t>(start, 1);
  size_t begin = utf8SkipCharacters(text, 0, first - 1);
  if (!length.has_value()) return text.substr(begin);
  int64_t count = start + *length - first;
  if (count <= 0) return {};
  return text.substr(begin, utf8SkipCharacters(text, begin, count) - begin);
}

}  // namespace

Vector evaluateReplace(const Vector& text, const Vector& from, const Vector& to) {
  Vector out(LogicalType::text(), text.size());
  out.validity() = text.validity();
  out.validity().intersect(from.validity());
  out.validity().intersect(to.validity());
  std::string replaced;
  for (size_t row = 0; row < text.size(); ++row) {
    if (out.isNull(row)) continue;
    std::string_view input = text.data<StringRef>()[row].view();
    std::string_view pattern = from.data<StringRef>()[row].view();
    std::string_view replacement = to.data<StringRef>()[row].view();
    replaced.clear();
    size_t position = 0;
    while (!pattern.empty()) {
      size_t found = input.find(pattern, position);
      if (found == std::string_view::npos) break;
      replaced.append(input.substr(position, found - position)).append(replacement);
      position = found + pattern.size();
    }
    replaced.append(input.substr(position));
    out.setString(row, replaced);
  }
  return out;
}

Vector evaluateAssignString(const Vector& text, const LogicalType& type) {
  Vector out(type, text.size());
  out.validity() = text.validity();
  const size_t limit = type.maxLength();
  const bool toChar = type.id() == TypeId::kChar;
  for (size_t row = 0; row < text.size(); ++row) {
    if (out.isNull(row)) continue;
    std::string_view value = text.data<StringRef>()[row].view();
    // Where the n-th character ends (UTF-8 continuation bytes are 10xxxxxx).
    size_t end = 0;
    for (size_t characters = 0; end < value.size(); ++end) {
      if ((static_cast<unsigned char>(value[end]) & 0xC0) != 0x80 && characters++ == limit) break;
    }
    if (limit > 0 && value.find_first_not_of(' ', end) != std::string_view::npos) {
      SHOAL_USER_FAIL(SqlState::kStringDataRightTruncation, "value too long for type {}", type.toString());
    }
    if (limit > 0) value = value.substr(0, end);
    if (toChar) value = value.substr(0, value.find_last_not_of(' ') + 1);
    out.setString(row, value);
  }
  return out;
}

Vector evaluateConcat(const Vector& left, const Vector& right, const LogicalType& type) {
  SHOAL_CHECK_EQ(left.size(), right.size());
  Vector out(type, left.size());
  out.validity() = left.validity();
  out.validity().intersect(right.validity());
  const StringRef* leftData = left.data<StringRef>();
  const StringRef* rightData = right.data<StringRef>();
  std::string joined;
  for (size_t row = 0; row < left.size(); ++row) {
    if (out.isNull(row)) continue;
    joined.assign(leftData[row].view());
    joined.append(rightData[row].view());
    out.setString(row, joined);
  }
  return out;
}

Vector evaluateStringFunction(ScalarFunction function, const Vector& input) {
  const StringRef* strings = input.data<StringRef>();
  if (function == ScalarFunction::kCharLength) {
    Vector out(LogicalType::integer(), input.size());
    unaryLoop<StringRef, int32_t>(input, out, [](const StringRef& text) { return utf8CharacterCount(text.view()); });
    return out;
  }
  SHOAL_CHECK(function == ScalarFunction::kLower || function == ScalarFunction::kUpper, "string function {}",
              scalarFunctionName(function));
  Vector out(LogicalType::text(), input.size());
  out.validity() = input.validity();
  std::string converted;
  for (size_t row = 0; row < input.size(); ++row) {
    if (input.isNull(row)) continue;
    converted.clear();
    if (function == ScalarFunction::kLower) {
      appendLowerCase(strings[row].view(), converted);
    } else {
      appendUpperCase(strings[row].view(), converted);
    }
    out.setString(row, converted);
  }
  return out;
}

Vector evaluateSubstring(const Vector& text, const Vector& start, const Vector* length) {
  Vector out(LogicalType::text(), text.size());
  out.validity() = text.validity();
  out.validity().intersect(start.validity());
  if (length != nullptr) out.validity().intersect(length->validity());
  const StringRef* strings = text.data<StringRef>();
  const int32_t* starts = start.data<int32_t>();
  const int32_t* lengths = length != nullptr ? length->data<int32_t>() : nullptr;
  for (size_t row = 0; row < text.size(); ++row) {
    if (out.isNull(row)) continue;
    std::optional<int64_t> count;
    if (lengths != nullptr) count = lengths[row];
    out.setString(row, substring(strings[row].view(), starts[row], count));
  }
  return out;
}

}  // namespace shoal::engine
