// Array values: one encoding per array (so = and hashing may use the bytes), PostgreSQL's text in and out,
// and damaged bytes refused rather than read out of bounds.
#include "engine/types/array_value.h"

#include <gtest/gtest.h>

#include "common/status.h"

namespace shoal::engine {
namespace {

const LogicalType kIntArray = LogicalType::array(LogicalType::integer());
const LogicalType kTextArray = LogicalType::array(LogicalType::text());

std::string roundTrip(std::string_view text, const LogicalType& type) {
  std::string out;
  appendArrayText(parseArrayText(text, type), type, out);
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

TEST(ArrayValueTest, TextReadsAndPrintsAsPostgreSql) {
  EXPECT_EQ(roundTrip("{1,2,3}", kIntArray), "{1,2,3}");
  EXPECT_EQ(roundTrip(" { 1 , NULL ,-3 } ", kIntArray), "{1,NULL,-3}");
  EXPECT_EQ(roundTrip("{}", kIntArray), "{}");
  EXPECT_EQ(roundTrip("{ }", kTextArray), "{}");
  EXPECT_EQ(roundTrip(R"({a,"b c","",null,"NULL",x\,y,"q\"\\"})", kTextArray),
            R"({a,"b c","",NULL,"NULL","x,y","q\"\\"})");
  EXPECT_EQ(roundTrip("{ab  , cd}", kTextArray), "{ab,cd}");  // unquoted elements lose surrounding space
  EXPECT_EQ(roundTrip("{a\\ }", kTextArray), R"({"a "})");    // but keep an escaped one
  EXPECT_EQ(roundTrip("{ab}", LogicalType::array(LogicalType::character(3))), R"({"ab "})");
  EXPECT_EQ(roundTrip("{2024-02-29}", LogicalType::array(LogicalType::date())), "{2024-02-29}");
  EXPECT_EQ(roundTrip("{1.5,2}", LogicalType::array(LogicalType::decimal(5, 2))), "{1.50,2.00}");
}

TEST(ArrayValueTest, MalformedTextFailsWithPostgreSqlStates) {
  EXPECT_EQ(sqlStateOf([] { parseArrayText("{1,2", kIntArray); }), SqlState::kInvalidTextRepresentation);
  EXPECT_EQ(sqlStateOf([] { parseArrayText("1,2", kIntArray); }), SqlState::kInvalidTextRepresentation);
  EXPECT_EQ(sqlStateOf([] { parseArrayText("{1,,2}", kIntArray); }), SqlState::kInvalidTextRepresentation);
  EXPECT_EQ(sqlStateOf([] { parseArrayText("{1} x", kIntArray); }), SqlState::kInvalidTextRepresentation);
  EXPECT_EQ(sqlStateOf([] { parseArrayText("{\"a}", kTextArray); }), SqlState::kInvalidTextRepresentation);
  EXPECT_EQ(sqlStateOf([] { parseArrayText("{a}", kIntArray); }), SqlState::kInvalidTextRepresentation);
  EXPECT_EQ(sqlStateOf([] { parseArrayText("{99999999999}", kIntArray); }), SqlState::kNumericValueOutOfRange);
  EXPECT_EQ(sqlStateOf([] { parseArrayText("{{1},{2}}", kIntArray); }), SqlState::kFeatureNotSupported);
  EXPECT_EQ(sqlStateOf([] { parseArrayText("[0:1]={1,2}", kIntArray); }), SqlState::kFeatureNotSupported);
}

TEST(ArrayValueTest, EqualArraysHaveEqualBytes) {
  EXPECT_EQ(parseArrayText("{1, 2}", kIntArray), parseArrayText("{1,2}", kIntArray));
  EXPECT_EQ(parseArrayText("{\"a\"}", kTextArray), parseArrayText("{a}", kTextArray));
  EXPECT_NE(parseArrayText("{1,NULL}", kIntArray), parseArrayText("{1}", kIntArray));
  std::vector<Value> elements = {Value::integer(7), Value::null(LogicalType::integer())};
  std::string bytes = encodeArray(elements, LogicalType::integer());
  EXPECT_EQ(arrayCardinality(bytes), 2u);
  std::vector<Value> decoded = decodeArray(bytes, kIntArray);
  ASSERT_EQ(decoded.size(), 2u);
  EXPECT_EQ(decoded[0].asInt32(), 7);
  EXPECT_TRUE(decoded[1].isNull());
}

TEST(ArrayValueTest, DamagedBytesAreRefused) {
  std::string bytes = parseArrayText("{hello,world}", kTextArray);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_EQ(sqlStateOf([&] { decodeArray(bytes.substr(0, cut), kTextArray); }), SqlState::kDataCorrupted) << cut;
  }
  EXPECT_EQ(sqlStateOf([&] { decodeArray(bytes + "x", kTextArray); }), SqlState::kDataCorrupted);
}

}  // namespace
}  // namespace shoal::engine
