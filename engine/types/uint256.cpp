#include "engine/types/uint256.h"

namespace shoal::engine {

UInt256 UInt256::product(unsigned __int128 a, unsigned __int128 b) {
  using u128 = unsigned __int128;
  const u128 mask = ~uint64_t{0};
  const u128 a0 = a & mask, a1 = a >> 64, b0 = b & mask, b1 = b >> 64;
  const u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  // The middle column: the high half of p00 plus the low halves of the cross products (fits in 66 bits).
  const u128 middle = (p00 >> 64) + (p01 & mask) + (p10 & mask);
  UInt256 result;
  result.low = (p00 & mask) | (middle << 64);
  result.high = p11 + (p01 >> 64) + (p10 >> 64) + (middle >> 64);
  return result;
}

UInt256 UInt256::operator+(const UInt256& other) const {
  UInt256 sum{high + other.high, low + other.low};
  if (sum.low < low) ++sum.high;
  return sum;
}

UInt256 UInt256::operator-(const UInt256& other) const {
  UInt256 difference{high - other.high, low - other.low};
  if (low < other.low) --difference.high;
  return difference;
}

UInt256 UInt256::shiftedLeft(unsigned bits) const {
  if (bits == 0) return *this;
  if (bits >= 256) return {};
  if (bits >= 128) return UInt256{low << (bits - 128), 0};
  return UInt256{(high << bits) | (low >> (128 - bits)), low << bits};
}

UInt256 UInt256::shiftedRight(unsigned bits) const {
  if (bits == 0) return *this;
  if (bits >= 256) return {};
  if (bits >= 128) return UInt256{0, high >> (bits - 128)};
  return UInt256{high >> bits, (low >> bits) | (high << (128 - bits))};
}

std::optional<UInt256> UInt256::times(uint64_t factor) const {
  const UInt256 lowPart = product(low, factor);
  const UInt256 highPart = product(high, factor);
  if (highPart.high != 0) return std::nullopt;  // beyond 2^256 once shifted up by 128 bits
  UInt256 result{lowPart.high, lowPart.low};
  const unsigned __int128 highSum = result.high + highPart.low;
  if (highSum < result.high) return std::nullopt;
  result.high = highSum;
  return result;
}

std::optional<UInt256> UInt256::timesPowerOfTen(int exponent) const {
  std::optional<UInt256> result = *this;
  for (; exponent >= 18 && result; exponent -= 18) result = result->times(1'000'000'000'000'000'000ULL);
  uint64_t rest = 1;
  for (; exponent > 0; --exponent) rest *= 10;
  return result ? result->times(rest) : std::nullopt;
}

void UInt256::divide(const UInt256& divisor, UInt256& quotient, UInt256& remainder) const {
  if (fits128() && divisor.fits128()) {
    quotient = of(low / divisor.low);
    remainder = of(low % divisor.low);
    return;
  }
  quotient = {};
  remainder = {};
  for (int bit = 255; bit >= 0; --bit) {
    remainder = remainder.shiftedLeft(1);
    if (shiftedRight(static_cast<unsigned>(bit)).low & 1) remainder.low |= 1;
    if (remainder >= divisor) {
      remainder = remainder - divisor;
      quotient = quotient + of(1).shiftedLeft(static_cast<unsigned>(bit));
    }
  }
}

UInt256 UInt256::squareRoot() const {
  // The digit-by-digit method in base 4: one result bit per step.
  UInt256 rest = *this;
  UInt256 root;
  int topBit = 254;
  while (topBit > 0 && (*this < of(1).shiftedLeft(static_cast<unsigned>(topBit)))) topBit -= 2;
  for (int bit = topBit; bit >= 0; bit -= 2) {
    const UInt256 trial = root + of(1).shiftedLeft(static_cast<unsigned>(bit));
    if (rest >= trial) {
      rest = rest - trial;
      root = root.shiftedRight(1) + of(1).shiftedLeft(static_cast<unsigned>(bit));
    } else {
      root = root.shiftedRight(1);
    }
  }
  return root;
}

std::string UInt256::toDecimalString() const {
  constexpr uint64_t kChunk = 10'000'000'000'000'000'000ULL;  // 10^19, the most 64 bits hold
  std::string digits;
  UInt256 rest = *this;
  while (!rest.isZero()) {
    UInt256 quotient;
    UInt256 remainder;
    rest.divide(of(kChunk), quotient, remainder);
    auto chunk = static_cast<uint64_t>(remainder.low);
    for (int i = 0; i < 19; ++i, chunk /= 10) digits.push_back(static_cast<char>('0' + chunk % 10));
    rest = quotient;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (digits.empty()) digits = "0";
  return std::string(digits.rbegin(), digits.rend());
}

}  // namespace shoal::engine
