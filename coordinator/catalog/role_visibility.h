#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "coordinator/catalog/access_control.h"
#include "coordinator/catalog/table_catalog.h"

namespace shoal::coordinator {

/// Whose activity a role may see, as PostgreSQL decides it for pg_stat_activity: that of the roles whose
/// privileges it has (its own) and, with pg_read_all_stats (superusers have it), everyone's. No viewer
/// (outside a session) sees everything.
class RoleVisibility {
 public:
  RoleVisibility(const TableCatalog& tables, const std::string& viewer) : roles_(tables.roleCatalog()) {
    const RoleEntry* role = roles_.find(viewer);
    if (role != nullptr) actsAs_ = rolesActingAs(roles_, *role);
    seesAll_ = viewer.empty() || (role != nullptr && (role->superuser || actsAs_.contains(kPgReadAllStatsOid)));
  }

  bool sees(const std::string& user) const {
    if (seesAll_) return true;
    const RoleEntry* role = roles_.find(user);
    return role != nullptr && actsAs_.contains(role->oid);
  }
  std::optional<int64_t> oidOf(const std::string& user) const {
    const RoleEntry* role = roles_.find(user);
    return role != nullptr ? std::optional<int64_t>(role->oid) : std::nullopt;
  }

 private:
  RoleCatalog roles_;
  std::set<int64_t> actsAs_;
  bool seesAll_ = false;
};

}  // namespace shoal::coordinator
