#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/status.h"

namespace shoal::worker {

/// A bounds-checked cursor over bytes read from a file: every read past the
/// end, or of a value that cannot be, fails with XX001 naming the file, so a
/// damaged file can never make the reader run out of bounds.
class ByteReader {
 public:
  ByteReader(std::string_view bytes, std::string fileName) : bytes_(bytes), fileName_(std::move(fileName)) {}

  template <class T>
  T read() {
    T value;
    std::memcpy(&value, take(sizeof(T)).data(), sizeof(T));
    return value;
  }

  /// The next `count` bytes.
  std::string_view take(size_t count) {
    if (count > bytes_.size() - offset_) fail("unexpected end of data (truncated?)");
    std::string_view bytes = bytes_.substr(offset_, count);
    offset_ += count;
    return bytes;
  }

  size_t remaining() const { return bytes_.size() - offset_; }

  [[noreturn]] void fail(std::string_view what) const {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "segment file {} is corrupted: {}", fileName_, what);
  }

 private:
  std::string_view bytes_;
  std::string fileName_;
  size_t offset_ = 0;
};

}  // namespace shoal::worker
