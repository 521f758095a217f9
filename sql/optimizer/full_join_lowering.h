#pragma once

#include "sql/binder/query_binder.h"
#include "sql/plan/logical_operator.h"

namespace shoal::sql {

/// Rewrites each FULL OUTER JOIN of `root` as the UNION ALL of the LEFT JOIN of its two sides and of the right
/// side's rows that match no left row (an anti join), NULL-padded on the left. Both halves are joins the engine
/// runs distributed (repartitioned on the join keys); the sides are read twice. The UNION ALL produces the
/// FULL JOIN's own column ids, so nothing above it changes. New ids come from `ids`.
LogicalOperatorPtr lowerFullJoins(LogicalOperatorPtr root, ColumnIdGenerator& ids);

}  // namespace shoal::sql
