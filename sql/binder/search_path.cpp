#include "sql/binder/search_path.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "common/status.h"

namespace shoal::sql {

namespace {

bool schemaExists(const CatalogReader& catalog, std::string_view name) {
  const auto all = catalog.schemas();
  return std::any_of(all.begin(), all.end(), [&](const auto& schema) { return schema.name == name; });
}

bool holdsRelation(const CatalogReader& catalog, const QualifiedName& name) {
  return catalog.findTable(name).has_value() || catalog.findView(name).has_value();
}

}  // namespace

std::vector<SchemaDescription> CatalogReader::schemas() const {
  return {{kPgCatalogNamespaceOid, std::string(kPgCatalogSchema), kOwnerRoleOid, "system catalog schema"},
          {kPublicNamespaceOid, std::string(kPublicSchema), kDatabaseOwnerRoleOid, "standard public schema"},
          {kInformationSchemaNamespaceOid, std::string(kInformationSchema), kOwnerRoleOid}};
}

std::string CatalogReader::privilegeRole() const {
  const SessionInfo* info = session();
  return info != nullptr ? info->user : std::string(kOwnerRoleName);
}

std::string CatalogReader::searchPathSetting() const {
  const SessionInfo* info = session();
  if (info != nullptr && info->setting) return info->setting("search_path");
  return std::string(kDefaultSearchPath);
}

std::vector<std::string> parseSearchPath(std::string_view setting) {
  std::vector<std::string> names;
  size_t i = 0;
  auto skipSpace = [&] {
    while (i < setting.size() && std::isspace(static_cast<unsigned char>(setting[i]))) ++i;
  };
  auto malformed = [&] {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid list syntax in parameter \"search_path\"");
  };
  skipSpace();
  if (i == setting.size()) return names;  // an empty setting: no schemas
  while (true) {
    std::string name;
    if (setting[i] == '"') {
      for (++i;; ++i) {
        if (i == setting.size()) malformed();
        if (setting[i] == '"') {
          if (i + 1 < setting.size() && setting[i + 1] == '"') {
            name += '"';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        name += setting[i];
      }
    } else {
      while (i < setting.size() && setting[i] != ',' && !std::isspace(static_cast<unsigned char>(setting[i]))) {
        name += static_cast<char>(std::tolower(static_cast<unsigned char>(setting[i])));
        ++i;
      }
      if (name.empty()) malformed();
    }
    names.push_back(std::move(name));
    skipSpace();
    if (i == setting.size()) return names;
    if (setting[i] != ',') malformed();
    ++i;
    skipSpace();
    if (i == setting.size()) malformed();
  }
}

std::string temporarySchemaOf(const CatalogReader& catalog) {
  const SessionInfo* info = catalog.session();
  if (info == nullptr || info->backendPid == 0) return {};
  return std::string(kTemporarySchemaPrefix) + std::to_string(info->backendPid);
}

bool isTemporarySchema(std::string_view schema) {
  return schema.starts_with(kTemporarySchemaPrefix);
}

std::vector<std::string> explicitSchemas(const CatalogReader& catalog) {
  std::vector<std::string> schemas;
  const SessionInfo* info = catalog.session();
  for (std::string name : parseSearchPath(catalog.searchPathSetting())) {
    if (name == "$user") {
      if (info == nullptr) continue;
      name = info->user;
    } else if (name == kTemporarySchemaAlias) {
      name = temporarySchemaOf(catalog);
    } else if (isTemporarySchema(name)) {
      continue;  // another session's, or this one's under its own name: only "pg_temp" places it
    }
    if (schemaExists(catalog, name) && std::find(schemas.begin(), schemas.end(), name) == schemas.end()) {
      schemas.push_back(std::move(name));
    }
  }
  return schemas;
}

std::vector<std::string> lookupSchemas(const CatalogReader& catalog) {
  std::vector<std::string> schemas = explicitSchemas(catalog);
  if (std::find(schemas.begin(), schemas.end(), kPgCatalogSchema) == schemas.end()) {
    schemas.insert(schemas.begin(), std::string(kPgCatalogSchema));
  }
  // PostgreSQL searches the session's temporary relations before all others unless search_path places them.
  const std::string temporary = temporarySchemaOf(catalog);
  if (!temporary.empty() && schemaExists(catalog, temporary) &&
      std::find(schemas.begin(), schemas.end(), temporary) == schemas.end()) {
    schemas.insert(schemas.begin(), temporary);
  }
  return schemas;
}

std::optional<QualifiedName> resolveRelation(const CatalogReader& catalog, std::string_view schema,
                                             std::string_view name) {
  std::string ownTemporary;  // outlives `schema`, which may view it
  if (schema == kTemporarySchemaAlias) {
    ownTemporary = temporarySchemaOf(catalog);
    schema = ownTemporary;
  } else if (isTemporarySchema(schema) && schema != temporarySchemaOf(catalog) && schemaExists(catalog, schema) &&
             holdsRelation(catalog, QualifiedName{std::string(schema), std::string(name)})) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "cannot access temporary tables of other sessions");
  }
  if (!schema.empty()) {
    if (!schemaExists(catalog, schema)) return std::nullopt;
    return QualifiedName{std::string(schema), std::string(name)};
  }
  for (const auto& candidate : lookupSchemas(catalog)) {
    QualifiedName qualified{candidate, std::string(name)};
    if (holdsRelation(catalog, qualified)) return qualified;
  }
  return std::nullopt;
}

