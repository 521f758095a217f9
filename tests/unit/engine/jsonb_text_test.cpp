#include "engine/types/jsonb_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "engine/types/json_parser.h"

namespace shoal::engine {
namespace {

int sign(int value) {
  return value < 0 ? -1 : value > 0 ? 1 : 0;
}

TEST(JsonbTextTest, KeepsTheTextPostgreSqlPrints) {
  EXPECT_EQ(jsonbFromText(R"({"bb":1,"a":2,"aaa":{"z":1e2,"y":-0,"x":1.50e1,"w":1E-2}})"),
            R"({"a": 2, "bb": 1, "aaa": {"w": 0.01, "x": 15.0, "y": 0, "z": 100}})");
  EXPECT_EQ(jsonbFromText(R"({"a":1,"a":2})"), R"({"a": 2})");
  EXPECT_EQ(jsonbFromText(R"( [ 1 , {"a" : [ ] } ] )"), R"([1, {"a": []}])");
  EXPECT_EQ(jsonbFromText(R"("\u00e9\ud83d\ude00\n\/")"), "\"\u00e9\U0001F600\\n/\"");
  EXPECT_EQ(jsonbFromText("-0.0"), "0.0");
  EXPECT_EQ(jsonbFromText("5e-3"), "0.005");
}

TEST(JsonbTextTest, RefusesWhatPostgreSqlRefuses) {
  for (const char* text : {"", "  ", "nul", "01", "1.", ".5", "-", "1e", "[1,]", R"({"a" 1})", "true x", "{a:1}",
                           "\"\\x\"", "\"a\tb\"", R"("\ud800")"}) {
    EXPECT_THROW(jsonbFromText(text), ShoalError) << text;
  }
  try {
    jsonbFromText(R"("\u0000")");
    FAIL() << "\\u0000 accepted";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), "22P05");
  }
}

TEST(JsonbTextTest, SortKeysOrderAsTheComparisonDoes) {
  // Every kind, lengths, raw scalars against arrays of one, nested containers, numbers of every sign and size.
  std::vector<std::string> values;
  for (const char* text : {"null",
                           "\"\"",
                           "\"a\"",
                           "\"ab\"",
                           "\"b\"",
                           "-12345678901234567890.5",
                           "-10",
                           "-2.5",
                           "-2.50",
                           "0",
                           "-0.0",
                           "0.001",
                           "1",
                           "1.0",
                           "99.99",
                           "100",
                           "1e2",
                           "12345678901234567890.5",
                           "false",
                           "true",
                           "[]",
                           "[null]",
                           "[1]",
                           "[[]]",
                           "[{}]",
                           "[1, 1]",
                           "[1, [2]]",
                           "[1, [1, 1]]",
                           "[9]",
                           "{}",
                           "{\"a\": 1}",
                           "{\"b\": null}",
                           "{\"a\": {\"b\": 1}}",
                           "{\"a\": {\"b\": 0, \"c\": 0}}",
                           "{\"aa\": 1, \"c\": 1}",
                           "{\"b\": 1, \"d\": 1}"}) {
    values.push_back(jsonbFromText(text));
  }
  for (const auto& a : values) {
    for (const auto& b : values) {
      EXPECT_EQ(sign(compareJsonb(a, b)), sign(jsonbSortKey(a).compare(jsonbSortKey(b)))) << a << " vs " << b;
    }
  }
  // PostgreSQL's answers (tests/sql/logic/types_json.test has them from a server), over jsonb's stored text.
  auto compareJsonb = [](const char* a, const char* b) {
    return engine::compareJsonb(jsonbFromText(a), jsonbFromText(b));
  };
  EXPECT_LT(compareJsonb("[]", "null"), 0);
  EXPECT_LT(compareJsonb("null", "\"a\""), 0);
  EXPECT_LT(compareJsonb("9", "false"), 0);
  EXPECT_LT(compareJsonb("true", "[0]"), 0);
  EXPECT_LT(compareJsonb("[9]", "[1, 1]"), 0);
  EXPECT_GT(compareJsonb("{\"aa\": 1, \"c\": 1}", "{\"b\": 1, \"d\": 1}"), 0);
  EXPECT_EQ(compareJsonb("1.0", "1"), 0);
  EXPECT_EQ(compareJsonb("-0.0", "0"), 0);
}

}  // namespace
}  // namespace shoal::engine
