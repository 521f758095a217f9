#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shoal::coordinator {

/// Builds outgoing pgwire messages in one buffer: begin(type), the fields,
/// end() (which fills in the length). The buffer is sent by whoever owns the
/// socket, so many small messages leave in one write.
class MessageWriter {
 public:
  void begin(char type);
  void end();

  void writeByte(uint8_t value) { buffer_.push_back(value); }
  void writeInt16(int16_t value);
  void writeInt32(int32_t value);
  void writeInt64(int64_t value);
  /// A string plus its NUL terminator.
  void writeString(std::string_view text);
  void writeBytes(const void* data, size_t size);
  /// Reserves an int32 to be filled by patchInt32(position, value); returns its position.
  size_t reserveInt32();
  void patchInt32(size_t position, int32_t value);

  const std::vector<uint8_t>& buffer() const { return buffer_; }
  size_t size() const { return buffer_.size(); }
  void clear() { buffer_.clear(); }

 private:
  std::vector<uint8_t> buffer_;
  size_t messageStart_ = 0;
};

}  // namespace shoal::coordinator
