#include "coordinator/catalog/table_catalog.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/status.h"
#include "coordinator/catalog/system_relation.h"
#include "engine/expression/sql_keywords.h"
#include "sql/binder/search_path.h"
#include "worker/storage/column_statistics.h"

namespace shoal::coordinator {

using nlohmann::json;

std::string_view distributionName(Distribution distribution) {
  switch (distribution) {
    case Distribution::kHash:
      return "hash";
    case Distribution::kReplicated:
      return "replicated";
    case Distribution::kRandom:
      return "random";
  }
  return "unknown";
}

std::vector<engine::LogicalType> TableEntry::columnTypes() const {
  std::vector<engine::LogicalType> types;
  for (const auto& column : columns) types.push_back(column.type);
  return types;
}

std::optional<size_t> TableEntry::findColumn(std::string_view columnName) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == columnName) return i;
  }
  return std::nullopt;
}

namespace {

constexpr int kCatalogFormatVersion = 1;
constexpr std::string_view kPublicSchemaComment = "standard public schema";

json typeToJson(const engine::LogicalType& type) {
  json out{{"id", static_cast<uint32_t>(type.id())},
           {"precision", type.precision()},
           {"scale", type.scale()},
           {"max_length", type.maxLength()},
           {"json", type.isJsonb()  ? 2
                    : type.isJson() ? 1
                                    : 0}};
  if (type.isReal()) out["real"] = true;  // came later: absent in older catalogs
  if (type.isArray()) out["element_id"] = static_cast<uint32_t>(type.elementId());  // so did array columns
  return out;
}

engine::LogicalType typeFromJson(const json& value) {
  // "json" came later: 1 for json, 2 for jsonb; catalogs written before it have none.
  const int jsonKind = value.value("json", 0);
  return engine::LogicalType::fromParts(value.at("id"), value.at("precision"), value.at("scale"),
                                        value.at("max_length"), value.value("element_id", 0u), false, false,
                                        jsonKind != 0, jsonKind == 2, value.value("real", false));
}

json uniqueKeysToJson(const std::vector<sql::UniqueConstraint>& keys) {
  json out = json::array();
  for (const auto& key : keys) out.push_back({{"name", key.name}, {"columns", key.columns}});
  return out;
}

}  // namespace

json entryToJson(const TableEntry& entry) {
  json columns = json::array();
  for (const auto& column : entry.columns) {
    columns.push_back(json{{"name", column.name}, {"type", typeToJson(column.type)}, {"not_null", column.notNull}});
  }
  // Statistics are binary sketches: stored as hex so the file stays plain JSON.
  json statistics = json::array();
  for (const auto& bytes : entry.columnStatistics) {
    std::string hex;
    hex.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
      constexpr char kDigits[] = "0123456789abcdef";
      hex += kDigits[c >> 4];
      hex += kDigits[c & 15];
    }
    statistics.push_back(hex);
  }
  return json{{"table_id", entry.tableId},
              {"schema", entry.schema},
              {"name", entry.name},
              {"columns", columns},
              {"primary_key", entry.primaryKey},
              {"unique_keys", uniqueKeysToJson(entry.uniqueKeys)},
              {"distribution", distributionName(entry.distribution)},
              {"distribution_columns", entry.distributionColumns},
              {"placement", entry.placement},
              {"storage_id", entry.storageId},
              {"row_count", entry.rowCount},
              {"column_statistics", statistics},
              {"access", accessToJson(entry.access)}};
}

namespace {

Distribution distributionFromName(const std::string& name) {
  if (name == "hash") return Distribution::kHash;
  if (name == "replicated") return Distribution::kReplicated;
  if (name == "random") return Distribution::kRandom;
  SHOAL_USER_FAIL(SqlState::kDataCorrupted, "unknown distribution \"{}\"", name);
}

}  // namespace

