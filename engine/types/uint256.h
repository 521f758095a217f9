#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace shoal::engine {

/// An unsigned 256-bit integer, for the few exact computations whose intermediates outgrow the 128 bits of a
/// decimal: the numerator of a variance (count times a sum of squares) scaled for its result digits. Only
/// what those need; the loops are bit by bit, fine for once-per-group finishing, not for per-row work.
struct UInt256 {
  unsigned __int128 high = 0;
  unsigned __int128 low = 0;

  static UInt256 of(unsigned __int128 value) { return UInt256{0, value}; }
  /// The full product of two 128-bit values.
  static UInt256 product(unsigned __int128 a, unsigned __int128 b);

  bool isZero() const { return high == 0 && low == 0; }
  bool fits128() const { return high == 0; }
  friend bool operator==(const UInt256& a, const UInt256& b) { return a.high == b.high && a.low == b.low; }
  friend bool operator<(const UInt256& a, const UInt256& b) {
    return a.high != b.high ? a.high < b.high : a.low < b.low;
  }
  friend bool operator>=(const UInt256& a, const UInt256& b) { return !(a < b); }

  UInt256 operator+(const UInt256& other) const;
  /// Requires *this >= other.
  UInt256 operator-(const UInt256& other) const;
  UInt256 shiftedLeft(unsigned bits) const;
  UInt256 shiftedRight(unsigned bits) const;
  /// *this * factor, or nullopt when the product needs more than 256 bits.
  std::optional<UInt256> times(uint64_t factor) const;
  /// *this * 10^exponent, or nullopt on overflow.
  std::optional<UInt256> timesPowerOfTen(int exponent) const;
  /// Quotient and remainder; `divisor` must not be zero.
  void divide(const UInt256& divisor, UInt256& quotient, UInt256& remainder) const;
  /// floor(sqrt(*this)).
  UInt256 squareRoot() const;
  /// The decimal digits, without leading zeros ("0" for zero).
  std::string toDecimalString() const;
};

}  // namespace shoal::engine
