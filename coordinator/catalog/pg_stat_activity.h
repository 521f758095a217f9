#pragma once

#include "coordinator/catalog/system_relation.h"
#include "coordinator/catalog/table_catalog.h"
#include "coordinator/query/session_registry.h"

namespace shoal::coordinator {

/// pg_catalog.pg_stat_activity: one row per client session of this coordinator, with PostgreSQL 15's
/// columns and OID. client_addr is text (Shoal has no inet type yet); the xid columns are NULL text. As in
/// PostgreSQL, a role sees what another role's sessions run only when it has that role's privileges, or
/// pg_read_all_stats' (superusers do): otherwise their query reads "<insufficient privilege>" and the
/// columns after client_addr are NULL.
SystemRelation pgStatActivity(const SessionRegistry& sessions, const TableCatalog& tables);

}  // namespace shoal::coordinator