TableEntry entryFromJson(const json& value) {
  TableEntry entry;
  entry.tableId = value.at("table_id");
  // Catalogs written before schemas kept every table in public.
  entry.schema = value.value("schema", std::string(sql::kPublicSchema));
  entry.name = value.at("name");
  for (const auto& column : value.at("columns")) {
    entry.columns.push_back(CatalogColumn{column.at("name"), typeFromJson(column.at("type")), column.at("not_null")});
  }
  entry.primaryKey = value.at("primary_key").get<std::vector<size_t>>();
  if (value.contains("unique_keys")) {  // catalogs written before UNIQUE have none
    for (const auto& key : value.at("unique_keys")) {
      entry.uniqueKeys.push_back({key.at("name"), key.at("columns").get<std::vector<size_t>>()});
    }
  }
  entry.distribution = distributionFromName(value.at("distribution"));
  entry.distributionColumns = value.at("distribution_columns").get<std::vector<size_t>>();
  entry.placement = value.at("placement").get<std::vector<std::string>>();
  entry.storageId = value.at("storage_id");
  entry.rowCount = value.at("row_count");
  entry.access = accessFromJson(value, sql::kOwnerRoleOid);
  for (const auto& hex : value.at("column_statistics")) {
    const std::string& text = hex.get_ref<const std::string&>();
    std::string bytes;
    for (size_t i = 0; i + 1 < text.size(); i += 2) {
      bytes += static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16));
    }
    entry.columnStatistics.push_back(std::move(bytes));
  }
  for (size_t index : entry.primaryKey) {
    if (index >= entry.columns.size()) SHOAL_USER_FAIL(SqlState::kDataCorrupted, "primary key column {}", index);
  }
  for (const auto& key : entry.uniqueKeys) {
    for (size_t index : key.columns) {
      if (index >= entry.columns.size()) SHOAL_USER_FAIL(SqlState::kDataCorrupted, "unique key column {}", index);
    }
  }
  for (size_t index : entry.distributionColumns) {
    if (index >= entry.columns.size()) SHOAL_USER_FAIL(SqlState::kDataCorrupted, "distribution column {}", index);
  }
  return entry;
}

namespace {

/// PostgreSQL 15's rights on schema public: the database owner's, and USAGE for everyone (not CREATE).
AccessRights publicSchemaAccess() {
  const int64_t owner = sql::kDatabaseOwnerRoleOid;
  return {owner, std::vector<AclItem>{{owner, owner, sql::kAclUsage | sql::kAclCreate, 0},
                                      {kPublicGrantee, owner, sql::kAclUsage, 0}}};
}

}  // namespace

TableCatalog::TableCatalog(std::unique_ptr<CatalogStore> store) : store_(std::move(store)) {
  // Every database starts with public, as in PostgreSQL (a stored catalog may have dropped it since).
  schemas_[std::string(sql::kPublicSchema)] = {std::string(sql::kPublicSchema), sql::kPublicNamespaceOid,
                                               std::string(kPublicSchemaComment), publicSchemaAccess()};
  if (store_) loadFromStore();
}

TableCatalog::~TableCatalog() = default;

void TableCatalog::loadFromStore() {
  std::optional<json> stored = store_->load();
  if (!stored) return;
  if (loadDocumentLocked(*stored)) store_->save(documentLocked());
}

bool TableCatalog::loadDocumentLocked(const json& document) {
  bool assignedViewIds = false;
  const std::string where = store_ ? store_->describe() : std::string("the catalog");
  try {
    if (document.at("format_version") != kCatalogFormatVersion) {
      SHOAL_USER_FAIL(SqlState::kDataCorrupted, "catalog format version {} is not {}",
                      document.at("format_version").dump(), kCatalogFormatVersion);
    }
    nextId_ = document.at("next_id");
    if (document.contains("schemas")) {
      schemas_.clear();
      for (const auto& schema : document.at("schemas")) {
        SchemaEntry entry{schema.at("name"), schema.at("oid"), schema.value("comment", std::string())};
        // Catalogs written before privileges: public keeps PostgreSQL's rights, the others are the superuser's.
        entry.access = schema.contains("access")               ? accessFromJson(schema, sql::kOwnerRoleOid)
                       : entry.oid == sql::kPublicNamespaceOid ? publicSchemaAccess()
                                                               : AccessRights{sql::kOwnerRoleOid, std::nullopt};
        schemas_[entry.name] = entry;
      }
    }
    tables_.clear();
    views_.clear();
    comments_.clear();
    for (const auto& table : document.at("tables")) {
      auto entry = std::make_shared<const TableEntry>(entryFromJson(table));
      tables_[entry->qualifiedName()] = entry;
    }
    if (document.contains("views")) {
      for (const auto& view : document.at("views")) {
        ViewEntry entry;
        entry.schema = view.value("schema", std::string(sql::kPublicSchema));
        entry.name = view.at("name");
        entry.statement = view.at("statement");
        entry.columnNames = view.at("column_names").get<std::vector<std::string>>();
        entry.searchPath = view.value("search_path", std::string(sql::kDefaultSearchPath));
        entry.access = accessFromJson(view, sql::kOwnerRoleOid);
        // Catalogs written before views had ids get theirs now, saved at once so that they stay.
        if (view.contains("view_id")) {
          entry.viewId = view.at("view_id");
        } else {
          entry.viewId = nextId_++;
          assignedViewIds = true;
        }
        views_[entry.qualifiedName()] = entry;
      }
    }
    if (document.contains("roles")) roles_.loadJson(document.at("roles"));
    if (document.contains("database")) databaseAccess_ = accessFromJson(document.at("database"), sql::kOwnerRoleOid);
    if (document.contains("pending_drops")) {
      pendingDrops_ = document.at("pending_drops").get<std::map<std::string, std::vector<uint64_t>>>();
    }
    if (document.contains("comments")) {
      for (const auto& comment : document.at("comments")) {
        comments_[{comment.at("relation_id"), comment.at("column")}] = comment.at("text");
      }
    }
    uncommitted_.clear();
    if (document.contains("uncommitted")) {
      for (const auto& change : document.at("uncommitted")) {
        uncommitted_.push_back(
            UncommittedChange{change.at("transaction_id"), change.at("before"),
                              change.at("after").is_null() ? std::nullopt : std::optional<json>(change.at("after"))});
      }
    }
  } catch (const json::exception& error) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "{} is corrupted: {}", where, error.what());
  } catch (const ShoalError& error) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "{} is corrupted: {}", where, error.status().message());
  }
  return assignedViewIds;
}

