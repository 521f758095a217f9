#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace shoal::engine {

// UUID, as PostgreSQL 15 keeps it: 16 bytes, ordered as memcmp orders them. A vector holds a uuid in an int128
// (physical type kInt128): the bytes read as one big-endian number with its top bit flipped, so that the
// int128's signed order is the bytes' order and equal uuids are equal int128s.

using int128_t = __int128;

/// The int128 of 16 bytes, and back.
int128_t uuidFromBytes(const uint8_t* bytes);
void uuidToBytes(int128_t value, uint8_t* bytes);

/// uuid_in: 32 hex digits in either case, '-' allowed after any group of four, the whole optionally in braces.
/// Fails with 22P02 "invalid input syntax for type uuid".
int128_t parseUuid(std::string_view text);

/// uuid_out: lower-case 8-4-4-4-12.
void appendUuidText(int128_t value, std::string& out);

}  // namespace shoal::engine
