// Column statistics collected at load time, and the HyperLogLog sketch behind their distinct counts.
#include "worker/storage/column_statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/hashing.h"
#include "common/status.h"
#include "engine/aggregate/hyper_log_log.h"
#include "engine/vector/vector.h"

namespace shoal::worker {
namespace {

using engine::HyperLogLog;
using engine::LogicalType;
using engine::Value;
using engine::Vector;

// One standard error of the default sketch: 1.04 / sqrt(2^14).
const double kStandardError = 1.04 / std::sqrt(16384.0);

HyperLogLog sketchOfRange(uint64_t begin, uint64_t end) {
  HyperLogLog sketch;
  for (uint64_t i = begin; i < end; ++i) {
    sketch.add(hash64Int64(i));
  }
  return sketch;
}

double relativeError(double estimate, double truth) {
  return std::abs(estimate - truth) / truth;
}

/// Expects `action` to fail with SQLSTATE XX001 (data corrupted).
template <class Action>
void expectCorrupted(Action action, const std::string& context) {
  try {
    action();
    ADD_FAILURE() << "accepted corrupted bytes: " << context;
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kDataCorrupted) << context << ": " << error.what();
  }
}

/// Builds a vector of `type` from values (std::nullopt for NULL), through Vector::setValue.
Vector vectorOf(const LogicalType& type, const std::vector<std::optional<Value>>& values) {
  Vector vector(type, values.size());
  for (size_t row = 0; row < values.size(); ++row) {
    vector.setValue(row, values[row] ? *values[row] : Value::null(type));
  }
  return vector;
}

/// Returns a copy of statistics bytes with the payload edited and the CRC-32C trailer recomputed,
/// so that only the structural checks can catch the edit.
std::string withFreshChecksum(std::string bytes, size_t position, char replacement) {
  bytes[position] = replacement;
  const uint32_t crc = crc32Hash(bytes.data(), bytes.size() - 4);
  std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
  return bytes;
}

void expectSameStatistics(const ColumnStatistics& a, const ColumnStatistics& b) {
  EXPECT_EQ(a.rowCount(), b.rowCount());
  EXPECT_EQ(a.nullCount(), b.nullCount());
  EXPECT_EQ(a.distinctCount(), b.distinctCount());
  EXPECT_EQ(a.min().toString(), b.min().toString());
  EXPECT_EQ(a.max().toString(), b.max().toString());
  EXPECT_EQ(a.min().isNull(), b.min().isNull());
  EXPECT_TRUE(a.sketch() == b.sketch());
}

// --- HyperLogLog ---

TEST(ColumnStatisticsTest, HyperLogLogIsAccurateAcrossCardinalities) {
  // Deterministic inputs, so the measured errors are fixed; the bound is three standard errors
  // (2.4 %), which a correct sketch exceeds with probability 0.3 % per cardinality.
  for (uint64_t cardinality : {1'000ull, 100'000ull, 1'000'000ull}) {
    for (int family = 0; family < 2; ++family) {
      HyperLogLog sketch;
      for (uint64_t i = 0; i < cardinality; ++i) {
        sketch.add(family == 0 ? hash64Int64(i) : hash64("key-" + std::to_string(i)));
      }
      const double error = relativeError(sketch.estimate(), static_cast<double>(cardinality));
      std::printf("[ measured ] HLL p=14 %-7s n=%-8llu estimate=%.0f error=%.3f%%\n", family == 0 ? "ints" : "strings",
                  static_cast<unsigned long long>(cardinality), sketch.estimate(), 100 * error);
      EXPECT_LT(error, 3 * kStandardError) << "n=" << cardinality << " family " << family;
    }
  }
}

// The single draws above can land anywhere within a few standard errors; over many disjoint key
// ranges the root-mean-square error must match the theory (0.81 % at precision 14) and the mean
// error (the bias) must be near zero.
TEST(ColumnStatisticsTest, HyperLogLogErrorMatchesTheoryOverManyRuns) {
  for (auto [cardinality, runs] : {std::pair{100'000ull, 40}, std::pair{1'000'000ull, 12}}) {
    double sum = 0;
    double sumOfSquares = 0;
    for (int run = 0; run < runs; ++run) {
      const uint64_t begin = (static_cast<uint64_t>(run) + 1) * 10'000'000;
      const double error =
          (sketchOfRange(begin, begin + cardinality).estimate() - static_cast<double>(cardinality)) / cardinality;
      sum += error;
      sumOfSquares += error * error;
    }
    const double mean = sum / runs;
    const double rootMeanSquare = std::sqrt(sumOfSquares / runs);
    std::printf("[ measured ] HLL p=14 n=%llu over %d runs: mean error %+.3f%%, rms error %.3f%%\n",
                static_cast<unsigned long long>(cardinality), runs, 100 * mean, 100 * rootMeanSquare);
    EXPECT_LT(rootMeanSquare, 1.5 * kStandardError);
    EXPECT_LT(std::abs(mean), 0.5 * kStandardError);
  }
}

// Small and mid-range cardinalities, including where classic HyperLogLog switches from linear
// counting to the raw estimate (2.5 * 2^14 = 40,960), which Ertl's estimator handles smoothly.
TEST(ColumnStatisticsTest, HyperLogLogIsAccurateAtSmallAndTransitionCardinalities) {
  EXPECT_EQ(HyperLogLog().estimate(), 0.0);
  // Below a few hundred values the estimate is exact up to the odd register collision
  // (100 values collide in 16,384 registers with probability 26 %).
  for (uint64_t cardinality : {1ull, 2ull, 10ull, 100ull, 300ull}) {
    EXPECT_NEAR(sketchOfRange(0, cardinality).estimate(), static_cast<double>(cardinality),
                1.0 + 0.005 * static_cast<double>(cardinality));
  }
  double worst = 0;
  for (uint64_t cardinality = 1'000; cardinality <= 200'000; cardinality = cardinality * 5 / 4) {
    // Different keys for each cardinality, so the errors are independent draws.
    const double error = relativeError(sketchOfRange(cardinality * 1000, cardinality * 1001).estimate(),
                                       static_cast<double>(cardinality));
    worst = std::max(worst, error);
    EXPECT_LT(error, 3.5 * kStandardError) << "n=" << cardinality;
  }
  std::printf("[ measured ] HLL p=14 worst error over n=1,000..200,000 (x1.25 steps): %.3f%%\n", 100 * worst);
}

TEST(ColumnStatisticsTest, HyperLogLogIgnoresDuplicates) {
  HyperLogLog once = sketchOfRange(0, 5'000);
  HyperLogLog thrice = sketchOfRange(0, 5'000);
  for (int repeat = 0; repeat < 2; ++repeat) {
    for (uint64_t i = 0; i < 5'000; ++i) {
      thrice.add(hash64Int64(i));
    }
  }
  EXPECT_TRUE(once == thrice);
}

TEST(ColumnStatisticsTest, HyperLogLogMergeEqualsUnion) {
  // Overlapping inputs: [0, 600k) and [400k, 1M); their union has 1M distinct values.
  HyperLogLog left = sketchOfRange(0, 600'000);
  HyperLogLog right = sketchOfRange(400'000, 1'000'000);
  HyperLogLog merged = left;
  merged.merge(right);
  EXPECT_TRUE(merged == sketchOfRange(0, 1'000'000));
  HyperLogLog reversed = right;
  reversed.merge(left);
  EXPECT_TRUE(reversed == merged);
  EXPECT_LT(relativeError(merged.estimate(), 1e6), 3 * kStandardError);
  HyperLogLog coarse(12);
  EXPECT_THROW(merged.merge(coarse), ShoalError);
}

TEST(ColumnStatisticsTest, HyperLogLogSerializationRoundTrips) {
  for (uint64_t cardinality : {0ull, 1ull, 50ull, 2'000ull, 100'000ull}) {
    for (uint8_t precision : {uint8_t{4}, uint8_t{12}, HyperLogLog::kDefaultPrecision, uint8_t{18}}) {
      HyperLogLog sketch(precision);
      for (uint64_t i = 0; i < cardinality; ++i) {
        sketch.add(hash64Int64(i));
      }
      const std::string bytes = sketch.serialize();
      const HyperLogLog copy = HyperLogLog::deserialize(bytes);
      EXPECT_TRUE(copy == sketch) << "n=" << cardinality << " p=" << int{precision};
      EXPECT_EQ(copy.estimate(), sketch.estimate());
      // Dense is 6 bits per register; sparse must never be larger.
      EXPECT_LE(bytes.size(), (size_t{1} << precision) * 6 / 8 + 7);
    }
  }
  // An empty default sketch is a handful of bytes, not 12 KiB.
  EXPECT_LT(HyperLogLog().serialize().size(), 16u);
}

TEST(ColumnStatisticsTest, HyperLogLogRejectsCorruptedBytes) {
  for (uint64_t cardinality : {20ull, 100'000ull}) {  // sparse and dense encodings
    const std::string bytes = sketchOfRange(0, cardinality).serialize();
    for (size_t length = 0; length < bytes.size(); length += (length < 64 ? 1 : 97)) {
      expectCorrupted([&] { HyperLogLog::deserialize(std::string_view(bytes).substr(0, length)); },
                      "truncated to " + std::to_string(length));
    }
    for (size_t position = 0; position < bytes.size(); position += (position < 64 ? 1 : 89)) {
      std::string flipped = bytes;
      flipped[position] = static_cast<char>(flipped[position] ^ 0x10);
      expectCorrupted([&] { HyperLogLog::deserialize(flipped); }, "bit flip at " + std::to_string(position));
    }
    expectCorrupted([&] { HyperLogLog::deserialize(bytes + "x"); }, "trailing byte");
  }
  std::mt19937_64 random(3);
  for (int trial = 0; trial < 200; ++trial) {
    std::string garbage(random() % 200, '\0');
    for (char& c : garbage) {
      c = static_cast<char>(random());
    }
    expectCorrupted([&] { HyperLogLog::deserialize(garbage); }, "garbage");
  }
}

// --- ColumnStatistics ---

TEST(ColumnStatisticsTest, IntegerMinMaxNullsAndDistinct) {
  const LogicalType type = LogicalType::integer();
  ColumnStatistics statistics(type);
  EXPECT_TRUE(statistics.min().isNull());
  EXPECT_TRUE(statistics.max().isNull());
  EXPECT_EQ(statistics.distinctCount(), 0u);

  statistics.update(vectorOf(type, {Value::integer(5), std::nullopt, Value::integer(-7), Value::integer(5),
                                    Value::integer(42), std::nullopt}),
                    6);
  EXPECT_EQ(statistics.rowCount(), 6u);
  EXPECT_EQ(statistics.nullCount(), 2u);
  EXPECT_EQ(statistics.min().asInt32(), -7);
  EXPECT_EQ(statistics.max().asInt32(), 42);
  EXPECT_EQ(statistics.min().type(), type);
  EXPECT_EQ(statistics.distinctCount(), 3u);

  // Only the first numRows rows count: the 1,000,000 beyond them is ignored.
  statistics.update(vectorOf(type, {Value::integer(100), Value::integer(1'000'000)}), 1);
  EXPECT_EQ(statistics.rowCount(), 7u);
  EXPECT_EQ(statistics.max().asInt32(), 100);
  EXPECT_EQ(statistics.distinctCount(), 4u);

  EXPECT_THROW(statistics.update(vectorOf(LogicalType::bigInt(), {Value::bigInt(1)}), 1), ShoalError);
  EXPECT_THROW(statistics.update(vectorOf(type, {Value::integer(1)}), 2), ShoalError);
}

TEST(ColumnStatisticsTest, AllNullColumnHasNoRange) {
  ColumnStatistics statistics(LogicalType::text());
  statistics.update(vectorOf(LogicalType::text(), {std::nullopt, std::nullopt, std::nullopt}), 3);
  EXPECT_EQ(statistics.rowCount(), 3u);
  EXPECT_EQ(statistics.nullCount(), 3u);
  EXPECT_TRUE(statistics.min().isNull());
  EXPECT_TRUE(statistics.max().isNull());
  EXPECT_EQ(statistics.distinctCount(), 0u);
  expectSameStatistics(ColumnStatistics::deserialize(LogicalType::text(), statistics.serialize()), statistics);
}

// One case per supported type: values in an order where neither the first nor the last row holds
// the min or the max, with NULLs between them.
struct TypeCase {
  std::string name;
  LogicalType type;
  std::vector<std::optional<Value>> values;
  Value min;
  Value max;
  uint64_t distinct;
};

std::vector<TypeCase> typeCases() {
  const LogicalType shortDecimal = LogicalType::decimal(10, 2);
  const LogicalType wideDecimal = LogicalType::decimal(30, 2);
  const engine::int128_t huge = static_cast<engine::int128_t>(1) << 90;  // beyond int64
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double infinity = std::numeric_limits<double>::infinity();
  const LogicalType char5 = LogicalType::character(5);
  return {
      {"boolean",
       LogicalType::boolean(),
       {Value::boolean(true), std::nullopt, Value::boolean(false), Value::boolean(true)},
       Value::boolean(false),
       Value::boolean(true),
       2},
      {"integer",
       LogicalType::integer(),
       {Value::integer(3), Value::integer(std::numeric_limits<int32_t>::min()), std::nullopt,
        Value::integer(std::numeric_limits<int32_t>::max()), Value::integer(3), Value::integer(0)},
       Value::integer(std::numeric_limits<int32_t>::min()),
       Value::integer(std::numeric_limits<int32_t>::max()),
       4},
      {"date",
       LogicalType::date(),
       {Value::date(19000), Value::date(-719162), std::nullopt, Value::date(2932896), Value::date(0)},
       Value::date(-719162),
       Value::date(2932896),
       4},
      {"bigint",
       LogicalType::bigInt(),
       {Value::bigInt(1), Value::bigInt(-9'000'000'000'000), std::nullopt, Value::bigInt(9'000'000'000'000),
        Value::bigInt(1)},
       Value::bigInt(-9'000'000'000'000),
       Value::bigInt(9'000'000'000'000),
       3},
      {"decimal(10,2)",
       shortDecimal,
       {Value::decimal(shortDecimal, 150), Value::decimal(shortDecimal, -99'999'999), std::nullopt,
        Value::decimal(shortDecimal, 99'999'999), Value::decimal(shortDecimal, 0)},
       Value::decimal(shortDecimal, -99'999'999),
       Value::decimal(shortDecimal, 99'999'999),
       4},
      {"decimal(30,2)",
       wideDecimal,
       {Value::decimal(wideDecimal, 7), Value::decimal(wideDecimal, -huge), std::nullopt,
        Value::decimal(wideDecimal, huge), Value::decimal(wideDecimal, huge + 1), Value::decimal(wideDecimal, 7)},
       Value::decimal(wideDecimal, -huge),
       Value::decimal(wideDecimal, huge + 1),
       4},
      // NaN sorts above +infinity (PostgreSQL); -0.0 and 0.0 are one value.
      {"double",
       LogicalType::doublePrecision(),
       {Value::doublePrecision(0.0), Value::doublePrecision(-infinity), std::nullopt, Value::doublePrecision(nan),
        Value::doublePrecision(infinity), Value::doublePrecision(-0.0), Value::doublePrecision(2.5)},
       Value::doublePrecision(-infinity),
       Value::doublePrecision(nan),
       5},
      // Byte order (C collation): 'Z' < 'a' < 'caf\xC3\xA9'; long values live outside the StringRef.
      {"varchar",
       LogicalType::varchar(64),
       {Value::varchar("apple"), Value::varchar(""), std::nullopt, Value::varchar("caf\xC3\xA9"),
        Value::varchar("Zebra crossing, much longer than twelve bytes"), Value::varchar("apple")},
       Value::varchar(""),
       Value::varchar("caf\xC3\xA9"),
       4},
      // CHAR compares without trailing spaces: 'ab' and 'ab   ' are one value, and min is 'ab'.
      {"char(5)",
       char5,
       {Value::varchar("b", char5), Value::varchar("ab   ", char5), std::nullopt, Value::varchar("ab", char5),
        Value::varchar("zz", char5)},
       Value::varchar("ab", char5),
       Value::varchar("zz", char5),
       3},
  };
}

TEST(ColumnStatisticsTest, EveryTypeTracksRangeNullsAndDistinct) {
  for (const TypeCase& test : typeCases()) {
    SCOPED_TRACE(test.name);
    ColumnStatistics statistics(test.type);
    statistics.update(vectorOf(test.type, test.values), test.values.size());
    EXPECT_EQ(statistics.rowCount(), test.values.size());
    EXPECT_EQ(statistics.nullCount(), 1u);
    EXPECT_EQ(statistics.min().toString(), test.min.toString());
    EXPECT_EQ(statistics.max().toString(), test.max.toString());
    EXPECT_EQ(statistics.min().storage(), test.min.storage());
    EXPECT_EQ(statistics.min().type(), test.type);
    EXPECT_EQ(statistics.max().type(), test.type);
    EXPECT_EQ(statistics.distinctCount(), test.distinct);

    const ColumnStatistics copy = ColumnStatistics::deserialize(test.type, statistics.serialize());
    expectSameStatistics(copy, statistics);
    EXPECT_EQ(copy.min().storage(), statistics.min().storage());
  }
}

// Merging per-thread statistics gives the same result as one pass over all rows, whatever the split.
TEST(ColumnStatisticsTest, MergeEqualsOnePass) {
  for (const TypeCase& test : typeCases()) {
    SCOPED_TRACE(test.name);
    for (size_t split = 0; split <= test.values.size(); ++split) {
      std::vector<std::optional<Value>> head(test.values.begin(), test.values.begin() + split);
      std::vector<std::optional<Value>> tail(test.values.begin() + split, test.values.end());
      ColumnStatistics left(test.type);
      ColumnStatistics right(test.type);
      left.update(vectorOf(test.type, head), head.size());
      right.update(vectorOf(test.type, tail), tail.size());
      left.merge(right);
      ColumnStatistics onePass(test.type);
      onePass.update(vectorOf(test.type, test.values), test.values.size());
      expectSameStatistics(left, onePass);
    }
  }
  ColumnStatistics integers(LogicalType::integer());
  EXPECT_THROW(integers.merge(ColumnStatistics(LogicalType::text())), ShoalError);
}

// A million-row load in 2,048-row vectors with every seventh row NULL: the typed loops, the
// validity fast path and the distinct estimate at scale.
TEST(ColumnStatisticsTest, LargeLoadEstimatesDistinctValues) {
  constexpr size_t kRows = 1'000'000;
  constexpr size_t kDistinct = 250'000;
  ColumnStatistics bigints(LogicalType::bigInt());
  ColumnStatistics strings(LogicalType::text());
  size_t nonNull = 0;
  for (size_t start = 0; start < kRows; start += engine::kVectorSize) {
    const size_t count = std::min(engine::kVectorSize, kRows - start);
    Vector bigintVector(LogicalType::bigInt(), count);
    Vector stringVector(LogicalType::text(), count);
    for (size_t i = 0; i < count; ++i) {
      const size_t row = start + i;
      const bool isNull = row % 7 == 3;
      bigintVector.setNull(i, isNull);
      stringVector.setNull(i, isNull);
      if (!isNull) {
        ++nonNull;
        const auto key = static_cast<int64_t>((row * 7919) % kDistinct);
        bigintVector.data<int64_t>()[i] = key - 1000;
        stringVector.setString(i, "customer#" + std::to_string(key));
      }
    }
    bigints.update(bigintVector, count);
    strings.update(stringVector, count);
  }
  for (const ColumnStatistics* statistics : {&bigints, &strings}) {
    EXPECT_EQ(statistics->rowCount(), kRows);
    EXPECT_EQ(statistics->nullCount(), kRows - nonNull);
    const double error = relativeError(static_cast<double>(statistics->distinctCount()), kDistinct);
    std::printf("[ measured ] %s: %llu distinct estimated as %llu, error %.3f%%\n",
                statistics->type().toString().c_str(), static_cast<unsigned long long>(kDistinct),
                static_cast<unsigned long long>(statistics->distinctCount()), 100 * error);
    EXPECT_LT(error, 3 * kStandardError);
  }
  EXPECT_EQ(bigints.min().asInt64(), -1000);
  EXPECT_EQ(bigints.max().asInt64(), static_cast<int64_t>(kDistinct) - 1 - 1000);
  EXPECT_EQ(strings.min().asString(), "customer#0");
  EXPECT_EQ(strings.max().asString(), "customer#99999");
}

TEST(ColumnStatisticsTest, DistinctCountNeverExceedsNonNullRows) {
  ColumnStatistics statistics(LogicalType::bigInt());
  std::vector<std::optional<Value>> values;
  for (int64_t i = 0; i < 500; ++i) {
    values.push_back(Value::bigInt(i * 1'000'003));
  }
  statistics.update(vectorOf(LogicalType::bigInt(), values), values.size());
  EXPECT_LE(statistics.distinctCount(), 500u);
  EXPECT_GE(statistics.distinctCount(), 495u);
}

TEST(ColumnStatisticsTest, DeserializeRejectsCorruptedBytes) {
  const std::vector<TypeCase> cases = typeCases();
  for (const TypeCase& test : cases) {
    SCOPED_TRACE(test.name);
    ColumnStatistics statistics(test.type);
    statistics.update(vectorOf(test.type, test.values), test.values.size());
    const std::string bytes = statistics.serialize();
    for (size_t length = 0; length < bytes.size(); ++length) {
      expectCorrupted([&] { ColumnStatistics::deserialize(test.type, std::string_view(bytes).substr(0, length)); },
                      "truncated to " + std::to_string(length));
    }
    for (size_t position = 0; position < bytes.size(); ++position) {
      for (int bit = 0; bit < 8; ++bit) {
        std::string flipped = bytes;
        flipped[position] = static_cast<char>(flipped[position] ^ (1 << bit));
        expectCorrupted([&] { ColumnStatistics::deserialize(test.type, flipped); },
                        "bit " + std::to_string(bit) + " of byte " + std::to_string(position));
      }
    }
    expectCorrupted([&] { ColumnStatistics::deserialize(test.type, bytes + '\0'); }, "trailing byte");
    // Bytes of another column's type.
    const TypeCase& other = &test == &cases.front() ? cases.back() : cases.front();
    expectCorrupted([&] { ColumnStatistics::deserialize(other.type, bytes); }, "read as " + other.name);
  }

  // Edits behind a valid checksum: only the structural checks can catch these.
  ColumnStatistics integers(LogicalType::integer());
  integers.update(vectorOf(LogicalType::integer(), {Value::integer(1), std::nullopt, Value::integer(9)}), 3);
  const std::string bytes = integers.serialize();
  // Layout: version, type id, physical type, scale, row count (3), NULL count (1), flags, min, max, ...
  expectCorrupted([&] { ColumnStatistics::deserialize(LogicalType::integer(), withFreshChecksum(bytes, 0, 9)); },
                  "unknown version");
  expectCorrupted([&] { ColumnStatistics::deserialize(LogicalType::integer(), withFreshChecksum(bytes, 5, 4)); },
                  "more NULLs than rows");
  expectCorrupted([&] { ColumnStatistics::deserialize(LogicalType::integer(), withFreshChecksum(bytes, 5, 3)); },
                  "min/max present with no non-NULL row");
  expectCorrupted([&] { ColumnStatistics::deserialize(LogicalType::integer(), withFreshChecksum(bytes, 6, 0)); },
                  "min/max absent with non-NULL rows");
  expectCorrupted([&] { ColumnStatistics::deserialize(LogicalType::integer(), withFreshChecksum(bytes, 6, 3)); },
                  "unknown flag");
  expectCorrupted([&] { ColumnStatistics::deserialize(LogicalType::integer(), withFreshChecksum(bytes, 7, 10)); },
                  "min above max");
  expectCorrupted([&] { ColumnStatistics::deserialize(LogicalType::integer(), withFreshChecksum(bytes, 15, 100)); },
                  "sketch length beyond the bytes");

  // Random edits behind a valid checksum, to reach every parsing path: each must either decode
  // (an edited sketch register is still a valid sketch) or fail with XX001, never crash.
  std::mt19937_64 mutations(9);
  const std::vector<TypeCase> mutationCases = typeCases();
  for (int trial = 0; trial < 20'000; ++trial) {
    const TypeCase& test = mutationCases[trial % mutationCases.size()];
    ColumnStatistics statistics(test.type);
    statistics.update(vectorOf(test.type, test.values), test.values.size());
    std::string mutated = statistics.serialize();
    const size_t position = mutations() % (mutated.size() - 4);
    mutated = withFreshChecksum(mutated, position, static_cast<char>(mutations()));
    if (mutations() % 4 == 0) {  // and sometimes cut the payload short as well
      const size_t keep = mutations() % (mutated.size() - 4);
      mutated = withFreshChecksum(mutated.substr(0, keep) + "0000", 0, mutated[0]);
    }
    try {
      ColumnStatistics::deserialize(test.type, mutated);
    } catch (const ShoalError& error) {
      ASSERT_EQ(error.status().sqlState(), SqlState::kDataCorrupted) << error.what();
    }
  }

  std::mt19937_64 random(5);
  for (int trial = 0; trial < 500; ++trial) {
    std::string garbage(random() % 64, '\0');
    for (char& c : garbage) {
      c = static_cast<char>(random());
    }
    expectCorrupted([&] { ColumnStatistics::deserialize(LogicalType::text(), garbage); }, "garbage");
  }
}

}  // namespace
}  // namespace shoal::worker