json TableCatalog::documentLocked() const {
  json tables = json::array();
  for (const auto& [name, entry] : tables_) tables.push_back(entryToJson(*entry));
  json views = json::array();
  for (const auto& [name, view] : views_) {
    views.push_back(json{{"schema", view.schema},
                         {"name", view.name},
                         {"statement", view.statement},
                         {"column_names", view.columnNames},
                         {"view_id", view.viewId},
                         {"search_path", view.searchPath},
                         {"access", accessToJson(view.access)}});
  }
  json schemas = json::array();
  for (const auto& [name, schema] : schemas_) {
    schemas.push_back(json{{"name", schema.name},
                           {"oid", schema.oid},
                           {"comment", schema.comment},
                           {"access", accessToJson(schema.access)}});
  }
  json uncommittedJson = json::array();
  for (const auto& change : uncommitted_) {
    uncommittedJson.push_back(json{{"transaction_id", change.transactionId},
                                   {"before", change.before},
                                   {"after", change.after ? *change.after : json()}});
  }
  json comments = json::array();
  for (const auto& [key, text] : comments_) {
    comments.push_back(json{{"relation_id", key.first}, {"column", key.second}, {"text", text}});
  }
  return json{{"format_version", kCatalogFormatVersion},
              {"next_id", nextId_},
              {"schemas", schemas},
              {"tables", tables},
              {"views", views},
              {"comments", comments},
              {"roles", roles_.toJson()},
              {"database", json{{"access", accessToJson(databaseAccess_)}}},
              {"pending_drops", pendingDrops_},
              {"uncommitted", uncommittedJson}};
}

TableCatalog::Snapshot TableCatalog::snapshotLocked() const {
  return Snapshot{tables_, views_, schemas_, nextId_, comments_, roles_, databaseAccess_, pendingDrops_, uncommitted_};
}

void TableCatalog::persistLocked(Snapshot& before) {
  version_.fetch_add(1, std::memory_order_acq_rel);
  if (!store_) return;
  try {
    store_->save(documentLocked());
  } catch (...) {
    // A change the store refused (etcd unreachable, a full disk) is undone in memory too, so that memory never
    // runs ahead of what a restarted coordinator would recover.
    tables_ = std::move(before.tables);
    views_ = std::move(before.views);
    schemas_ = std::move(before.schemas);
    nextId_ = before.nextId;
    comments_ = std::move(before.comments);
    roles_ = std::move(before.roles);
    databaseAccess_ = before.databaseAccess;
    pendingDrops_ = std::move(before.pendingDrops);
    uncommitted_ = std::move(before.uncommitted);
    throw;
  }
}

void TableCatalog::republish() {
  std::lock_guard lock(mutex_);
  if (store_) store_->save(documentLocked());
}

std::shared_ptr<const TableEntry> TableCatalog::find(const sql::QualifiedName& name) const {
  std::lock_guard lock(mutex_);
  auto it = tables_.find(name);
  return it == tables_.end() ? nullptr : it->second;
}

std::shared_ptr<const TableEntry> TableCatalog::require(const sql::QualifiedName& name) const {
  auto table = find(name);
  if (!table) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", name.name);
  return table;
}

