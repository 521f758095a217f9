// pg_views.definition and information_schema.views.view_definition show a view's query as it was written:
// what follows the AS after the view's name, column list and options.
#include "sql/parser/view_definition.h"

#include <gtest/gtest.h>

namespace shoal::sql {
namespace {

TEST(ViewDefinitionTest, TheQueryFollowsTheAsAfterTheName) {
  EXPECT_EQ(viewQueryText("CREATE VIEW v AS SELECT a FROM t"), "SELECT a FROM t");
  EXPECT_EQ(viewQueryText("create or replace view \"As\" as select 1 as x;  \n"), "select 1 as x");
}

TEST(ViewDefinitionTest, ColumnListsAndOptionsAreSkipped) {
  EXPECT_EQ(viewQueryText("CREATE VIEW v (a, b) AS SELECT 1, 2"), "SELECT 1, 2");
  EXPECT_EQ(viewQueryText("CREATE VIEW v WITH (security_barrier = true) AS SELECT (SELECT 1) AS y"),
            "SELECT (SELECT 1) AS y");
  EXPECT_EQ(viewQueryText("CREATE VIEW v AS WITH w AS (SELECT 1 AS z) SELECT z FROM w"),
            "WITH w AS (SELECT 1 AS z) SELECT z FROM w");
}

TEST(ViewDefinitionTest, TextWithoutAQueryGivesNothing) {
  EXPECT_EQ(viewQueryText("CREATE VIEW v"), "");
  EXPECT_EQ(viewQueryText("CREATE VIEW 'unterminated"), "");
}

}  // namespace
}  // namespace shoal::sql
