#include "coordinator/pgwire/message_writer.h"

#include "common/check.h"

namespace shoal::coordinator {

void MessageWriter::begin(char type) {
  buffer_.push_back(static_cast<uint8_t>(type));
  messageStart_ = buffer_.size();
  writeInt32(0);  // length, patched by end()
}

void MessageWriter::end() {
  SHOAL_CHECK_LE(messageStart_ + 4, buffer_.size());
  patchInt32(messageStart_, static_cast<int32_t>(buffer_.size() - messageStart_));
}

void MessageWriter::writeInt16(int16_t value) {
  auto bits = static_cast<uint16_t>(value);
  buffer_.push_back(static_cast<uint8_t>(bits >> 8));
  buffer_.push_back(static_cast<uint8_t>(bits));
}

void MessageWriter::writeInt32(int32_t value) {
  auto bits = static_cast<uint32_t>(value);
  for (int shift = 24; shift >= 0; shift -= 8) {
    buffer_.push_back(static_cast<uint8_t>(bits >> shift));
  }
}

void MessageWriter::writeInt64(int64_t value) {
  auto bits = static_cast<uint64_t>(value);
  for (int shift = 56; shift >= 0; shift -= 8) {
    buffer_.push_back(static_cast<uint8_t>(bits >> shift));
  }
}

void MessageWriter::writeString(std::string_view text) {
  buffer_.insert(buffer_.end(), text.begin(), text.end());
  buffer_.push_back(0);
}

void MessageWriter::writeBytes(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  buffer_.insert(buffer_.end(), bytes, bytes + size);
}

size_t MessageWriter::reserveInt32() {
  size_t position = buffer_.size();
  writeInt32(0);
  return position;
}

void MessageWriter::patchInt32(size_t position, int32_t value) {
  auto bits = static_cast<uint32_t>(value);
  for (int i = 0; i < 4; ++i) {
    buffer_[position + i] = static_cast<uint8_t>(bits >> (24 - 8 * i));
  }
}

}  // namespace shoal::coordinator
