#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace shoal::coordinator {

/// PostgreSQL 15's predefined roles that mean something here (their OIDs are PostgreSQL's).
inline constexpr int64_t kPgMonitorOid = 3373;
inline constexpr int64_t kPgReadAllSettingsOid = 3374;
inline constexpr int64_t kPgReadAllStatsOid = 3375;
inline constexpr int64_t kPgStatScanTablesOid = 3377;
inline constexpr int64_t kPgSignalBackendOid = 4200;
inline constexpr int64_t kPgCheckpointOid = 4544;
inline constexpr int64_t kPgReadServerFilesOid = 4569;
inline constexpr int64_t kPgWriteServerFilesOid = 4570;
inline constexpr int64_t kPgExecuteServerProgramOid = 4571;
inline constexpr int64_t kPgReadAllDataOid = 6181;
inline constexpr int64_t kPgWriteAllDataOid = 6182;

/// Membership in a role (GRANT role TO member), as pg_auth_members holds it.
struct RoleMembership {
  int64_t role = 0;
  int64_t grantor = 0;
  bool adminOption = false;
};

/// A role (CREATE ROLE): who may log in, with which password, and what it may do. The password is kept only
/// as its SCRAM-SHA-256 verifier (auth/scram.h).
struct RoleEntry {
  std::string name;
  int64_t oid = 0;
  bool superuser = false;
  bool login = false;
  bool createDb = false;
  bool createRole = false;
  bool inherit = true;
  std::optional<std::string> password;  // the verifier; nullopt: none (a password login then fails)
  /// The roles this one is a member of.
  std::vector<RoleMembership> memberOf;
  /// One of PostgreSQL's predefined roles (pg_read_all_data, ...): cannot log in, be altered or dropped.
  bool predefined = false;
};

/// What CREATE ROLE and ALTER ROLE set; what they leave out stays as it is (ALTER) or takes its default.
struct RoleChanges {
  std::optional<bool> superuser, login, createDb, createRole, inherit;
  /// PASSWORD 'x' (a verifier, or the text to make one of) or PASSWORD NULL.
  std::optional<std::optional<std::string>> password;
};

/// The roles of the cluster, kept in the catalog's document: the bootstrap superuser `shoal` (OID 10, as
/// PostgreSQL's first role) and PostgreSQL's predefined roles always, and the roles CREATE ROLE made. Not
/// thread-safe: TableCatalog guards it.
class RoleCatalog {
 public:
  RoleCatalog();

  const RoleEntry* find(const std::string& name) const;
  const RoleEntry* findByOid(int64_t oid) const;
  std::vector<RoleEntry> list() const;
  /// 42710 when the name is taken. `oid` is the new role's.
  void create(const std::string& name, const RoleChanges& changes, int64_t oid);
  /// 42704 when there is no such role.
  void alter(const std::string& name, const RoleChanges& changes);
  /// 42704 for a missing role; 2BP01 for the bootstrap superuser. Memberships in it go with it.
  void drop(const std::string& name);
  /// GRANT role TO member: 0LP01 when it would make a cycle. A repeated grant only adds the admin option;
  /// false when it changed nothing.
  bool grantMembership(const std::string& role, const std::string& member, int64_t grantor, bool adminOption);
  /// REVOKE [ADMIN OPTION FOR] role FROM member; false when `member` was not a member.
  bool revokeMembership(const std::string& role, const std::string& member, bool adminOptionOnly);

  nlohmann::json toJson() const;
  /// Replaces the roles with a document's (a catalog without roles keeps only the bootstrap superuser).
  void loadJson(const nlohmann::json& roles);

 private:
  std::map<std::string, RoleEntry> roles_;
};

}  // namespace shoal::coordinator
