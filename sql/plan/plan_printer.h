#pragma once

#include <string>
#include <vector>

#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// EXPLAIN's text: one line per operator with its estimated rows, indented
/// under its parent, and the details that decide its cost (tables, filters,
/// join conditions and build side, group and sort keys). VERBOSE adds each
/// operator's output columns and projected expressions.
std::vector<std::string> explainPlan(const LogicalOperator& root, bool verbose);

/// True when a join condition list has an equality between the two inputs, so a hash join can run it.
bool hasEquiCondition(const LogicalJoin& join);

}  // namespace shoal::sql
