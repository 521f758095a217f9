#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace shoal::engine {

/// A 16-byte string handle. Strings of up to 12 bytes live entirely inline;
/// longer ones keep their first 4 bytes inline beside a pointer into a heap,
/// so that most comparisons and hash probes are decided without touching the heap.
class StringRef {
 public:
  static constexpr uint32_t kInlineBytes = 12;
  static constexpr uint32_t kPrefixBytes = 4;

  StringRef() = default;
  /// Wraps `text`, which must outlive this handle unless it fits inline.
  explicit StringRef(std::string_view text) : length_(static_cast<uint32_t>(text.size())) {
    if (length_ <= kInlineBytes) {
      if (length_ != 0) std::memcpy(bytes_, text.data(), length_);  // an empty view's data() may be null
    } else {
      std::memcpy(bytes_, text.data(), kPrefixBytes);
      const char* pointer = text.data();
      std::memcpy(bytes_ + kPrefixBytes, &pointer, sizeof(pointer));
    }
  }

  uint32_t size() const { return length_; }
  bool isInline() const { return length_ <= kInlineBytes; }

  std::string_view view() const {
    if (isInline()) {
      return {bytes_, length_};
    }
    const char* pointer;
    std::memcpy(&pointer, bytes_ + kPrefixBytes, sizeof(pointer));
    return {pointer, length_};
  }

  /// Equality that rejects most mismatches on length and prefix alone.
  friend bool operator==(const StringRef& a, const StringRef& b) {
    if (a.length_ != b.length_ || std::memcmp(a.bytes_, b.bytes_, kPrefixBytes) != 0) {
      return false;
    }
    // Inline strings are zero-padded: their 12 bytes decide.
    if (a.isInline()) return std::memcmp(a.bytes_, b.bytes_, kInlineBytes) == 0;
    return a.view() == b.view();
  }

  /// The handle's 16 bytes as two words: for an inline string (zero-padded), its whole value.
  void inlineWords(uint64_t& low, uint64_t& high) const {
    std::memcpy(&low, this, sizeof(low));
    std::memcpy(&high, reinterpret_cast<const char*>(this) + sizeof(low), sizeof(high));
  }

  /// Byte-wise (C collation) three-way comparison.
  friend int compare(const StringRef& a, const StringRef& b) {
    int prefix = std::memcmp(a.bytes_, b.bytes_, std::min(std::min(a.length_, b.length_), kPrefixBytes));
    if (prefix != 0) {
      return prefix;
    }
    return a.view().compare(b.view());
  }

 private:
  uint32_t length_ = 0;
  char bytes_[kInlineBytes] = {};
};

static_assert(sizeof(StringRef) == 16);

}  // namespace shoal::engine
