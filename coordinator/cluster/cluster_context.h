#pragma once

#include <atomic>
#include <string>

#include "coordinator/catalog/cluster_catalog.h"
#include "coordinator/catalog/system_catalog.h"
#include "coordinator/catalog/table_catalog.h"
#include "coordinator/cluster/worker_clients.h"
#include "coordinator/membership/member_registry.h"
#include "coordinator/query/query_log.h"
#include "coordinator/query/session_registry.h"
#include "coordinator/transaction/transaction_manager.h"
#include "scheduler/dispatcher.h"

namespace shoal::coordinator {

/// Everything a session needs of the cluster: the catalogs, the membership
/// view and the clients of the workers. Owned by the Coordinator, shared by
/// every connection.
struct ClusterContext {
  SystemCatalog& systemCatalog;
  TableCatalog& tables;
  ClusterCatalog& catalog;
  MemberRegistry& registry;
  WorkerClients& workers;
  /// Runs the pipelines of queries the coordinator executes itself.
  scheduler::Dispatcher& dispatcher;
  /// The statements clients run, for shoal_queries.
  QueryLog& queries;
  /// The client sessions, for pg_stat_activity.
  SessionRegistry& sessions;
  /// Transaction ids, the commit sequence and the two-phase commit.
  TransactionManager& transactions;
  /// tpchgen-cli, as the workers find it, for CALL tpch_load.
  std::atomic<uint64_t> nextLoadId{1};
};

}  // namespace shoal::coordinator
