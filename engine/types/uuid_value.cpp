#include "engine/types/uuid_value.h"

#include "common/sql_state.h"
#include "common/status.h"

namespace shoal::engine {

namespace {

constexpr int kUuidBytes = 16;
constexpr unsigned __int128 kTopBit = static_cast<unsigned __int128>(1) << 127;

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

int128_t uuidFromBytes(const uint8_t* bytes) {
  unsigned __int128 number = 0;
  for (int i = 0; i < kUuidBytes; ++i) number = (number << 8) | bytes[i];
  return static_cast<int128_t>(number ^ kTopBit);
}

void uuidToBytes(int128_t value, uint8_t* bytes) {
  unsigned __int128 number = static_cast<unsigned __int128>(value) ^ kTopBit;
  for (int i = kUuidBytes - 1; i >= 0; --i) {
    bytes[i] = static_cast<uint8_t>(number);
    number >>= 8;
  }
}

int128_t parseUuid(std::string_view text) {
  auto fail = [&]() -> int128_t {
    SHOAL_USER_FAIL(SqlState::kInvalidTextRepresentation, "invalid input syntax for type uuid: \"{}\"", text);
  };
  size_t position = 0;
  const bool braces = !text.empty() && text[0] == '{';
  if (braces) ++position;
  uint8_t bytes[kUuidBytes];
  for (int i = 0; i < kUuidBytes; ++i) {
    if (position + 2 > text.size()) return fail();
    const int high = hexValue(text[position]);
    const int low = hexValue(text[position + 1]);
    if (high < 0 || low < 0) return fail();
    bytes[i] = static_cast<uint8_t>(high * 16 + low);
    position += 2;
    // A hyphen may follow any group of four digits but the last.
    if (position < text.size() && text[position] == '-' && i % 2 == 1 && i < kUuidBytes - 1) ++position;
  }
  if (braces) {
    if (position >= text.size() || text[position] != '}') return fail();
    ++position;
  }
  if (position != text.size()) return fail();
  return uuidFromBytes(bytes);
}

void appendUuidText(int128_t value, std::string& out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  uint8_t bytes[kUuidBytes];
  uuidToBytes(value, bytes);
  for (int i = 0; i < kUuidBytes; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xF];
  }
}

}  // namespace shoal::engine
