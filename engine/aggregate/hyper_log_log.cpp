#include "engine/aggregate/hyper_log_log.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/check.h"
#include "common/hashing.h"
#include "common/status.h"
#include "common/varint.h"

namespace shoal::engine {

namespace {

// Bumped whenever the byte layout changes; deserialize rejects versions it does not know.
constexpr uint8_t kFormatVersion = 1;
constexpr uint8_t kEncodingSparse = 0;
constexpr uint8_t kEncodingDense = 1;
// Version, precision, encoding.
constexpr size_t kHeaderBytes = 3;
constexpr size_t kChecksumBytes = 4;
constexpr int kBitsPerRegister = 6;  // ranks reach at most 64 - 4 + 1 = 61 < 2^6

[[noreturn]] void failCorrupted(std::string_view reason) {
  SHOAL_USER_FAIL(SqlState::kDataCorrupted, "corrupted HyperLogLog sketch: {}", reason);
}

/// Reads a varint at `pos`, advancing it; fails on truncation or more than 64 bits.
uint64_t readVarint(std::string_view bytes, size_t& pos) {
  uint64_t value;
  if (!decodeVarint(bytes, pos, value)) failCorrupted("truncated or overlong varint");
  return value;
}

void appendChecksum(std::string& out) {
  const uint32_t crc = crc32Hash(out.data(), out.size());
  for (int i = 0; i < 4; ++i) {
    out.push_back(static_cast<char>((crc >> (8 * i)) & 0xFF));
  }
}

/// Returns the payload of `bytes` (everything before the checksum) after checking the checksum.
std::string_view checkedPayload(std::string_view bytes) {
  if (bytes.size() < kHeaderBytes + kChecksumBytes) {
    failCorrupted(fmt::format("{} bytes is too short", bytes.size()));
  }
  const std::string_view payload = bytes.substr(0, bytes.size() - kChecksumBytes);
  uint32_t stored = 0;
  for (size_t i = 0; i < kChecksumBytes; ++i) {
    stored |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[payload.size() + i])) << (8 * i);
  }
  const uint32_t actual = crc32Hash(payload.data(), payload.size());
  if (stored != actual) {
    failCorrupted(fmt::format("checksum mismatch (stored {:#010x}, computed {:#010x})", stored, actual));
  }
  return payload;
}

// The two series of Ertl's improved estimator (section 4 of the paper). sigma corrects for empty
// registers (the small-cardinality end, where classic HyperLogLog needs linear counting); tau for
// saturated ones (the large end, unreachable in practice with 64-bit hashes). Both iterate until
// the partial sum stops changing in double precision.
double sigma(double x) {
  if (x == 1.0) {
    return std::numeric_limits<double>::infinity();
  }
  double y = 1.0;
  double z = x;
  double previous;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (z != previous);
  return z;
}

double tau(double x) {
  if (x == 0.0 || x == 1.0) {
    return 0.0;
  }
  double y = 1.0;
  double z = 1.0 - x;
  double previous;
  do {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    z -= (1.0 - x) * (1.0 - x) * y;
  } while (z != previous);
  return z / 3.0;
}

}  // namespace

HyperLogLog::HyperLogLog(uint8_t precision) : precision_(precision) {
  SHOAL_CHECK(precision >= kMinPrecision && precision <= kMaxPrecision, "HyperLogLog precision {}", precision);
  registers_.assign(size_t{1} << precision, 0);
}

void HyperLogLog::merge(const HyperLogLog& other) {
  SHOAL_CHECK_EQ(precision_, other.precision_, "merging HyperLogLog sketches of different precision");
  for (size_t i = 0; i < registers_.size(); ++i) {
    registers_[i] = std::max(registers_[i], other.registers_[i]);
  }
}

bool HyperLogLog::empty() const {
  return std::all_of(registers_.begin(), registers_.end(), [](uint8_t rank) { return rank == 0; });
}

double HyperLogLog::estimate() const {
  // Histogram of register values: counts[k] registers hold rank k, k = 0 .. q + 1.
  const int q = 64 - precision_;
  std::array<uint32_t, 66> counts{};
  for (uint8_t rank : registers_) {
    ++counts[rank];
  }
  const double m = static_cast<double>(registers_.size());
  if (counts[0] == registers_.size()) {
    return 0.0;
  }
  double z = m * tau(1.0 - counts[q + 1] / m);
  for (int k = q; k >= 1; --k) {
    z = 0.5 * (z + counts[k]);
  }
  z += m * sigma(counts[0] / m);
  // alpha_infinity = 1 / (2 ln 2), the bias constant of the estimator's limit form.
  constexpr double kAlphaInfinity = 0.7213475204444817;
  return kAlphaInfinity * m * m / z;
}

