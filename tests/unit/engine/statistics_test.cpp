// The arithmetic under stddev, variance and the regr_* family: 256-bit integers for the exact numeric path,
// and Youngs-Cramer moments for double precision, split and merged as the phases of a distributed aggregation.
#include <gtest/gtest.h>

#include <random>

#include "common/status.h"
#include "engine/aggregate/moments.h"
#include "engine/types/uint256.h"

namespace shoal::engine {
namespace {

using u128 = unsigned __int128;

TEST(UInt256Test, ProductsQuotientsAndRootsAreExact) {
  const u128 top = u128{1} << 127;
  const UInt256 square = UInt256::product(top, top);  // 2^254
  EXPECT_EQ(square.high, u128{1} << 126);
  EXPECT_EQ(square.low, 0u);
  EXPECT_EQ(square.shiftedLeft(1).toDecimalString(),
            "57896044618658097711785492504343953926634992332820282019728792003956564819968");  // 2^255
  EXPECT_EQ(UInt256{}.toDecimalString(), "0");

  std::mt19937_64 random(42);
  for (int i = 0; i < 2000; ++i) {
    const u128 a = (u128{random()} << 64) | random();
    const u128 b = (u128{random()} << (random() % 64)) | 1;
    const UInt256 n = UInt256::product(a, b);
    UInt256 quotient;
    UInt256 remainder;
    n.divide(UInt256::of(b), quotient, remainder);
    EXPECT_TRUE(quotient == UInt256::of(a)) << i;
    EXPECT_TRUE(remainder.isZero()) << i;
    (n + UInt256::of(b - 1)).divide(UInt256::of(b), quotient, remainder);
    EXPECT_TRUE(quotient == UInt256::of(a) && remainder == UInt256::of(b - 1)) << i;
    // floor(sqrt(a^2)) = a and floor(sqrt(a^2 - 1)) = a - 1.
    const UInt256 aSquared = UInt256::product(a, a);
    EXPECT_TRUE(aSquared.squareRoot() == UInt256::of(a)) << i;
    EXPECT_TRUE((aSquared - UInt256::of(1)).squareRoot() == UInt256::of(a - 1)) << i;
  }
  EXPECT_FALSE(UInt256::of(1).timesPowerOfTen(78).has_value());  // 10^78 > 2^256
  EXPECT_EQ(UInt256::of(1).timesPowerOfTen(77)->toDecimalString(), "1" + std::string(77, '0'));
}

TEST(MomentsTest, MergedHalvesAgreeWithOnePassAndKeepTheSpreadOfLargeValues) {
  std::mt19937_64 random(7);
  std::normal_distribution<double> noise(0, 3);
  Moments all;
  Moments left;
  Moments right;
  for (int i = 0; i < 10000; ++i) {
    const double x = 1e9 + noise(random);  // epoch-like values: a sum of squares would lose the spread
    const double y = 2 * x + noise(random);
    all.add(y, x);
    (i % 3 == 0 ? left : right).add(y, x);
  }
  Moments merged = left;
  merged.merge(right);
  // Values near 1e9 hold about 7 digits of a spread of 3 (their ulp is 1e-7): the one-pass and the merged
  // moments agree to about that, where sums of squares (near 1e22, ulp 1e6) would keep none of it.
  for (auto function : {AggregateFunction::kCovarPop, AggregateFunction::kCorr, AggregateFunction::kRegrSlope,
                        AggregateFunction::kRegrSxx}) {
    EXPECT_NEAR(*finishMoments(function, merged), *finishMoments(function, all),
                1e-6 * std::abs(*finishMoments(function, all)));
  }
  // The spread of x is about 9 (noise of 3); the slope about 2.
  EXPECT_NEAR(*finishMoments(AggregateFunction::kRegrSxx, all) / 9999, 9, 0.5);
  EXPECT_NEAR(*finishMoments(AggregateFunction::kRegrSlope, all), 2, 0.05);
  // Through its encoded form, as a partial state travels.
  const Moments decoded = Moments::decode(merged.encode());
  EXPECT_EQ(*finishMoments(AggregateFunction::kCorr, decoded), *finishMoments(AggregateFunction::kCorr, merged));
}

TEST(MomentsTest, EdgesFollowPostgreSql) {
  Moments one;
  one.add(5);
  EXPECT_FALSE(finishMoments(AggregateFunction::kVarSamp, one).has_value());  // one value: no sample variance
  EXPECT_EQ(*finishMoments(AggregateFunction::kVarPop, one), 0);
  Moments infinite;
  infinite.add(std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(*finishMoments(AggregateFunction::kVarPop, infinite)));  // not a variance of 0
  Moments huge;
  huge.add(1e308);
  EXPECT_THROW(huge.add(-1e308), shoal::ShoalError);  // finite values, an infinite spread: 22003
  Moments flat;
  flat.add(1, 3);
  flat.add(2, 3);
  EXPECT_FALSE(finishMoments(AggregateFunction::kRegrSlope, flat).has_value());  // x does not vary
  EXPECT_FALSE(finishMoments(AggregateFunction::kCorr, flat).has_value());
  EXPECT_THROW(Moments::decode("short"), shoal::ShoalError);
}

}  // namespace
}  // namespace shoal::engine
