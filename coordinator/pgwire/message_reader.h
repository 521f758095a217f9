#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace shoal::coordinator {

/// Reads the fields of one received pgwire message body: big-endian integers,
/// NUL-terminated strings and byte runs. Reading past the end fails with
/// 08P01 (a malformed message ends that connection, never the server).
class MessageReader {
 public:
  explicit MessageReader(std::span<const uint8_t> body) : body_(body) {}

  uint8_t readByte();
  int16_t readInt16();
  int32_t readInt32();
  /// A NUL-terminated string, without its terminator.
  std::string_view readString();
  std::span<const uint8_t> readBytes(size_t count);

  size_t remaining() const { return body_.size() - offset_; }

 private:
  void need(size_t count) const;

  std::span<const uint8_t> body_;
  size_t offset_ = 0;
};

}  // namespace shoal::coordinator
