#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// EXPLAIN's text: one line per operator with its estimated rows, indented
/// under its parent, and the details that decide its cost (tables, filters,
/// join conditions and build side, group and sort keys). VERBOSE adds each
/// operator's output columns and projected expressions.
/// With `actualRows` (EXPLAIN ANALYZE), each operator shows the rows it produced next to the estimate.
std::vector<std::string> explainPlan(const LogicalOperator& root, bool verbose,
                                     const std::map<const LogicalOperator*, uint64_t>* actualRows = nullptr);

/// True when a join condition list has an equality between the two inputs, so a hash join can run it.
bool hasEquiCondition(const LogicalJoin& join);

}  // namespace shoal::sql
