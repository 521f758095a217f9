#pragma once

#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/query_result.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

// GRANT and REVOKE, run by the session's user `user` under PostgreSQL 15's rules.
//
// Privileges: the owner (or a superuser, or a member of the owner) grants as the owner; another role grants
// what it holds WITH GRANT OPTION, as itself, with a warning (01007) for what it cannot grant, and 42501
// when it holds no privilege on the object at all.
//
// Roles: a superuser, a CREATEROLE role (not for superuser roles) or a member WITH ADMIN OPTION may grant
// and revoke membership in a role.

std::string runGrantPrivileges(ClusterContext& cluster, const sql::GrantPrivileges& command, const std::string& user,
                               std::vector<Notice>& notices);
std::string runGrantRoles(ClusterContext& cluster, const sql::GrantRoles& command, const std::string& user,
                          std::vector<Notice>& notices);

}  // namespace shoal::coordinator
