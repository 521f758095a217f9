// The value types whose order is not that of their storage: INTERVAL packs three fields into an int128 but orders
// by span; UUID keeps its bytes in an int128 whose signed order must be memcmp's. Checked against the
// definitions, over many random values, so a change to a packing cannot pass by a few hand-picked cases.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "engine/types/bytea_text.h"
#include "engine/types/interval.h"
#include "engine/types/uuid_value.h"

namespace shoal::engine {
namespace {

TEST(IntervalTest, PackingKeepsEveryFieldIncludingTheExtremes) {
  std::mt19937_64 random(42);
  std::vector<Interval> samples = {
      {0, 0, 0}, {INT32_MIN, INT32_MIN, INT64_MIN}, {INT32_MAX, INT32_MAX, INT64_MAX}, {-1, 0, 1}, {0, -1, -1}};
  for (int i = 0; i < 10000; ++i) {
    samples.push_back({static_cast<int32_t>(random()), static_cast<int32_t>(random()), static_cast<int64_t>(random())});
  }
  for (const Interval& interval : samples) EXPECT_EQ(unpackInterval(packInterval(interval)), interval);
}

TEST(IntervalTest, SpanCountsAMonthAsThirtyDaysAndADayAsTwentyFourHours) {
  EXPECT_EQ(intervalSpan(Interval{1, 0, 0}), intervalSpan(Interval{0, 30, 0}));
  EXPECT_EQ(intervalSpan(Interval{0, 1, 0}), intervalSpan(Interval{0, 0, 86'400'000'000}));
  EXPECT_LT(intervalSpan(Interval{0, 1, 0}), intervalSpan(Interval{0, 0, 86'400'000'001}));
  EXPECT_LT(intervalSpan(Interval{INT32_MIN, INT32_MIN, INT64_MIN}), intervalSpan(Interval{0, 0, 0}));
  EXPECT_GT(intervalSpan(Interval{INT32_MAX, INT32_MAX, INT64_MAX}), intervalSpan(Interval{INT32_MAX, 0, 0}));
}

TEST(IntervalTest, TextRoundTripsThroughInputAndOutput) {
  std::mt19937_64 random(7);
  for (int i = 0; i < 10000; ++i) {
    const Interval interval{static_cast<int32_t>(random() % 2'000'000) - 1'000'000,
                            static_cast<int32_t>(random() % 2'000'000) - 1'000'000,
                            static_cast<int64_t>(random() % 2'000'000'000'000'000) - 1'000'000'000'000'000};
    const std::string text = intervalText(interval);
    EXPECT_EQ(parseInterval(text), interval) << text;
  }
  EXPECT_EQ(intervalText(Interval{}), "00:00:00");
  EXPECT_EQ(intervalText(Interval{-14, -1, 7'200'000'000}), "-1 years -2 mons -1 days +02:00:00");
}

TEST(UuidTest, SignedOrderOfTheStorageIsTheBytesOrder) {
  std::mt19937_64 random(11);
  std::vector<std::array<uint8_t, 16>> byteStrings(2000);
  for (auto& bytes : byteStrings) {
    for (auto& byte : bytes) byte = static_cast<uint8_t>(random());
  }
  byteStrings.push_back({});
  byteStrings.push_back({0x80});
  byteStrings.push_back(
      {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  for (size_t i = 0; i + 1 < byteStrings.size(); ++i) {
    const auto& a = byteStrings[i];
    const auto& b = byteStrings[i + 1];
    const int bytesOrder = std::memcmp(a.data(), b.data(), 16);
    const int128_t x = uuidFromBytes(a.data());
    const int128_t y = uuidFromBytes(b.data());
    EXPECT_EQ(bytesOrder < 0, x < y);
    EXPECT_EQ(bytesOrder == 0, x == y);
    uint8_t back[16];
    uuidToBytes(x, back);
    EXPECT_EQ(std::memcmp(back, a.data(), 16), 0);
    std::string text;
    appendUuidText(x, text);
    EXPECT_EQ(parseUuid(text), x) << text;
  }
}

TEST(ByteaTest, HexOutputReadsBackAsTheSameBytes) {
  std::mt19937_64 random(3);
  for (int i = 0; i < 1000; ++i) {
    std::string bytes(random() % 40, '\0');
    for (char& byte : bytes) byte = static_cast<char>(random());
    std::string text;
    appendByteaText(bytes, text);
    EXPECT_EQ(parseBytea(text), bytes);
  }
  EXPECT_EQ(parseBytea("a\\\\b\\001"), std::string("a\\b\x01", 4));
}

}  // namespace
}  // namespace shoal::engine
