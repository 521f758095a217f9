#pragma once

#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Drops every column no operator above needs: scans read only the columns
/// that filters and later operators use, projections and aggregations compute
/// only what is read. Only those columns are later shipped between workers.
void pruneColumns(LogicalOperator& root);

/// Removes projections that only rename or reorder columns (views, subqueries
/// in FROM, WITH queries leave them) and merges a projection into the one
/// above it; the operators above read the original columns instead. The root
/// projection, which orders the client's columns, and the inputs of UNION
/// ALL, which are matched by position, stay.
void removeRedundantProjections(LogicalPlan& plan);

}  // namespace shoal::sql
