#pragma once

#include <string>
#include <string_view>

namespace shoal::engine {

// BYTEA text, as PostgreSQL 15 reads and writes it (bytea_output = hex). A vector holds a bytea's bytes as a
// string (physical type kString), which compares, hashes and sorts them as memcmp does, as PostgreSQL does.

/// byteain: '\x' and hex digit pairs (whitespace between pairs allowed), or the escape format (bytes as
/// themselves, '\\' for a backslash, '\nnn' in octal). Fails with 22P02 or 22023 as PostgreSQL does.
std::string parseBytea(std::string_view text);

/// byteaout: '\x' and two lower-case hex digits a byte.
void appendByteaText(std::string_view bytes, std::string& out);

}  // namespace shoal::engine
