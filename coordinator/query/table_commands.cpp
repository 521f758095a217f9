#include "coordinator/query/table_commands.h"

#include <grpcpp/client_context.h>
#include <spdlog/spdlog.h>

#include "coordinator/query/catalog_changes.h"
#include "coordinator/query/load_transaction.h"
#include "coordinator/query/row_router.h"
#include "coordinator/query/unique_key_check.h"
#include "engine/expression/expression_evaluator.h"
#include "engine/vector/chunk_codec.h"
#include "proto/rpc_status.h"
#include "sql/binder/search_path.h"

namespace shoal::coordinator {

namespace {

/// The OID of role `name`, which must still exist.
int64_t roleOid(const ClusterContext& cluster, const std::string& name) {
  auto role = cluster.tables.findRole(name);
  if (!role) SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied: role \"{}\" no longer exists", name);
  return role->oid;
}

bool schemaExists(const ClusterContext& cluster, std::string_view name) {
  const auto schemas = cluster.tables.schemas();
  return std::any_of(schemas.begin(), schemas.end(), [&](const auto& schema) { return schema.name == name; });
}

}  // namespace

std::string runCreateTable(ClusterContext& cluster, const sql::CreateTable& command, const std::string& user,
                           std::vector<Notice>& notices) {
  const std::string& name = command.name.name;
  if (cluster.tables.find(command.name) || cluster.tables.findView(command.name)) {
    if (command.ifNotExists) {
      notices.push_back(Notice::notice(fmt::format("relation \"{}\" already exists, skipping", name), "42P07"));
      return "CREATE TABLE";
    }
    SHOAL_USER_FAIL(SqlState::kDuplicateTable, "relation \"{}\" already exists", name);
  }
  std::vector<LiveWorker> workers = cluster.workers.liveWorkers();
  if (workers.empty()) SHOAL_USER_FAIL(SqlState::kConnectionFailure, "no worker is up to hold table \"{}\"", name);
  // Partitions go to the workers in name order, so that placement does not depend on registration order.
  std::sort(workers.begin(), workers.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  TableEntry entry;
  entry.schema = command.name.schema;
  entry.name = name;
  for (size_t i = 0; i < command.columns.size(); ++i) {
    entry.columns.push_back(CatalogColumn{command.columns[i].name, command.columns[i].type, command.notNull[i]});
  }
  entry.primaryKey = command.primaryKey;
  entry.uniqueKeys = command.uniqueKeys;
  switch (command.distribution.kind) {
    case sql::DistributionSpec::Kind::kHash:
      entry.distribution = Distribution::kHash;
      entry.distributionColumns = command.distribution.columns;
      break;
    case sql::DistributionSpec::Kind::kReplicated:
      entry.distribution = Distribution::kReplicated;
      break;
    case sql::DistributionSpec::Kind::kRandom:
      entry.distribution = Distribution::kRandom;
      break;
  }
  std::vector<std::string> columnNames;
  for (const auto& column : entry.columns) columnNames.push_back(column.name);
  if (!entry.primaryKey.empty()) {
    requireEnforceableKey(name, columnNames, entry.primaryKey, entry.distribution, entry.distributionColumns,
                          "a PRIMARY KEY");
  }
  for (const auto& key : entry.uniqueKeys) {
    requireEnforceableKey(name, columnNames, key.columns, entry.distribution, entry.distributionColumns,
                          "a UNIQUE constraint");
  }
  for (const auto& worker : workers) entry.placement.push_back(worker.name);
  entry.access.owner = roleOid(cluster, user);
  cluster.tables.create(std::move(entry));
  return "CREATE TABLE";
}

void dropStorageOnWorkers(ClusterContext& cluster, const TableEntry& table, uint64_t storageId) {
  if (auto* deferred = DeferredStorageDrops::current()) {  // DDL of a transaction block: at its COMMIT
    deferred->add(table, storageId);
    return;
  }
  std::vector<MemberSnapshot> nodes = cluster.registry.nodes();
  for (const auto& name : table.placement) {
    auto node = std::find_if(nodes.begin(), nodes.end(), [&](const auto& member) { return member.nodeName == name; });
    if (node == nodes.end() || node->state != "up") {
      spdlog::warn("worker {} is not up: its storage {} of table {} is dropped when it is back", name, storageId,
                   table.name);
      cluster.tables.addPendingDrop(name, storageId);
      continue;
    }
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    proto::DropStorageRequest request;
    request.add_storage_ids(storageId);
    proto::DropStorageResponse response;
    grpc::Status status = cluster.workers.dataStub(node->address).DropStorage(&context, request, &response);
    if (!status.ok()) {
      spdlog::warn("dropping storage {} on {} failed ({}): retried until it is done", storageId, name,
                   status.error_message());
      cluster.tables.addPendingDrop(name, storageId);
    }
  }
}

std::string runDropTable(ClusterContext& cluster, const sql::DropTable& command, const std::string& user,
                         std::vector<Notice>& notices) {
  // Every name is checked before any table goes: DROP TABLE a, b drops neither when b is missing.
  for (const auto& name : command.names) {
    if (cluster.tables.find(name)) {
      cluster.tables.requireRelationOwner(user, name, false);
      continue;
    }
    const bool schemaMissing = !name.schema.empty() && !schemaExists(cluster, name.schema);
    if (command.ifExists) {
      notices.push_back(Notice::notice(schemaMissing
                                           ? fmt::format("schema \"{}\" does not exist, skipping", name.schema)
                                           : fmt::format("table \"{}\" does not exist, skipping", name.name)));
      continue;
    }
    if (schemaMissing) SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", name.schema);
    if (sql::isSystemSchema(name.schema)) {
      SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "permission denied: \"{}\" is a system catalog", name.name);
    }
    if (cluster.tables.findView(name)) {
      throw ShoalError(Status(SqlState::kWrongObjectType, fmt::format("\"{}\" is not a table", name.name))
                           .withHint("Use DROP VIEW to remove a view."));
    }
    SHOAL_USER_FAIL(SqlState::kUndefinedTable, "table \"{}\" does not exist", name.name);
  }
  for (const auto& name : command.names) {
    if (!cluster.tables.find(name)) continue;
    auto dropped = cluster.tables.drop(name);
    dropStorageOnWorkers(cluster, *dropped, dropped->storageId);
  }
  return "DROP TABLE";
}

