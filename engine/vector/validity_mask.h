#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shoal::engine {

/// One bit per row: set means the row holds a value, clear means NULL.
class ValidityMask {
 public:
  explicit ValidityMask(size_t capacity = 0) : words_(wordCount(capacity), ~uint64_t{0}) {}

  bool isValid(size_t row) const { return (words_[row / 64] >> (row % 64)) & 1; }
  void setValid(size_t row, bool valid) {
    uint64_t bit = uint64_t{1} << (row % 64);
    words_[row / 64] = valid ? (words_[row / 64] | bit) : (words_[row / 64] & ~bit);
  }
  void setAllValid() { std::fill(words_.begin(), words_.end(), ~uint64_t{0}); }
  void resize(size_t capacity) { words_.resize(wordCount(capacity), ~uint64_t{0}); }
  /// Clears every row that is NULL in `other` (NULL in, NULL out).
  void intersect(const ValidityMask& other) {
    for (size_t i = 0; i < words_.size() && i < other.words_.size(); ++i) {
      words_[i] &= other.words_[i];
    }
  }
  /// The bitmap's 64-bit words, row r at bit r % 64 of word r / 64.
  uint64_t* words() { return words_.data(); }
  const uint64_t* words() const { return words_.data(); }
  size_t numWords() const { return words_.size(); }

  /// Whether rows [first, first + count) are all valid: the words they span only.
  bool allValidIn(size_t first, size_t count) const {
    size_t row = first;
    const size_t end = first + count;
    while (row < end && row % 64 != 0) {
      if (!isValid(row)) return false;
      ++row;
    }
    for (; row + 64 <= end; row += 64) {
      if (words_[row / 64] != ~uint64_t{0}) return false;
    }
    for (; row < end; ++row) {
      if (!isValid(row)) return false;
    }
    return true;
  }
  bool allValid(size_t numRows) const {
    const size_t fullWords = numRows / 64;
    for (size_t i = 0; i < fullWords; ++i) {
      if (words_[i] != ~uint64_t{0}) return false;
    }
    const size_t tail = numRows % 64;
    return tail == 0 || (~words_[fullWords] & ((uint64_t{1} << tail) - 1)) == 0;
  }

 private:
  static size_t wordCount(size_t capacity) { return (capacity + 63) / 64; }

  std::vector<uint64_t> words_;
};

}  // namespace shoal::engine
