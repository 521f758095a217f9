#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shoal::engine {

/// What a JSON value is, as json_typeof names it.
enum class JsonKind : uint8_t { kObject, kArray, kString, kNumber, kBoolean, kNull };

/// json_typeof's name of a kind: "object", "array", "string", "number", "boolean", "null".
std::string_view jsonKindName(JsonKind kind);

/// Reads JSON text as PostgreSQL 15's json input does (RFC 8259: no leading zeros, no "1." or ".5", control
/// characters escaped; duplicate keys and any escape allowed), without building anything: a value is its
/// place in the text. Invalid text fails with 22P02 "invalid input syntax for type json"; nesting deeper
/// than the parser's limit with 54001.
class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  /// The one value the whole text holds, surrounding whitespace removed; fails unless the text is
  /// exactly one valid value.
  std::string_view wholeValue();

  /// Reads the value at the cursor (after whitespace) and returns its text.
  std::string_view readValue();
  /// Whitespace, then whether the next character is `c` (and steps over it if so).
  bool consume(char c);
  /// Steps over whitespace.
  void skipSpace();
  bool atEnd() const { return position_ >= text_.size(); }

 private:
  [[noreturn]] void fail(std::string_view detail) const;
  void readString();
  void readNumber();
  void readWord();

  std::string_view text_;
  size_t position_ = 0;
};

/// The kind of a value's text (its first character decides).
JsonKind jsonKindOf(std::string_view value);

/// The text of a JSON string value (quotes included) with its escapes decoded to UTF-8. \u0000 fails with
/// 22P05 and an unpaired surrogate with 22P02, as when PostgreSQL turns JSON strings into text.
std::string decodeJsonString(std::string_view quoted);

/// The value of `key` in an object's text (the last, when a json object repeats it); nullopt when `object`
/// is not an object or has no such key.
std::optional<std::string_view> jsonObjectField(std::string_view object, std::string_view key);

/// Element `index` of an array's text, counting from the end when negative; nullopt when `array` is not an
/// array or the index is outside it.
std::optional<std::string_view> jsonArrayElement(std::string_view array, int64_t index);

/// One step of a #> path: an object's field named `step`, or an array's element when `step` is an
/// integer. nullopt where PostgreSQL's #> gives NULL.
std::optional<std::string_view> jsonPathStep(std::string_view value, std::string_view step);

}  // namespace shoal::engine
