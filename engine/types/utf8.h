#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace shoal::engine {

// Character stepping over UTF-8 text, which is how Shoal stores every string.
// Invalid bytes count as one character each, so stepping always makes progress.

/// Returns the byte length of the UTF-8 character starting with `lead` (1 for
/// ASCII, continuation and invalid bytes), as PostgreSQL's pg_utf_mblen does.
inline size_t utf8SequenceLength(char lead) {
  auto byte = static_cast<unsigned char>(lead);
  if (byte < 0x80) return 1;
  if ((byte & 0xE0) == 0xC0) return 2;
  if ((byte & 0xF0) == 0xE0) return 3;
  if ((byte & 0xF8) == 0xF0) return 4;
  return 1;
}

/// Returns the byte offset just past the character at `offset`, never beyond the end of `text`.
inline size_t utf8NextCharacter(std::string_view text, size_t offset) {
  size_t next = offset + utf8SequenceLength(text[offset]);
  return next < text.size() ? next : text.size();
}

/// Returns the byte offset `characters` characters past `offset` (the text's size when it has fewer).
inline size_t utf8SkipCharacters(std::string_view text, size_t offset, int64_t characters) {
  for (; characters > 0 && offset < text.size(); --characters) offset = utf8NextCharacter(text, offset);
  return offset;
}

/// Returns the number of UTF-8 characters in `text` (bytes that are not continuation bytes).
inline size_t utf8CharacterCount(std::string_view text) {
  size_t characters = 0;
  for (char c : text) {
    characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }
  return characters;
}

/// Returns `text` padded with spaces to `length` characters, in `buffer` when padding is needed: how
/// PostgreSQL's bpchar pattern matching (LIKE, ~) sees a CHAR(n) value, which Shoal stores unpadded.
inline std::string_view padCharacter(std::string_view text, uint32_t length, std::string& buffer) {
  size_t characters = utf8CharacterCount(text);
  if (characters >= length) return text;
  buffer.assign(text);
  buffer.append(length - characters, ' ');
  return buffer;
}

}  // namespace shoal::engine
