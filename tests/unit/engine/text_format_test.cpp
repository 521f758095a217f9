// PostgreSQL's text formats in and out: what a client sees of every value.
#include "engine/types/text_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/status.h"
#include "engine/types/date.h"

namespace shoal::engine {
namespace {

std::string decimalText(int128_t unscaled, int scale) {
  std::string out;
  appendDecimalText(unscaled, scale, out);
  return out;
}

std::string doubleText(double value) {
  std::string out;
  appendDoubleText(value, out);
  return out;
}

std::string_view sqlStateOf(auto&& action) {
  try {
    action();
  } catch (const ShoalError& error) {
    return error.status().sqlState();
  }
  return "none";
}

TEST(TextFormatTest, DecimalsPrintAtTheirScale) {
  EXPECT_EQ(decimalText(12345, 2), "123.45");
  EXPECT_EQ(decimalText(-5, 2), "-0.05");
  EXPECT_EQ(decimalText(0, 3), "0.000");
  EXPECT_EQ(decimalText(7, 0), "7");
  int128_t big = static_cast<int128_t>(1) << 100;
  EXPECT_EQ(decimalText(big, 10), "126765060022822940149.6703205376");
}

TEST(TextFormatTest, DoublesUseShortestRoundTripLikePostgres) {
  EXPECT_EQ(doubleText(0.1), "0.1");
  EXPECT_EQ(doubleText(100000), "100000");
  EXPECT_EQ(doubleText(1e15), "1e+15");
  EXPECT_EQ(doubleText(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(doubleText(1e-5), "1e-05");
  EXPECT_EQ(doubleText(0.0001), "0.0001");
  EXPECT_EQ(doubleText(-2.5), "-2.5");
  EXPECT_EQ(doubleText(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(doubleText(std::nan("")), "NaN");
}

TEST(TextFormatTest, DatesRoundTripThroughTheCalendar) {
  EXPECT_EQ(parseDate("1970-01-01"), 0);
  EXPECT_EQ(parseDate("2000-03-01"), daysFromCivil({2000, 3, 1}));
  for (int32_t days : {-800000, -1, 0, 59, 10957, 20000, 2932896}) {
    std::string text;
    appendDateText(days, text);
    EXPECT_EQ(parseDate(text), days) << text;
  }
  EXPECT_EQ(sqlStateOf([] { parseDate("2023-02-29"); }), SqlState::kDatetimeFieldOverflow);
  EXPECT_EQ(sqlStateOf([] { parseDate("yesterday"); }), SqlState::kInvalidDatetimeFormat);
}

TEST(TextFormatTest, IntegersRejectGarbageAndOverflow) {
  EXPECT_EQ(parseInteger(" -2147483648 "), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(parseBigInt("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(sqlStateOf([] { parseInteger("2147483648"); }), SqlState::kNumericValueOutOfRange);
  EXPECT_EQ(sqlStateOf([] { parseInteger("12a"); }), SqlState::kInvalidTextRepresentation);
  EXPECT_EQ(sqlStateOf([] { parseInteger(""); }), SqlState::kInvalidTextRepresentation);
}

TEST(TextFormatTest, DecimalsRoundHalfAwayFromZeroAndCheckPrecision) {
  EXPECT_EQ(parseDecimal("1.005", 10, 2), 101);
  EXPECT_EQ(parseDecimal("-1.005", 10, 2), -101);
  EXPECT_EQ(parseDecimal("1.5e2", 10, 0), 150);
  EXPECT_EQ(parseDecimal("000123.4", 4, 1), 1234);
  EXPECT_EQ(sqlStateOf([] { parseDecimal("12345", 4, 0); }), SqlState::kNumericValueOutOfRange);
  EXPECT_EQ(sqlStateOf([] { parseDecimal("9.999", 3, 2); }), SqlState::kNumericValueOutOfRange);
  EXPECT_EQ(sqlStateOf([] { parseDecimal("1.2.3", 10, 2); }), SqlState::kInvalidTextRepresentation);
}

TEST(TextFormatTest, NumericLiteralsTakePostgresTypes) {
  EXPECT_EQ(parseNumericLiteral("42").type(), LogicalType::integer());
  EXPECT_EQ(parseNumericLiteral("3000000000").type(), LogicalType::bigInt());
  Value decimal = parseNumericLiteral("12.50");
  EXPECT_EQ(decimal.type(), LogicalType::decimal(4, 2));
  EXPECT_EQ(decimal.toString(), "12.50");
  EXPECT_EQ(parseNumericLiteral("99999999999999999999").type(), LogicalType::decimal(20, 0));
}

TEST(TextFormatTest, BooleansAcceptPostgresSpellings) {
  for (const char* yes : {"t", "TRUE", " yes ", "on", "1", "y"}) EXPECT_TRUE(parseBoolean(yes)) << yes;
  for (const char* no : {"f", "false", "NO", "off", "0"}) EXPECT_FALSE(parseBoolean(no)) << no;
  EXPECT_EQ(sqlStateOf([] { parseBoolean("maybe"); }), SqlState::kInvalidTextRepresentation);
}

}  // namespace
}  // namespace shoal::engine
