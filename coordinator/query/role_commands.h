#pragma once

#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/query_result.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

// CREATE ROLE, ALTER ROLE and DROP ROLE, run by the session's user `user` under PostgreSQL 15's rules: a
// superuser may do anything; a CREATEROLE role may make, alter and drop roles that are not superusers; any
// role may change its own password; the bootstrap superuser stays a superuser. Refusals are 42501.

std::string runCreateRole(ClusterContext& cluster, const sql::CreateRole& command, const std::string& user);
std::string runAlterRole(ClusterContext& cluster, const sql::AlterRole& command, const std::string& user);
std::string runDropRole(ClusterContext& cluster, const sql::DropRole& command, const std::string& user,
                        std::vector<Notice>& notices);

}  // namespace shoal::coordinator
