#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/varint.h"

namespace shoal {

/// A bounds-checked cursor over serialized bytes (files, sketches, statistics): every read past the end,
/// or of a value that cannot be, fails with XX001 naming what is being read, so damaged bytes can never
/// make a reader run out of bounds.
class ByteReader {
 public:
  /// `subject` names the bytes in errors: "<subject> is corrupted: <what>".
  ByteReader(std::string_view bytes, std::string subject) : bytes_(bytes), subject_(std::move(subject)) {}

  template <class T>
  T read() {
    T value;
    std::memcpy(&value, take(sizeof(T)).data(), sizeof(T));
    return value;
  }

  uint64_t readVarint() {
    uint64_t value;
    if (!decodeVarint(bytes_, offset_, value)) fail("truncated or overlong varint");
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
  bool atEnd() const { return offset_ == bytes_.size(); }

  [[noreturn]] void fail(std::string_view what) const {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "{} is corrupted: {}", subject_, what);
  }

 private:
  std::string_view bytes_;
  std::string subject_;
  size_t offset_ = 0;
};

}  // namespace shoal
