#include "sql/binder/privilege_checks.h"

#include <fmt/format.h>

#include "common/status.h"
#include "sql/parser/parsed_script.h"

namespace shoal::sql {
namespace {

[[noreturn]] void denied(std::string message, std::string_view text, int location) {
  const int position = location >= 0 ? characterPosition(text, location) : 0;
  throw ShoalError(Status(SqlState::kInsufficientPrivilege, std::move(message),
                          position > 0 ? std::optional<int>(position) : std::nullopt));
}

}  // namespace

void requireSchemaPrivilege(const CatalogReader& catalog, const std::string& schema, AclMode wanted,
                            std::string_view text, int location) {
  const auto held = catalog.schemaPrivileges(catalog.privilegeRole(), schema);
  if (!held || !held->has(wanted)) denied(fmt::format("permission denied for schema {}", schema), text, location);
}

void requireRelationPrivilege(const CatalogReader& catalog, const QualifiedName& name, AclMode wanted, bool isView,
                              std::string_view text, int location) {
  requireSchemaPrivilege(catalog, name.schema, kAclUsage, text, location);
  const auto held = catalog.relationPrivileges(catalog.privilegeRole(), name);
  if (!held || !held->has(wanted)) {
    // PostgreSQL places this error nowhere: it comes from the executor, not from parsing.
    denied(fmt::format("permission denied for {} {}", isView ? "view" : "table", name.name), text, -1);
  }
}

}  // namespace shoal::sql