std::vector<std::shared_ptr<const TableEntry>> TableCatalog::list() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<const TableEntry>> all;
  for (const auto& [name, entry] : tables_) all.push_back(entry);
  return all;
}

void TableCatalog::requireSchemaLocked(const std::string& name) const {
  if (!schemas_.contains(name)) SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", name);
}

std::shared_ptr<const TableEntry> TableCatalog::create(TableEntry entry) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  requireSchemaLocked(entry.schema);
  if (tables_.contains(entry.qualifiedName()) || views_.contains(entry.qualifiedName())) {
    SHOAL_USER_FAIL(SqlState::kDuplicateTable, "relation \"{}\" already exists", entry.name);
  }
  entry.tableId = nextId_++;
  entry.storageId = nextId_++;
  auto shared = std::make_shared<const TableEntry>(std::move(entry));
  tables_[shared->qualifiedName()] = shared;
  persistLocked(before);
  return shared;
}

std::shared_ptr<const TableEntry> TableCatalog::drop(const sql::QualifiedName& name) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  auto it = tables_.find(name);
  if (it == tables_.end()) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "table \"{}\" does not exist", name.name);
  auto entry = it->second;
  tables_.erase(it);
  dropCommentsLocked(entry->tableId);
  persistLocked(before);
  return entry;
}

std::shared_ptr<const TableEntry> TableCatalog::truncate(const sql::QualifiedName& name) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  auto it = tables_.find(name);
  if (it == tables_.end()) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", name.name);
  auto old = it->second;
  auto fresh = std::make_shared<TableEntry>(*old);
  fresh->storageId = nextId_++;
  fresh->rowCount = 0;
  fresh->columnStatistics.clear();
  it->second = fresh;
  persistLocked(before);
  return old;
}

uint64_t TableCatalog::newStorageId() {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  const uint64_t id = nextId_++;
  persistLocked(before);
  return id;
}

void TableCatalog::replaceTable(const std::shared_ptr<const TableEntry>& expected,
                                std::shared_ptr<const TableEntry> replacement,
                                const std::vector<std::optional<size_t>>& sourceColumns) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  auto it = tables_.find(expected->qualifiedName());
  if (it == tables_.end() || it->second != expected) {
    SHOAL_USER_FAIL(SqlState::kSerializationFailure,
                    "table \"{}\" changed while ALTER TABLE rewrote it; run the ALTER TABLE again", expected->name);
  }
  // Column comments are keyed by column number (1-based): they follow their columns to their new numbers.
  std::map<CommentKey, std::string> moved;
  for (auto comment = comments_.begin(); comment != comments_.end();) {
    if (comment->first.first != expected->tableId || comment->first.second == 0) {
      ++comment;
      continue;
    }
    for (size_t i = 0; i < sourceColumns.size(); ++i) {
      if (sourceColumns[i] && static_cast<int32_t>(*sourceColumns[i]) + 1 == comment->first.second) {
        moved[{expected->tableId, static_cast<int32_t>(i) + 1}] = comment->second;
      }
    }
    comment = comments_.erase(comment);
  }
  comments_.merge(moved);
  it->second = std::move(replacement);
  persistLocked(before);
}

void TableCatalog::renameTable(const sql::QualifiedName& name, const std::string& newName) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  auto it = tables_.find(name);
  if (it == tables_.end()) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", name.name);
  const sql::QualifiedName renamed{name.schema, newName};
  if (tables_.contains(renamed) || views_.contains(renamed)) {
    SHOAL_USER_FAIL(SqlState::kDuplicateTable, "relation \"{}\" already exists", newName);
  }
  auto entry = std::make_shared<TableEntry>(*it->second);
  entry->name = newName;
  tables_.erase(it);
  tables_[renamed] = std::move(entry);
  persistLocked(before);
}

void TableCatalog::renameColumn(const sql::QualifiedName& name, const std::string& column, const std::string& newName) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  auto it = tables_.find(name);
  if (it == tables_.end()) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", name.name);
  auto entry = std::make_shared<TableEntry>(*it->second);
  auto index = entry->findColumn(column);
  if (!index) SHOAL_USER_FAIL(SqlState::kUndefinedColumn, "column \"{}\" does not exist", column);
  if (entry->findColumn(newName)) {
    SHOAL_USER_FAIL(SqlState::kDuplicateColumn, "column \"{}\" of relation \"{}\" already exists", newName, name.name);
  }
  entry->columns[*index].name = newName;
  it->second = std::move(entry);
  persistLocked(before);
}

