#pragma once

#include "coordinator/catalog/system_relation.h"
#include "coordinator/query/session_registry.h"

namespace shoal::coordinator {

/// pg_catalog.pg_stat_activity: one row per client session of this coordinator, with PostgreSQL 15's
/// columns and OID. client_addr is text (Shoal has no inet type yet); the xid columns are NULL text.
SystemRelation pgStatActivity(const SessionRegistry& sessions);

}  // namespace shoal::coordinator
