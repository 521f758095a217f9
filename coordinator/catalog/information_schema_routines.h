#pragma once

#include "coordinator/catalog/system_relation.h"

namespace shoal::coordinator {

/// information_schema.routines: one row per function and aggregate of pg_proc (the PostgreSQL 15 routines
/// Shoal has, sql/catalog/builtin_routines.h), with PostgreSQL 15's 82 columns and values. `created` and
/// `last_altered` (PostgreSQL's time_stamp, always NULL for built-in routines) are text until Shoal has
/// timestamp with time zone.
SystemRelation informationSchemaRoutines();

}  // namespace shoal::coordinator