std::string HyperLogLog::serialize() const {
  size_t numSet = 0;
  size_t sparseBytes = 0;
  size_t previous = 0;
  for (size_t i = 0; i < registers_.size(); ++i) {
    if (registers_[i] != 0) {
      sparseBytes += varintBytes(numSet == 0 ? i : i - previous - 1) + 1;
      previous = i;
      ++numSet;
    }
  }
  sparseBytes += varintBytes(numSet);
  const size_t denseBytes = registers_.size() * kBitsPerRegister / 8;

  std::string out;
  out.push_back(static_cast<char>(kFormatVersion));
  out.push_back(static_cast<char>(precision_));
  if (sparseBytes < denseBytes) {
    out.reserve(kHeaderBytes + sparseBytes + kChecksumBytes);
    out.push_back(static_cast<char>(kEncodingSparse));
    appendVarint(out, numSet);
    // Each set register as (gap since the previous set register, rank); the first gap counts from -1.
    size_t next = 0;
    for (size_t i = 0; i < registers_.size(); ++i) {
      if (registers_[i] != 0) {
        appendVarint(out, i - next);
        out.push_back(static_cast<char>(registers_[i]));
        next = i + 1;
      }
    }
  } else {
    out.reserve(kHeaderBytes + denseBytes + kChecksumBytes);
    out.push_back(static_cast<char>(kEncodingDense));
    // Four 6-bit ranks per three bytes, little-endian bit order. 2^precision is a multiple of 4.
    for (size_t i = 0; i < registers_.size(); i += 4) {
      const uint32_t group = uint32_t{registers_[i]} | (uint32_t{registers_[i + 1]} << 6) |
                             (uint32_t{registers_[i + 2]} << 12) | (uint32_t{registers_[i + 3]} << 18);
      out.push_back(static_cast<char>(group & 0xFF));
      out.push_back(static_cast<char>((group >> 8) & 0xFF));
      out.push_back(static_cast<char>((group >> 16) & 0xFF));
    }
  }
  appendChecksum(out);
  return out;
}

HyperLogLog HyperLogLog::deserialize(std::string_view bytes) {
  const std::string_view payload = checkedPayload(bytes);
  const auto version = static_cast<uint8_t>(payload[0]);
  if (version != kFormatVersion) {
    failCorrupted(fmt::format("unknown format version {}", version));
  }
  const auto precision = static_cast<uint8_t>(payload[1]);
  if (precision < kMinPrecision || precision > kMaxPrecision) {
    failCorrupted(fmt::format("precision {} out of range", precision));
  }
  HyperLogLog sketch(precision);
  const size_t numRegisters = sketch.registers_.size();
  const uint8_t maxRank = sketch.maxRank();
  const auto encoding = static_cast<uint8_t>(payload[2]);
  size_t pos = kHeaderBytes;
  if (encoding == kEncodingSparse) {
    const uint64_t numSet = readVarint(payload, pos);
    if (numSet > numRegisters) {
      failCorrupted(fmt::format("{} set registers of {}", numSet, numRegisters));
    }
    uint64_t next = 0;
    for (uint64_t n = 0; n < numSet; ++n) {
      const uint64_t gap = readVarint(payload, pos);
      if (gap >= numRegisters - next) {
        failCorrupted(fmt::format("register index beyond {}", numRegisters));
      }
      const uint64_t index = next + gap;
      if (pos >= payload.size()) {
        failCorrupted("truncated sparse registers");
      }
      const auto rank = static_cast<uint8_t>(payload[pos++]);
      if (rank == 0 || rank > maxRank) {
        failCorrupted(fmt::format("rank {} at register {}", rank, index));
      }
      sketch.registers_[index] = rank;
      next = index + 1;
    }
  } else if (encoding == kEncodingDense) {
    const size_t denseBytes = numRegisters * kBitsPerRegister / 8;
    if (payload.size() - pos != denseBytes) {
      failCorrupted(fmt::format("{} register bytes, expected {}", payload.size() - pos, denseBytes));
    }
    for (size_t i = 0; i < numRegisters; i += 4) {
      const uint32_t group = uint32_t{static_cast<uint8_t>(payload[pos])} |
                             (uint32_t{static_cast<uint8_t>(payload[pos + 1])} << 8) |
                             (uint32_t{static_cast<uint8_t>(payload[pos + 2])} << 16);
      pos += 3;
      for (size_t j = 0; j < 4; ++j) {
        const auto rank = static_cast<uint8_t>((group >> (6 * j)) & 0x3F);
        if (rank > maxRank) {
          failCorrupted(fmt::format("rank {} at register {}", rank, i + j));
        }
        sketch.registers_[i + j] = rank;
      }
    }
  } else {
    failCorrupted(fmt::format("unknown encoding {}", encoding));
  }
  if (pos != payload.size()) {
    failCorrupted(fmt::format("{} trailing bytes", payload.size() - pos));
  }
  return sketch;
}

std::string HyperLogLog::toString() const {
  const auto numSet = std::count_if(registers_.begin(), registers_.end(), [](uint8_t rank) { return rank != 0; });
  return fmt::format("HyperLogLog(precision={}, registersSet={}/{}, estimate={:.1f})", precision_, numSet,
                     registers_.size(), estimate());
}

}  // namespace shoal::engine
