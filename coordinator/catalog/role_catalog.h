#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace shoal::coordinator {

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
};

/// What CREATE ROLE and ALTER ROLE set; what they leave out stays as it is (ALTER) or takes its default.
struct RoleChanges {
  std::optional<bool> superuser, login, createDb, createRole, inherit;
  /// PASSWORD 'x' (a verifier, or the text to make one of) or PASSWORD NULL.
  std::optional<std::optional<std::string>> password;
};

/// The roles of the cluster, kept in the catalog's document: the bootstrap superuser `shoal` (OID 10, as
/// PostgreSQL's first role) always, and the roles CREATE ROLE made. Not thread-safe: TableCatalog guards it.
class RoleCatalog {
 public:
  RoleCatalog();

  const RoleEntry* find(const std::string& name) const;
  std::vector<RoleEntry> list() const;
  /// 42710 when the name is taken. `oid` is the new role's.
  void create(const std::string& name, const RoleChanges& changes, int64_t oid);
  /// 42704 when there is no such role.
  void alter(const std::string& name, const RoleChanges& changes);
  /// 42704 for a missing role; 2BP01 for the bootstrap superuser.
  void drop(const std::string& name);

  nlohmann::json toJson() const;
  /// Replaces the roles with a document's (a catalog without roles keeps only the bootstrap superuser).
  void loadJson(const nlohmann::json& roles);

 private:
  std::map<std::string, RoleEntry> roles_;
};

}  // namespace shoal::coordinator