std::string runTruncateTable(ClusterContext& cluster, const sql::TruncateTable& command) {
  for (const auto& name : command.names) {
    auto old = cluster.tables.truncate(name);
    dropStorageOnWorkers(cluster, *old, old->storageId);
  }
  return "TRUNCATE TABLE";
}

std::string runCreateSchema(ClusterContext& cluster, const sql::CreateSchema& command, const std::string& user,
                            std::vector<Notice>& notices) {
  int64_t owner = roleOid(cluster, user);
  if (!command.owner.empty() && command.owner != user) {
    // Giving a schema to another role takes being able to act as that role.
    const auto self = cluster.tables.findRole(user);
    const RoleCatalog roles = cluster.tables.roleCatalog();
    const RoleEntry* target = roles.find(command.owner);
    if (target == nullptr) SHOAL_USER_FAIL(SqlState::kUndefinedObject, "role \"{}\" does not exist", command.owner);
    if (!actsAsOwner(roles, *self, target->oid)) {
      SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege, "must be member of role \"{}\"", command.owner);
    }
    owner = target->oid;
  }
  if (!cluster.tables.createSchema(command.name, command.ifNotExists, owner)) {
    notices.push_back(Notice::notice(fmt::format("schema \"{}\" already exists, skipping", command.name), "42P06"));
  }
  return "CREATE SCHEMA";
}

std::string runDropSchema(ClusterContext& cluster, const sql::DropSchema& command, const sql::CatalogReader& catalog,
                          const std::string& user, std::vector<Notice>& notices) {
  std::vector<std::string> names;
  for (const auto& name : command.names) {
    if (!schemaExists(cluster, name) && !sql::isSystemSchema(name)) {
      if (!command.ifExists) SHOAL_USER_FAIL(SqlState::kInvalidSchemaName, "schema \"{}\" does not exist", name);
      notices.push_back(Notice::notice(fmt::format("schema \"{}\" does not exist, skipping", name)));
      continue;
    }
    if (!sql::isSystemSchema(name)) cluster.tables.requireSchemaOwner(user, name);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty()) return "DROP SCHEMA";
  DroppedSchemas dropped = cluster.tables.dropSchemas(names, command.cascade, sql::lookupSchemas(catalog));
  if (dropped.objects.size() == 1) {
    notices.push_back(Notice::notice(fmt::format("drop cascades to {}", dropped.objects[0])));
  } else if (!dropped.objects.empty()) {
    std::string detail;
    for (const auto& object : dropped.objects) detail += (detail.empty() ? "" : "\n") + ("drop cascades to " + object);
    Notice notice = Notice::notice(fmt::format("drop cascades to {} other objects", dropped.objects.size()));
    notice.detail = detail;
    notices.push_back(std::move(notice));
  }
  for (const auto& table : dropped.tables) dropStorageOnWorkers(cluster, *table, table->storageId);
  return "DROP SCHEMA";
}