bool isSystemSchema(std::string_view schema) {
  return schema == kPgCatalogSchema || schema == kInformationSchema;
}

QualifiedName temporaryCreationName(const CatalogReader& catalog, std::string_view schema, std::string_view name) {
  const std::string temporary = temporarySchemaOf(catalog);
  if (temporary.empty()) {
    SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "temporary relations need a client session");
  }
  if (!schema.empty() && schema != kTemporarySchemaAlias && schema != temporary) {
    SHOAL_USER_FAIL(SqlState::kInvalidTableDefinition, "cannot create temporary relation in non-temporary schema");
  }
  return QualifiedName{temporary, std::string(name)};
}

QualifiedName creationName(const CatalogReader& catalog, std::string_view schema, std::string_view name) {
  if (schema == kTemporarySchemaAlias || (!schema.empty() && schema == temporarySchemaOf(catalog))) {
    return temporaryCreationName(catalog, schema, name);
  }
  std::string pathSchema;  // outlives the path it came from: `schema` views it
  if (schema.empty()) {
    // Only a temporary relation goes to the temporary schema, even when search_path places it first.
    auto path = explicitSchemas(catalog);
    std::erase_if(path, [](const std::string& candidate) { return isTemporarySchema(candidate); });
    if (path.empty()) SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "no schema has been selected to create in");
    pathSchema = path.front();
    schema = pathSchema;
  } else if (!schemaExists(catalog, schema)) {
    SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", schema);
  } else if (isTemporarySchema(schema)) {
    SHOAL_USER_FAIL(SqlState::kInvalidTableDefinition,
                    "cannot create relations in temporary schemas of other sessions");
  }
  if (isSystemSchema(schema)) {
    SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied to create \"{}.{}\"", schema, name);
  }
  return QualifiedName{std::string(schema), std::string(name)};
}

void markVisibility(std::vector<RelationVisibility>& relations, const std::vector<std::string>& lookup) {
  // An unqualified name finds the relation of the first schema on the path that has one of that name.
  auto rank = [&](const std::string& schema) {
    return static_cast<size_t>(std::find(lookup.begin(), lookup.end(), schema) - lookup.begin());
  };
  std::map<std::string_view, size_t> firstRank;
  for (const auto& relation : relations) {
    const size_t r = rank(relation.schema);
    auto [it, inserted] = firstRank.emplace(relation.name, r);
    if (!inserted) it->second = std::min(it->second, r);
  }
  for (auto& relation : relations) {
    const size_t r = rank(relation.schema);
    relation.visible = r < lookup.size() && firstRank.at(relation.name) == r;
  }
}

std::vector<RelationVisibility> ViewQueryCatalog::relationVisibility() const {
  auto relations = catalog_.relationVisibility();
  markVisibility(relations, lookupSchemas(*this));
  return relations;
}

}  // namespace shoal::sql
