#include "coordinator/query/row_changes.h"

#include <grpcpp/client_context.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <unordered_set>

#include "coordinator/query/load_transaction.h"
#include "coordinator/query/row_router.h"
#include "coordinator/transaction/session_transaction.h"
#include "proto/rpc_status.h"

namespace shoal::coordinator {

namespace {

constexpr unsigned kRowTagShift = 48;
constexpr uint64_t kRowKeyMask = (uint64_t{1} << kRowTagShift) - 1;
/// Row ids per DeleteRows call: 8 MB of them.
constexpr size_t kKeysPerCall = 1 << 20;

/// The statement's work common to DELETE and UPDATE: the transaction it writes under, and the row ids it
/// deletes, collected per worker and sent at the end.
class RowChange {
 public:
  RowChange(ClusterContext& cluster, const sql::QualifiedName& name, Transaction* transaction) : cluster_(cluster) {
    table_ = cluster.tables.find(name);
    if (!table_) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", name.name);
    if (table_->distribution == Distribution::kReplicated) {
      // Each worker's copy has rows of its own ids: changing them needs the statement run on every copy.
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "UPDATE and DELETE of a replicated table are not supported yet");
    }
    if (!transaction) {
      own_ = std::make_unique<Transaction>(cluster.transactions, IsolationLevel::kReadCommitted);
      transaction = own_.get();
    }
    transaction_ = transaction;
    writeId_ = transaction_->currentWrite();
    transaction_->touch(cluster.workers.placementAddresses(*table_), {table_});
  }

  std::shared_ptr<const TableEntry> table() const { return table_; }
  Transaction* transaction() const { return transaction_; }

  /// The rows of `chunk` (column 0 their ids) that this statement has not met before, noting their ids.
  std::vector<uint32_t> firstSeen(const engine::Chunk& chunk) {
    std::vector<uint32_t> rows;
    const auto* ids = chunk.column(0).data<int64_t>();
    for (uint32_t row = 0; row < chunk.size(); ++row) {
      const auto id = static_cast<uint64_t>(ids[row]);
      if (!seen_.insert(id).second) continue;
      keysByTag_[static_cast<uint32_t>(id >> kRowTagShift)].push_back(id & kRowKeyMask);
      rows.push_back(row);
    }
    return rows;
  }

  /// Deletes every row met, on the workers that hold them; returns how many.
  uint64_t deleteRows(const proto::SnapshotProto& snapshot) {
    uint64_t deleted = 0;
    for (auto& [tag, keys] : keysByTag_) {
      const std::string address = cluster_.workers.addressOfRowTag(tag);
      for (size_t start = 0; start < keys.size(); start += kKeysPerCall) {
        proto::DeleteRowsRequest request;
        request.set_write_id(writeId_);
        *request.mutable_snapshot() = snapshot;
        request.set_storage_id(table_->storageId);
        const size_t end = std::min(keys.size(), start + kKeysPerCall);
        request.mutable_row_keys()->Add(keys.begin() + static_cast<ptrdiff_t>(start),
                                        keys.begin() + static_cast<ptrdiff_t>(end));
        proto::DeleteRowsResponse response;
        grpc::ClientContext context;
        grpc::Status status = cluster_.workers.dataStub(address).DeleteRows(&context, request, &response);
        if (!status.ok()) proto::throwRpcError(status, address);
        deleted += response.rows_deleted();
      }
    }
    return deleted;
  }

  /// Outside a block: commits the statement's transaction and records what changed.
  void commit() {
    if (!own_) return;
    std::vector<proto::StorageStatistics> statistics = own_->commit();
    recordCommitted(cluster_, {table_}, statistics);
  }

 private:
  ClusterContext& cluster_;
  std::shared_ptr<const TableEntry> table_;
  std::unique_ptr<Transaction> own_;  // rolled back on destruction unless committed
  Transaction* transaction_ = nullptr;
  uint64_t writeId_ = 0;
  std::unordered_set<uint64_t> seen_;
  std::map<uint32_t, std::vector<uint64_t>> keysByTag_;
};

/// Columns [first, chunk.numColumns()) of `rows` of `chunk` (taken from it).
engine::Chunk selectColumns(engine::Chunk& chunk, size_t first, const std::vector<uint32_t>& rows) {
  engine::Chunk out(rows.size());
  const bool all = rows.size() == chunk.size();
  for (size_t c = first; c < chunk.numColumns(); ++c) {
    out.addColumn(all ? std::move(chunk.column(c)) : chunk.column(c).select(rows));
  }
  return out;
}

}  // namespace

RowChangeOutcome runDelete(ClusterContext& cluster, const sql::DeleteRows& command, const PlanExecutor& executor,
                           Transaction* transaction) {
  RowChange change(cluster, command.table, transaction);
  QueryResult found = executor.run(command.plan);
  QueryResult returned;
  for (size_t c = 1; c < found.columns.size(); ++c) returned.columns.push_back(found.columns[c]);
  while (auto chunk = found.nextChunk()) {
    executor.throwIfCancelRequested();
    std::vector<uint32_t> rows = change.firstSeen(*chunk);
    if (command.returning && !rows.empty()) returned.chunks.push_back(selectColumns(*chunk, 1, rows));
  }
  const uint64_t deleted = change.deleteRows(executor.snapshot().value());
  change.commit();
  RowChangeOutcome outcome;
  outcome.rows = deleted;
  if (command.returning) {
    outcome.commandTag = "DELETE";
    outcome.returned = std::move(returned);
  } else {
    outcome.commandTag = fmt::format("DELETE {}", deleted);
  }
  return outcome;
}

RowChangeOutcome runUpdate(ClusterContext& cluster, const sql::UpdateRows& command, const PlanExecutor& executor,
                           Transaction* transaction) {
  RowChange change(cluster, command.table, transaction);
  QueryResult found = executor.run(command.plan);
  // The new versions go in under the same write as the deletes of the old ones.
  RowRouter router(cluster, change.table(), {}, change.transaction());
  // A new version that keeps its row's key takes the place of a row that was unique: nothing to check.
  const auto& key = change.table()->primaryKey;
  if (std::none_of(command.assignedColumns.begin(), command.assignedColumns.end(),
                   [&](size_t column) { return std::find(key.begin(), key.end(), column) != key.end(); })) {
    router.load().skipKeyCheck();
  }
  while (auto chunk = found.nextChunk()) {
    executor.throwIfCancelRequested();
    std::vector<uint32_t> rows = change.firstSeen(*chunk);
    if (!rows.empty()) router.write(selectColumns(*chunk, 1, rows));
  }
  const uint64_t updated = change.deleteRows(executor.snapshot().value());
  router.finish();
  change.commit();
  return RowChangeOutcome{fmt::format("UPDATE {}", updated), updated, std::nullopt};
}

}  // namespace shoal::coordinator
