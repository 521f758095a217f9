#pragma once

#include <vector>

#include "coordinator/catalog/system_relation.h"

namespace shoal::coordinator {

/// pg_proc and pg_operator: PostgreSQL 15's rows for the functions, aggregates and operators Shoal has
/// (sql/catalog/builtin_routines.h), all in pg_catalog. proargtypes is an oidvector; the oid[] columns are
/// bigint[], as Shoal keeps OIDs in bigint; the regproc columns (prosupport, oprcode, ...) hold OIDs.
std::vector<sql::ColumnDescription> routineColumns();
SystemRows routineRows();
std::vector<sql::ColumnDescription> operatorColumns();
SystemRows operatorRows();

}  // namespace shoal::coordinator