void createTemporarySchema(ClusterContext& cluster, const std::string& name, const std::string& user) {
  // Owned by the session's role, so that it may use its tables as any owner does.
  if (!schemaExists(cluster, name)) cluster.tables.createSchema(name, true, roleOid(cluster, user));
}

void dropTemporarySchemas(ClusterContext& cluster, const std::vector<std::string>& names) {
  std::vector<std::string> existing;
  for (const auto& name : names) {
    if (sql::isTemporarySchema(name) && schemaExists(cluster, name)) existing.push_back(name);
  }
  if (existing.empty()) return;
  DroppedSchemas dropped = cluster.tables.dropSchemas(existing, true, {});
  for (const auto& table : dropped.tables) dropStorageOnWorkers(cluster, *table, table->storageId);
}

std::string runRenameTable(ClusterContext& cluster, const sql::RenameTable& command, const std::string& user,
                           std::vector<Notice>& notices) {
  if (!cluster.tables.find(command.table)) {
    if (cluster.tables.findView(command.table)) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "renaming a view is not supported yet");
    }
    if (command.ifExists) {
      notices.push_back(Notice::notice(fmt::format("relation \"{}\" does not exist, skipping", command.table.name)));
      return "ALTER TABLE";
    }
    SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", command.table.name);
  }
  cluster.tables.requireRelationOwner(user, command.table, false);
  if (command.column) {
    cluster.tables.renameColumn(command.table, *command.column, command.newName);
  } else {
    cluster.tables.renameTable(command.table, command.newName);
  }
  return "ALTER TABLE";
}

std::vector<engine::Chunk> insertValuesRows(ClusterContext& cluster, const sql::InsertValues& command,
                                            std::span<const engine::Value> parameters,
                                            std::shared_ptr<const TableEntry>& table) {
  table = cluster.tables.find(command.table);
  if (!table) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", command.table.name);
  // Evaluate the VALUES rows into one chunk of the table's column types.
  engine::ExpressionEvaluator evaluator(parameters);
  std::vector<engine::LogicalType> types = table->columnTypes();
  std::vector<engine::Chunk> chunks;
  for (size_t start = 0; start < command.rows.size(); start += engine::kVectorSize) {
    size_t count = std::min(engine::kVectorSize, command.rows.size() - start);
    engine::Chunk chunk(count);
    for (size_t c = 0; c < types.size(); ++c) {
      engine::Vector column(types[c], count);
      for (size_t r = 0; r < count; ++r) {
        const auto& expression = command.rows[start + r][c];
        if (!expression) {
          column.setNull(r, true);
          continue;
        }
        engine::Vector value = evaluator.evaluate(*expression, engine::Chunk(1));
        column.setValue(r, value.getValue(0));
      }
      chunk.addColumn(std::move(column));
    }
    chunks.push_back(std::move(chunk));
  }
  // NOT NULL is checked here too (the workers check it again), so that rows a transaction buffers fail at once.
  for (const auto& chunk : chunks) {
    for (size_t c = 0; c < table->columns.size(); ++c) {
      if (table->columns[c].notNull && !chunk.column(c).validity().allValid(chunk.size())) {
        SHOAL_USER_FAIL(SqlState::kNotNullViolation,
                        "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                        table->columns[c].name, table->name);
      }
    }
  }
  return chunks;
}

std::string runInsertValues(ClusterContext& cluster, const sql::InsertValues& command,
                            std::span<const engine::Value> parameters, Transaction* transaction) {
  std::shared_ptr<const TableEntry> table;
  std::vector<engine::Chunk> chunks = insertValuesRows(cluster, command, parameters, table);
  RowRouter router(cluster, table, {}, transaction);
  for (const auto& chunk : chunks) router.write(chunk);
  router.finish();
  return fmt::format("INSERT 0 {}", command.rows.size());
}

}  // namespace shoal::coordinator
