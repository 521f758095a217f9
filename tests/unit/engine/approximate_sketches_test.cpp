// The sketches behind approx_count_distinct and approx_percentile: their accuracy against exact answers, and
// that splitting the input (as workers and threads do), merging and encoding never change the result.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/hashing.h"
#include "common/status.h"
#include "engine/aggregate/distinct_sketch.h"
#include "engine/aggregate/quantile_sketch.h"

namespace shoal::engine {
namespace {

uint64_t hashOf(uint64_t value) {
  return hash64Int64(value);
}

TEST(DistinctSketchTest, CountsExactlyUpToTheExactLimit) {
  DistinctSketch sketch;
  EXPECT_EQ(sketch.estimate(), 0);
  for (int round = 0; round < 5; ++round) {
    for (uint64_t v = 0; v < DistinctSketch::kExactLimit; ++v) sketch.add(hashOf(v));
  }
  EXPECT_EQ(sketch.estimate(), static_cast<int64_t>(DistinctSketch::kExactLimit));
}

TEST(DistinctSketchTest, EstimatesLargeCountsWithinThreeStandardErrors) {
  for (uint64_t distinct : {600, 5'000, 100'000, 1'000'000}) {
    DistinctSketch sketch;
    for (uint64_t v = 0; v < distinct; ++v) sketch.add(hashOf(v * 7 + 3));
    const double error = std::abs(static_cast<double>(sketch.estimate()) - static_cast<double>(distinct)) / distinct;
    EXPECT_LT(error, 3 * 0.0081) << distinct << " distinct values, estimated " << sketch.estimate();
  }
}

TEST(DistinctSketchTest, SplitsMergedInAnyOrderGiveTheSameEstimate) {
  std::mt19937_64 random(42);
  for (uint64_t distinct : {300, 700, 50'000}) {
    std::vector<uint64_t> values;
    for (uint64_t v = 0; v < distinct; ++v) values.push_back(hashOf(v));
    values.insert(values.end(), values.begin(), values.begin() + static_cast<long>(distinct / 3));  // duplicates
    DistinctSketch whole;
    for (uint64_t hash : values) whole.add(hash);
    for (int parts : {2, 3, 7}) {
      std::shuffle(values.begin(), values.end(), random);
      std::vector<DistinctSketch> pieces(static_cast<size_t>(parts));
      for (size_t i = 0; i < values.size(); ++i) pieces[i % pieces.size()].add(values[i]);
      DistinctSketch merged;
      for (auto& piece : pieces) merged.merge(DistinctSketch::decode(piece.encode()));
      EXPECT_EQ(merged.estimate(), whole.estimate()) << distinct << " values in " << parts << " parts";
    }
  }
}

TEST(DistinctSketchTest, MalformedStatesFailAsCorrupted) {
  for (std::string bytes : {std::string(), std::string("E1234"), std::string("Q")}) {
    try {
      DistinctSketch::decode(bytes);
      ADD_FAILURE() << "decoded " << bytes.size() << " bytes";
    } catch (const ShoalError& error) {
      EXPECT_EQ(error.status().sqlState(), SqlState::kDataCorrupted) << error.what();
    }
  }
}

/// percentile_disc's answer: the first value whose position reaches fraction * n.
double exactPercentile(std::vector<double> values, double fraction) {
  std::sort(values.begin(), values.end(), [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; });
  const auto position = std::max<size_t>(1, static_cast<size_t>(std::ceil(fraction * values.size())));
  return values[position - 1];
}

TEST(QuantileSketchTest, StaysWithinOnePercentOfPercentileDisc) {
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> lognormal(3, 2);
  std::vector<double> values;
  for (int i = 0; i < 200'000; ++i) {
    const double magnitude = lognormal(random);
    values.push_back(i % 5 == 0 ? -magnitude : magnitude);
  }
  for (int i = 0; i < 500; ++i) values.push_back(0);
  QuantileSketch sketch;
  for (double value : values) sketch.add(value);
  for (double fraction : {0.0, 0.001, 0.1, 0.2, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999, 1.0}) {
    const double exact = exactPercentile(values, fraction);
    const double approximate = *sketch.quantile(fraction);
    EXPECT_LE(std::abs(approximate - exact), QuantileSketch::kRelativeAccuracy * std::abs(exact) * (1 + 1e-9))
        << "fraction " << fraction << ": exact " << exact << ", approximate " << approximate;
  }
}

TEST(QuantileSketchTest, KeepsExtremesZerosInfinitiesAndNaN) {
  QuantileSketch sketch;
  EXPECT_FALSE(sketch.quantile(0.5).has_value());
  for (double value : {-std::numeric_limits<double>::infinity(), -2.0, 0.0, 3.0, 1e300,
                       std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    sketch.add(value);
  }
  EXPECT_EQ(*sketch.quantile(0), -std::numeric_limits<double>::infinity());
  EXPECT_NEAR(*sketch.quantile(2.0 / 7), -2.0, 0.02);
  EXPECT_EQ(*sketch.quantile(3.0 / 7), 0.0);
  EXPECT_NEAR(*sketch.quantile(5.0 / 7), 1e300, 0.01 * 1e300);
  EXPECT_EQ(*sketch.quantile(6.0 / 7), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*sketch.quantile(1)));
  QuantileSketch single;
  single.add(123.456);
  EXPECT_EQ(*single.quantile(0.5), 123.456);  // the minimum and maximum clamp the bucket's value
}

TEST(QuantileSketchTest, SplitsMergedGiveTheWholeAnswer) {
  std::mt19937_64 random(11);
  std::uniform_real_distribution<double> uniform(-1000, 100000);
  std::vector<double> values;
  for (int i = 0; i < 50'000; ++i) values.push_back(uniform(random));
  QuantileSketch whole;
  for (double value : values) whole.add(value);
  for (int parts : {2, 3, 5}) {
    std::vector<QuantileSketch> pieces(static_cast<size_t>(parts));
    for (size_t i = 0; i < values.size(); ++i) pieces[(i * 31) % pieces.size()].add(values[i]);
    QuantileSketch merged;
    for (auto& piece : pieces) merged.merge(QuantileSketch::decode(piece.encode()));
    for (double fraction : {0.0, 0.3, 0.5, 0.95, 1.0}) {
      EXPECT_EQ(*merged.quantile(fraction), *whole.quantile(fraction)) << parts << " parts, fraction " << fraction;
    }
  }
}

TEST(QuantileSketchTest, AWideRangeCollapsesTheSmallestMagnitudes) {
  QuantileSketch sketch;
  for (int exponent = -300; exponent <= 300; ++exponent) sketch.add(std::pow(10.0, exponent));
  // The largest 71 orders of magnitude keep their accuracy; the bucket count stays bounded (the encoding shows it).
  EXPECT_NEAR(*sketch.quantile(1), 1e300, 1e298);
  EXPECT_NEAR(*sketch.quantile(0.9), 1e240, 0.01 * 1e240);
  EXPECT_GT(*sketch.quantile(0.5), 1e200);  // 10^0 was collapsed into the lowest kept bucket
  EXPECT_LT(sketch.encode().size(), (QuantileSketch::kMaxBuckets + 16) * sizeof(uint64_t));
}

TEST(QuantileSketchTest, MalformedStatesFailAsCorrupted) {
  QuantileSketch sketch;
  sketch.add(5);
  const std::string bytes = sketch.encode();
  for (std::string cut : {std::string(), bytes.substr(0, bytes.size() - 1), bytes + "x"}) {
    try {
      QuantileSketch::decode(cut);
      ADD_FAILURE() << "decoded " << cut.size() << " bytes";
    } catch (const ShoalError& error) {
      EXPECT_EQ(error.status().sqlState(), SqlState::kDataCorrupted) << error.what();
    }
  }
}

}  // namespace
}  // namespace shoal::engine
