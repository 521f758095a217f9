#pragma once

#include <span>
#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/query_result.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

class Transaction;

// The statements that define, fill and empty user tables and schemas (all but
// COPY, which streams: see copy_executor.h). Each returns its CommandComplete
// tag and fills `notices` with what the client should be told.

std::string runCreateTable(ClusterContext& cluster, const sql::CreateTable& command, const std::string& user,
                           std::vector<Notice>& notices);
std::string runDropTable(ClusterContext& cluster, const sql::DropTable& command, const std::string& user,
                         std::vector<Notice>& notices);
std::string runTruncateTable(ClusterContext& cluster, const sql::TruncateTable& command);
/// ALTER TABLE ... RENAME [COLUMN]: the catalog alone changes (workers know columns by position, tables by storage
/// id). Views read the table by name, as they do after DROP TABLE: one over the old name fails with 42P01.
std::string runRenameTable(ClusterContext& cluster, const sql::RenameTable& command, const std::string& user,
                           std::vector<Notice>& notices);
std::string runCreateSchema(ClusterContext& cluster, const sql::CreateSchema& command, const std::string& user,
                            std::vector<Notice>& notices);
/// DROP SCHEMA, with the workers told to drop the storage of the tables CASCADE took along; `catalog` is the
/// session's, whose search path decides how the notices name the relations.
std::string runDropSchema(ClusterContext& cluster, const sql::DropSchema& command, const sql::CatalogReader& catalog,
                          const std::string& user, std::vector<Notice>& notices);
/// The rows of INSERT ... VALUES, evaluated, in chunks of the table's column types (NOT NULL checked);
/// `table` gets the table.
std::vector<engine::Chunk> insertValuesRows(ClusterContext& cluster, const sql::InsertValues& command,
                                            std::span<const engine::Value> parameters,
                                            std::shared_ptr<const TableEntry>& table);
/// `transaction`: the session's transaction block the rows join, or null (the INSERT commits on its own).
std::string runInsertValues(ClusterContext& cluster, const sql::InsertValues& command,
                            std::span<const engine::Value> parameters, Transaction* transaction = nullptr);

/// Makes schema `name` for the temporary relations of a session of `user`, unless it exists.
void createTemporarySchema(ClusterContext& cluster, const std::string& name, const std::string& user);
/// Drops temporary schemas with everything in them, without notices: what a session leaves at its end, and what
/// sessions of a coordinator that stopped abruptly left (`names` that are gone already are skipped).
void dropTemporarySchemas(ClusterContext& cluster, const std::vector<std::string>& names);

/// Tells the workers that hold `table` to drop the storage `storageId` (best
/// effort: a worker that is down keeps it until it is told again).
void dropStorageOnWorkers(ClusterContext& cluster, const TableEntry& table, uint64_t storageId);

}  // namespace shoal::coordinator
