#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/check.h"
#include "engine/types/logical_type.h"
#include "engine/types/string_heap.h"
#include "engine/types/value.h"
#include "engine/vector/validity_mask.h"

namespace shoal::engine {

class TimeZone;

/// Rows per vector: small enough to stay in L1/L2 while an expression tree
/// walks it, large enough to amortize per-vector dispatch.
inline constexpr size_t kVectorSize = 2048;

/// A column of up to `capacity` values of one type, with a validity bitmap.
/// Fixed-width values sit in one contiguous array; strings are StringRefs whose
/// long bytes live in the vector's own heap, or in the heaps of the vectors it
/// was selected from, which it keeps alive. Move-only; single owner.
class Vector {
 public:
  Vector(LogicalType type, size_t capacity);
  /// A vector whose values start undefined (not zeroed), for producers that write every row
  /// (segment reads, selections): zeroing a fresh array per chunk is measurable on a scan.
  static Vector uninitialized(LogicalType type, size_t capacity);
  Vector(Vector&&) = default;
  Vector& operator=(Vector&&) = default;

  const LogicalType& type() const { return type_; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  /// Sets the number of rows, growing the storage when needed (contents beyond the old size are unset).
  void resize(size_t numRows);

  /// The raw value array. T must match the physical type (bool stored as uint8_t).
  template <class T>
  T* data() {
    return reinterpret_cast<T*>(data_.get());
  }
  template <class T>
  const T* data() const {
    return reinterpret_cast<const T*>(data_.get());
  }

  ValidityMask& validity() { return validity_; }
  const ValidityMask& validity() const { return validity_; }
  bool isNull(size_t row) const { return !validity_.isValid(row); }
  void setNull(size_t row, bool isNull) { validity_.setValid(row, !isNull); }

  StringHeap& heap() { return *heap_; }
  /// Copies `text` into this vector's heap and stores it at `row`.
  void setString(size_t row, std::string_view text) { data<StringRef>()[row] = heap_->add(text); }

  /// Stores a Value of this vector's type (or NULL) at `row`.
  void setValue(size_t row, const Value& value);
  Value getValue(size_t row) const;
  /// Appends PostgreSQL's text output of the value at `row` (which must not be NULL).
  /// `zone` shows timestamptz values (nullptr: UTC). Callers that serve a session pass its TimeZone.
  void appendText(size_t row, std::string& out, const TimeZone* zone = nullptr) const;

  /// Returns a new vector holding the given rows of this one, in that order.
  /// Strings are not copied: the new vector keeps this one's heaps alive.
  Vector select(std::span<const uint32_t> rows) const;

  /// Keeps `owner` alive as long as this vector: whatever holds the bytes of strings
  /// stored here as handles without copying (another vector's heap, a hash table's rows).
  void keepAlive(std::shared_ptr<const void> owner) { owners_.push_back(std::move(owner)); }
  /// Keeps alive everything `other`'s strings point into, so that its handles may be copied here as they are.
  void shareStringsOf(const Vector& other);

  /// Copies row `fromRow` of `from` (same physical type) into row `row`, NULL included, without a Value.
  void copyRow(size_t row, const Vector& from, size_t fromRow);

  /// Bytes this vector holds (values, validity, its own string heap), for memory accounting.
  size_t memoryBytes() const;

  /// Dumps type, size and the first values, for error messages and debugging.
  std::string toString() const;

 private:
  struct UninitializedTag {};
  Vector(LogicalType type, size_t capacity, UninitializedTag);

  LogicalType type_;
  size_t size_ = 0;
  size_t capacity_ = 0;
  std::unique_ptr<std::byte[]> data_;
  ValidityMask validity_;
  // Owned through a pointer so that StringRefs stay valid when the vector moves.
  std::shared_ptr<StringHeap> heap_;
  /// What else this vector's strings may point into (see keepAlive).
  std::vector<std::shared_ptr<const void>> owners_;
};

/// Bytes per value of a physical type in a Vector's data array.
size_t physicalTypeWidth(PhysicalType type);

/// Copies one value of `width` bytes (a physicalTypeWidth). A switch, so that
/// each case is an inlined fixed-size move rather than a call to memmove per value.
inline void copyValue(void* to, const void* from, size_t width) {
  switch (width) {
    case 1:
      std::memcpy(to, from, 1);
      return;
    case 4:
      std::memcpy(to, from, 4);
      return;
    case 8:
      std::memcpy(to, from, 8);
      return;
    case 16:
      std::memcpy(to, from, 16);
      return;
    default:
      std::memcpy(to, from, width);
  }
}

/// to[i] = from[rowAt(i)] for i < numRows, values of `width` bytes (a physicalTypeWidth): one loop per
/// width, so that each copy is a plain load and store.
template <class RowAt>
void gatherValues(void* to, const void* from, size_t width, size_t numRows, RowAt rowAt) {
  auto* out = static_cast<std::byte*>(to);
  const auto* in = static_cast<const std::byte*>(from);
  auto gather = [&](auto fixedWidth) {
    constexpr size_t kWidth = decltype(fixedWidth)::value;
    for (size_t i = 0; i < numRows; ++i) std::memcpy(out + i * kWidth, in + size_t{rowAt(i)} * kWidth, kWidth);
  };
  switch (width) {
    case 1:
      return gather(std::integral_constant<size_t, 1>{});
    case 4:
      return gather(std::integral_constant<size_t, 4>{});
    case 8:
      return gather(std::integral_constant<size_t, 8>{});
    case 16:
      return gather(std::integral_constant<size_t, 16>{});
    default:
      for (size_t i = 0; i < numRows; ++i) std::memcpy(out + i * width, in + size_t{rowAt(i)} * width, width);
  }
}

}  // namespace shoal::engine
