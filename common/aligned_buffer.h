#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

namespace shoal {

/// A growable byte buffer whose start is aligned for O_DIRECT (4 KiB). A
/// segment file is serialized into one and written from it as is, with no
/// copy into a separately aligned block; kept between uses, it also spares the
/// page faults of fresh memory for every file.
class AlignedBuffer {
 public:
  static constexpr size_t kAlignment = 4096;

  AlignedBuffer() = default;
  ~AlignedBuffer() { std::free(data_); }
  AlignedBuffer(AlignedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
    return *this;
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  /// Room for `bytes` more at the end: returns where they go, for the caller to fill.
  char* extend(size_t bytes) {
    if (size_ + bytes > capacity_) reserve(std::max(size_ + bytes, capacity_ * 2));
    char* at = data_ + size_;
    size_ += bytes;
    return at;
  }
  void append(const void* bytes, size_t count) {
    if (count > 0) std::memcpy(extend(count), bytes, count);
  }
  void append(std::string_view text) { append(text.data(), text.size()); }
  template <class T>
  void appendRaw(T value) {
    std::memcpy(extend(sizeof(value)), &value, sizeof(value));
  }
  /// Zeros up to the next multiple of kAlignment, as O_DIRECT writes whole blocks; returns the padded size,
  /// while size() stays that of the contents.
  size_t padToAlignment() {
    const size_t padded = (size_ + kAlignment - 1) / kAlignment * kAlignment;
    if (padded > capacity_) reserve(padded);
    std::memset(data_ + size_, 0, padded - size_);
    return padded;
  }
  void reserve(size_t capacity) {
    if (capacity <= capacity_) return;
    capacity = (capacity + kAlignment - 1) / kAlignment * kAlignment;
    char* grown = static_cast<char*>(std::aligned_alloc(kAlignment, capacity));
    if (grown == nullptr) throw std::bad_alloc();
    if (size_ > 0) std::memcpy(grown, data_, size_);
    std::free(data_);
    data_ = grown;
    capacity_ = capacity;
  }
  void clear() { size_ = 0; }

  const char* data() const { return data_; }
  char* data() { return data_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

 private:
  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace shoal
