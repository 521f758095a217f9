#include "coordinator/pgwire/message_reader.h"

#include <cstring>

#include "common/status.h"

namespace shoal::coordinator {

void MessageReader::need(size_t count) const {
  if (count > remaining()) {
    SHOAL_USER_FAIL(SqlState::kProtocolViolation, "invalid message format: {} bytes needed, {} left", count,
                    remaining());
  }
}

uint8_t MessageReader::readByte() {
  need(1);
  return body_[offset_++];
}

int16_t MessageReader::readInt16() {
  need(2);
  uint16_t value = static_cast<uint16_t>((body_[offset_] << 8) | body_[offset_ + 1]);
  offset_ += 2;
  return static_cast<int16_t>(value);
}

int32_t MessageReader::readInt32() {
  need(4);
  uint32_t value = (uint32_t{body_[offset_]} << 24) | (uint32_t{body_[offset_ + 1]} << 16) |
                   (uint32_t{body_[offset_ + 2]} << 8) | uint32_t{body_[offset_ + 3]};
  offset_ += 4;
  return static_cast<int32_t>(value);
}

std::string_view MessageReader::readString() {
  const auto* start = body_.data() + offset_;
  // An empty body has no data pointer, which memchr must not be given even for 0 bytes.
  const void* terminator = remaining() == 0 ? nullptr : std::memchr(start, 0, remaining());
  if (terminator == nullptr) {
    SHOAL_USER_FAIL(SqlState::kProtocolViolation, "invalid string in message: no terminator");
  }
  size_t length = static_cast<const uint8_t*>(terminator) - start;
  offset_ += length + 1;
  return {reinterpret_cast<const char*>(start), length};
}

std::span<const uint8_t> MessageReader::readBytes(size_t count) {
  need(count);
  auto bytes = body_.subspan(offset_, count);
  offset_ += count;
  return bytes;
}

}  // namespace shoal::coordinator