std::optional<ViewEntry> TableCatalog::findView(const sql::QualifiedName& name) const {
  std::lock_guard lock(mutex_);
  auto it = views_.find(name);
  if (it == views_.end()) return std::nullopt;
  return it->second;
}

std::vector<ViewEntry> TableCatalog::listViews() const {
  std::lock_guard lock(mutex_);
  std::vector<ViewEntry> all;
  for (const auto& [name, view] : views_) all.push_back(view);
  return all;
}

std::vector<std::string> TableCatalog::relationNames() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, entry] : tables_) names.push_back(name.name);
  for (const auto& [name, view] : views_) names.push_back(name.name);
  return names;
}

void TableCatalog::createView(ViewEntry view, bool orReplace) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  requireSchemaLocked(view.schema);
  const sql::QualifiedName name = view.qualifiedName();
  if (tables_.contains(name) || (views_.contains(name) && !orReplace)) {
    SHOAL_USER_FAIL(SqlState::kDuplicateTable, "relation \"{}\" already exists", view.name);
  }
  // CREATE OR REPLACE keeps the view's OID, as in PostgreSQL.
  auto existing = views_.find(name);
  view.viewId = existing != views_.end() ? existing->second.viewId : nextId_++;
  views_[name] = std::move(view);
  persistLocked(before);
}

bool TableCatalog::dropView(const sql::QualifiedName& name, bool ifExists) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  auto it = views_.find(name);
  if (it == views_.end()) {
    if (ifExists) return false;
    if (tables_.contains(name)) {
      throw ShoalError(Status(SqlState::kWrongObjectType, fmt::format("\"{}\" is not a view", name.name))
                           .withHint("Use DROP TABLE to remove a table."));
    }
    SHOAL_USER_FAIL(SqlState::kUndefinedTable, "view \"{}\" does not exist", name.name);
  }
  dropCommentsLocked(it->second.viewId);
  views_.erase(it);
  persistLocked(before);
  return true;
}

std::vector<SchemaEntry> TableCatalog::schemas() const {
  std::lock_guard lock(mutex_);
  std::vector<SchemaEntry> all;
  for (const auto& [name, schema] : schemas_) all.push_back(schema);
  return all;
}

void TableCatalog::setSchemaComment(const std::string& name, const std::string& text) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  requireSchemaLocked(name);
  schemas_[name].comment = text;
  persistLocked(before);
}

bool TableCatalog::createSchema(const std::string& name, bool ifNotExists, int64_t owner) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  if (schemas_.contains(name) || sql::isSystemSchema(name)) {
    if (ifNotExists) return false;
    SHOAL_USER_FAIL(SqlState::kDuplicateSchema, "schema \"{}\" already exists", name);
  }
  // public, dropped and made again, gets a new OID as in PostgreSQL.
  // public made again for the database's owner gets PostgreSQL's rights on it again.
  const bool standardPublic = name == sql::kPublicSchema && owner == sql::kDatabaseOwnerRoleOid;
  schemas_[name] = {name, kFirstUserOid + static_cast<int64_t>(nextId_++), "",
                    standardPublic ? publicSchemaAccess() : AccessRights{owner, std::nullopt}};
  persistLocked(before);
  return true;
}

std::string TableCatalog::relationNameLocked(const sql::QualifiedName& name,
                                             const std::vector<std::string>& lookup) const {
  const std::string relation = engine::quoteIdentifier(name.name);
  for (const auto& schema : lookup) {
    if (schema == name.schema) return relation;
    if (tables_.contains({schema, name.name}) || views_.contains({schema, name.name})) break;
  }
  return engine::quoteIdentifier(name.schema) + "." + relation;
}

