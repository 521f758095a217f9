// The placement hash (CRC-32C) and the in-memory hash (hash64).
#include "common/hashing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

namespace shoal {
namespace {

// Convention under test: seed 0 is the standard CRC-32C (init 0xFFFFFFFF, final XOR 0xFFFFFFFF).
TEST(HashingTest, Crc32MatchesStandardCheckValues) {
  EXPECT_EQ(crc32String("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32String(""), 0u);
  // RFC 3720 (iSCSI) appendix B.4.
  std::string zeros(32, '\0');
  std::string ones(32, '\xFF');
  std::string ascending;
  std::string descending;
  for (int i = 0; i < 32; ++i) {
    ascending.push_back(static_cast<char>(i));
    descending.push_back(static_cast<char>(31 - i));
  }
  EXPECT_EQ(crc32String(zeros), 0x8A9136AAu);
  EXPECT_EQ(crc32String(ones), 0x62A8AB43u);
  EXPECT_EQ(crc32String(ascending), 0x46DD794Eu);
  EXPECT_EQ(crc32String(descending), 0x113FDB5Cu);
  EXPECT_EQ(crc32HashSoftware("123456789", 9), 0xE3069283u);
}

// Pinned values (computed independently, bit by bit, in Python): rows already placed by these
// hashes must stay where they are, so none of these may ever change.
TEST(HashingTest, Crc32TypedHelpersArePinned) {
  EXPECT_EQ(crc32Int64(42), 0x516B2987u);
  EXPECT_EQ(crc32Int64(static_cast<uint64_t>(int64_t{-1})), 0x48674BC7u);
  EXPECT_EQ(crc32Int32(7), 0x5167F30Du);
  EXPECT_EQ(crc32Int8(1), 0xA016D052u);
  EXPECT_EQ(crc32String("shoal"), 0xF16690C3u);
  EXPECT_EQ(crc32Double(1.5), 0x3B562AD9u);
  EXPECT_EQ(crc32Int128((static_cast<unsigned __int128>(1) << 64) + 3), 0x18B4873Eu);
  // A two-column key (42, 7) chains: the CRC-32C of both columns' 16 bytes.
  EXPECT_EQ(crc32Int64(7, crc32Int64(42)), 0xFC748CBAu);
}

TEST(HashingTest, Crc32HardwareEqualsSoftwareReference) {
  std::mt19937_64 random(7);
  std::string buffer(512, '\0');
  for (char& c : buffer) {
    c = static_cast<char>(random());
  }
  for (size_t offset = 0; offset < 8; ++offset) {
    for (size_t length = 0; length + offset <= 300; ++length) {
      const uint32_t seed = static_cast<uint32_t>(random());
      ASSERT_EQ(crc32Hash(buffer.data() + offset, length, seed),
                crc32HashSoftware(buffer.data() + offset, length, seed))
          << "offset " << offset << " length " << length;
    }
  }
}

TEST(HashingTest, Crc32ChainsLikeConcatenation) {
  const std::string a = "distributed ";
  const std::string b = "query processing over RDMA";
  EXPECT_EQ(crc32String(b, crc32String(a)), crc32String(a + b));
  for (uint64_t value : {uint64_t{0}, uint64_t{1}, uint64_t{0x0123456789ABCDEF}, ~uint64_t{0}}) {
    for (uint32_t seed : {0u, 1u, 0xDEADBEEFu}) {
      EXPECT_EQ(crc32Int64(value, seed), crc32Hash(&value, sizeof(value), seed));
      const auto narrow = static_cast<uint32_t>(value);
      EXPECT_EQ(crc32Int32(narrow, seed), crc32Hash(&narrow, sizeof(narrow), seed));
      const auto byte = static_cast<uint8_t>(value);
      EXPECT_EQ(crc32Int8(byte, seed), crc32Hash(&byte, sizeof(byte), seed));
      const unsigned __int128 wide = (static_cast<unsigned __int128>(value) << 64) | (value ^ 0x5555);
      EXPECT_EQ(crc32Int128(wide, seed), crc32Hash(&wide, sizeof(wide), seed));
    }
  }
}

TEST(HashingTest, Crc32FoldsEqualDoubles) {
  EXPECT_EQ(crc32Double(0.0), crc32Double(-0.0));
  EXPECT_EQ(crc32Double(std::numeric_limits<double>::quiet_NaN()), crc32Double(-std::nan("7")));
  EXPECT_NE(crc32Double(1.0), crc32Double(-1.0));
}

// Placement sanity: consecutive keys spread evenly over a 6-worker cluster, with either a modulo
// or a multiply-shift mapping of the 32-bit hash to a worker.
TEST(HashingTest, Crc32SpreadsSequentialKeysEvenly) {
  constexpr uint32_t kWorkers = 6;
  constexpr uint64_t kKeys = 600'000;
  std::vector<uint64_t> modulo(kWorkers);
  std::vector<uint64_t> multiplyShift(kWorkers);
  for (uint64_t key = 0; key < kKeys; ++key) {
    const uint32_t hash = crc32Int64(key);
    ++modulo[hash % kWorkers];
    ++multiplyShift[(uint64_t{hash} * kWorkers) >> 32];
  }
  for (uint32_t worker = 0; worker < kWorkers; ++worker) {
    EXPECT_NEAR(static_cast<double>(modulo[worker]), kKeys / kWorkers, 0.01 * kKeys / kWorkers);
    EXPECT_NEAR(static_cast<double>(multiplyShift[worker]), kKeys / kWorkers, 0.01 * kKeys / kWorkers);
  }
}

TEST(HashingTest, Hash64IntegersAgreeAcrossWidths) {
  for (int64_t value : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{123456}, int64_t{-2147483648}}) {
    const auto narrow = static_cast<int32_t>(value);
    EXPECT_EQ(hash64Int32(narrow), hash64Int64(static_cast<uint64_t>(value)));
    EXPECT_EQ(hash64Int128(value), hash64Int64(static_cast<uint64_t>(value)));
  }
  const __int128 big = static_cast<__int128>(1) << 70;
  EXPECT_NE(hash64Int128(big), hash64Int128(big + 1));
  EXPECT_NE(hash64Int128(big), hash64Int128(-big));
  EXPECT_NE(hash64Int64(0), 0u);
  EXPECT_EQ(hash64Double(0.0), hash64Double(-0.0));
  EXPECT_EQ(hash64Double(std::nan("")), hash64Double(-std::nan("3")));
  EXPECT_NE(hash64Double(1.0), hash64Double(2.0));
}

// Every string length hits a different code path (0, 1..3, 4..7, 8..16, 17..48, longer); all must
// depend on every byte and on the length.
TEST(HashingTest, Hash64StringsDependOnEveryByteAndLength) {
  std::mt19937_64 random(11);
  std::unordered_set<uint64_t> seen;
  std::string text;
  for (size_t length = 0; length <= 200; ++length) {
    text.assign(length, '\0');
    ASSERT_TRUE(seen.insert(hash64(text)).second) << "zero string of length " << length;
  }
  double flippedBits = 0;
  size_t trials = 0;
  for (size_t length = 1; length <= 200; ++length) {
    text.resize(length);
    for (char& c : text) {
      c = static_cast<char>(random());
    }
    const uint64_t original = hash64(text);
    for (size_t position = 0; position < length; ++position) {
      std::string changed = text;
      changed[position] = static_cast<char>(changed[position] ^ (1 << (position % 8)));
      const uint64_t hash = hash64(changed);
      ASSERT_NE(hash, original) << "length " << length << " position " << position;
      flippedBits += std::popcount(hash ^ original);
      ++trials;
    }
  }
  // Avalanche: a one-bit change flips about half of the 64 output bits.
  EXPECT_NEAR(flippedBits / static_cast<double>(trials), 32.0, 0.5);
}

// Sequential integers and similar strings fill the top bits (HyperLogLog's register index) and the
// low bits (a hash table's bucket) evenly: chi-square over 1,024 buckets.
TEST(HashingTest, Hash64FillsHighAndLowBitsEvenly) {
  constexpr size_t kBuckets = 1024;
  constexpr size_t kKeys = 1'024'000;
  auto chiSquare = [&](auto hashOf) {
    std::vector<double> high(kBuckets);
    std::vector<double> low(kBuckets);
    for (size_t key = 0; key < kKeys; ++key) {
      const uint64_t hash = hashOf(key);
      ++high[hash >> 54];
      ++low[hash & (kBuckets - 1)];
    }
    const double expected = static_cast<double>(kKeys) / kBuckets;
    double highStat = 0;
    double lowStat = 0;
    for (size_t i = 0; i < kBuckets; ++i) {
      highStat += (high[i] - expected) * (high[i] - expected) / expected;
      lowStat += (low[i] - expected) * (low[i] - expected) / expected;
    }
    return std::max(highStat, lowStat);
  };
  // 1,023 degrees of freedom: mean 1,023, standard deviation 45; 1,250 is five sigma.
  constexpr double kLimit = 1250;
  EXPECT_LT(chiSquare([](size_t key) { return hash64Int64(key); }), kLimit);
  EXPECT_LT(chiSquare([](size_t key) { return hash64Int64(key << 32); }), kLimit);
  EXPECT_LT(chiSquare([](size_t key) { return hash64(std::to_string(key)); }), kLimit);
  EXPECT_LT(chiSquare([](size_t key) { return hash64("customer#" + std::to_string(key) + "#long-enough-suffix"); }),
            kLimit);
  EXPECT_LT(chiSquare([](size_t key) { return hashCombine(hash64Int64(key % 1000), hash64Int64(key / 1000)); }),
            kLimit);
}

TEST(HashingTest, HashCombineDependsOnOrder) {
  const uint64_t a = hash64Int64(1);
  const uint64_t b = hash64Int64(2);
  EXPECT_NE(hashCombine(a, b), hashCombine(b, a));
  EXPECT_NE(hashCombine(0, 0), 0u);
  std::unordered_set<uint64_t> seen;
  for (uint64_t x = 0; x < 300; ++x) {
    for (uint64_t y = 0; y < 300; ++y) {
      ASSERT_TRUE(seen.insert(hashCombine(hash64Int64(x), hash64Int64(y))).second) << x << ", " << y;
    }
  }
}

}  // namespace
}  // namespace shoal
