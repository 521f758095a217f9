// The reserved words quote_ident() and regclass's names quote, as PostgreSQL 15 does.
#include "engine/expression/sql_keywords.h"

#include <gtest/gtest.h>

namespace shoal::engine {
namespace {

TEST(SqlKeywordsTest, ReservedWordsAreQuotedOthersNot) {
  EXPECT_TRUE(isReservedKeyword("select"));
  EXPECT_TRUE(isReservedKeyword("int"));   // a column-name keyword
  EXPECT_TRUE(isReservedKeyword("left"));  // a type or function name keyword
  EXPECT_TRUE(isReservedKeyword("all"));   // the first of the list
  EXPECT_TRUE(isReservedKeyword("xmltable"));
  EXPECT_FALSE(isReservedKeyword("abort"));  // unreserved
  EXPECT_FALSE(isReservedKeyword("lineitem"));
  EXPECT_FALSE(isReservedKeyword("SELECT"));  // keywords are lower case; upper case is quoted anyway
  EXPECT_EQ(quoteIdentifier("lineitem"), "lineitem");
  EXPECT_EQ(quoteIdentifier("_x1"), "_x1");
  EXPECT_EQ(quoteIdentifier("1x"), "\"1x\"");
  EXPECT_EQ(quoteIdentifier("Mixed"), "\"Mixed\"");
  EXPECT_EQ(quoteIdentifier("user"), "\"user\"");
  EXPECT_EQ(quoteIdentifier("a\"b"), "\"a\"\"b\"");
  EXPECT_EQ(quoteIdentifier(""), "\"\"");
}

}  // namespace
}  // namespace shoal::engine