DroppedSchemas TableCatalog::dropSchemas(const std::vector<std::string>& names, bool cascade,
                                         const std::vector<std::string>& lookup) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  DroppedSchemas dropped;
  std::string dependencies;  // "table s.t depends on schema s", one per line
  for (const auto& name : names) {
    if (sql::isSystemSchema(name)) {
      SHOAL_USER_FAIL(SqlState::kDependentObjectsStillExist,
                      "cannot drop schema {} because it is required by the database system", name);
    }
    requireSchemaLocked(name);
    for (const auto& [qualified, table] : tables_) {
      if (qualified.schema != name) continue;
      dropped.tables.push_back(table);
      dropped.objects.push_back(fmt::format("table {}", relationNameLocked(qualified, lookup)));
      dependencies +=
          fmt::format("{}{} depends on schema {}", dependencies.empty() ? "" : "\n", dropped.objects.back(), name);
    }
    for (const auto& [qualified, view] : views_) {
      if (qualified.schema != name) continue;
      dropped.views.push_back(view);
      dropped.objects.push_back(fmt::format("view {}", relationNameLocked(qualified, lookup)));
      dependencies +=
          fmt::format("{}{} depends on schema {}", dependencies.empty() ? "" : "\n", dropped.objects.back(), name);
    }
  }
  if (!cascade && !dropped.objects.empty()) {
    throw ShoalError(Status(SqlState::kDependentObjectsStillExist,
                            names.size() == 1
                                ? fmt::format("cannot drop schema {} because other objects depend on it", names[0])
                                : "cannot drop desired object(s) because other objects depend on them")
                         .withDetail(dependencies)
                         .withHint("Use DROP ... CASCADE to drop the dependent objects too."));
  }
  for (const auto& table : dropped.tables) {
    dropCommentsLocked(table->tableId);
    tables_.erase(table->qualifiedName());
  }
  for (const auto& view : dropped.views) {
    dropCommentsLocked(view.viewId);
    views_.erase(view.qualifiedName());
  }
  for (const auto& name : names) schemas_.erase(name);
  persistLocked(before);
  return dropped;
}

void TableCatalog::dropCommentsLocked(uint64_t relationId) {
  std::erase_if(comments_, [&](const auto& entry) { return entry.first.first == relationId; });
}

void TableCatalog::setComment(const sql::QualifiedName& name, int32_t column, const std::string& text) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  uint64_t relationId = 0;
  if (auto table = tables_.find(name); table != tables_.end()) {
    relationId = table->second->tableId;
  } else if (auto view = views_.find(name); view != views_.end()) {
    relationId = view->second.viewId;
  } else {
    SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", name.name);
  }
  if (text.empty()) {
    comments_.erase({relationId, column});
  } else {
    comments_[{relationId, column}] = text;
  }
  persistLocked(before);
}

void TableCatalog::addPendingDrop(const std::string& worker, uint64_t storageId) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  auto& ids = pendingDrops_[worker];
  if (std::find(ids.begin(), ids.end(), storageId) == ids.end()) ids.push_back(storageId);
  persistLocked(before);
}

std::map<std::string, std::vector<uint64_t>> TableCatalog::pendingDrops() const {
  std::lock_guard lock(mutex_);
  return pendingDrops_;
}

void TableCatalog::clearPendingDrops(const std::string& worker, const std::vector<uint64_t>& storageIds) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  auto found = pendingDrops_.find(worker);
  if (found == pendingDrops_.end()) return;
  std::erase_if(found->second,
                [&](uint64_t id) { return std::find(storageIds.begin(), storageIds.end(), id) != storageIds.end(); });
  if (found->second.empty()) pendingDrops_.erase(found);
  persistLocked(before);
}

std::vector<TableCatalog::Comment> TableCatalog::comments() const {
  std::lock_guard lock(mutex_);
  std::vector<Comment> all;
  for (const auto& [key, text] : comments_) all.push_back({key.first, key.second, text});
  return all;
}

void TableCatalog::recordLoad(const std::vector<LoadedTable>& tables) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  for (const LoadedTable& loaded : tables) {
    auto it = tables_.find(loaded.name);
    if (it == tables_.end() || it->second->storageId != loaded.storageId) continue;  // dropped or truncated meanwhile
    auto updated = std::make_shared<TableEntry>(*it->second);
    updated->rowCount += loaded.rows;
    updated->rowCount -= std::min(updated->rowCount, loaded.rowsDeleted);
    if (loaded.columnStatistics.empty()) {
      // Only deletes: the statistics of what is left stay an estimate from the rows loaded.
    } else if (updated->columnStatistics.size() != loaded.columnStatistics.size()) {
      updated->columnStatistics = loaded.columnStatistics;
    } else {
      // A load appends rows: its statistics fold into those of the rows already there.
      for (size_t c = 0; c < loaded.columnStatistics.size(); ++c) {
        const auto& type = updated->columns[c].type;
        auto merged = worker::ColumnStatistics::deserialize(type, updated->columnStatistics[c]);
        merged.merge(worker::ColumnStatistics::deserialize(type, loaded.columnStatistics[c]));
        updated->columnStatistics[c] = merged.serialize();
      }
    }
    it->second = updated;
  }
  persistLocked(before);
}

}  // namespace shoal::coordinator
