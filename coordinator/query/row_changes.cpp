#include "coordinator/query/row_changes.h"

#include <grpcpp/client_context.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <unordered_set>

#include "coordinator/query/load_transaction.h"
#include "coordinator/query/replica_rows.h"
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
  RowChange(ClusterContext& cluster, const sql::QualifiedName& name, Transaction* transaction,
            const PlanExecutor& executor)
      : cluster_(cluster), executor_(executor) {
    table_ = cluster.tables.find(name);
    if (!table_) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", name.name);
    if (table_->distribution == Distribution::kReplicated) replicas_.emplace(cluster, *table_, executor);
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

  /// Hands each chunk of rows the plan found to `consume` with the rows of it the statement changes (column 0
  /// their ids), noting their ids: each row once (a join may meet it twice). Of a replicated table, the rows
  /// ReplicaRows chooses, once every row was found, and their equals in every copy are deleted.
  void forEachChanged(QueryResult& found,
                      const std::function<void(engine::Chunk&, const std::vector<uint32_t>&)>& consume) {
    if (!replicas_) {
      while (auto chunk = found.nextChunk()) {
        executor_.throwIfCancelRequested();
        std::vector<uint32_t> rows = firstSeen(*chunk);
        for (uint32_t row : rows) noteDelete(static_cast<uint64_t>(chunk->column(0).data<int64_t>()[row]));
        if (!rows.empty()) consume(*chunk, rows);
      }
      return;
    }
    std::vector<engine::Chunk> chunks;
    std::vector<std::vector<uint32_t>> rowsOf;
    std::vector<uint64_t> ids;
    while (auto chunk = found.nextChunk()) {
      executor_.throwIfCancelRequested();
      std::vector<uint32_t> rows = firstSeen(*chunk);
      for (uint32_t row : rows) ids.push_back(static_cast<uint64_t>(chunk->column(0).data<int64_t>()[row]));
      rowsOf.push_back(std::move(rows));
      chunks.push_back(std::move(*chunk));
    }
    const std::vector<size_t> chosen = replicas_->choose(ids);  // ascending positions into ids
    size_t position = 0;
    size_t next = 0;
    for (size_t c = 0; c < chunks.size(); ++c) {
      std::vector<uint32_t> kept;
      for (uint32_t row : rowsOf[c]) {
        if (next < chosen.size() && chosen[next] == position++) {
          kept.push_back(row);
          ++next;
        }
      }
      if (!kept.empty()) consume(chunks[c], kept);
    }
    for (const auto& [tag, copyIds] : replicas_->idsInEveryCopy()) {
      for (uint64_t id : copyIds) noteDelete(id);
    }
  }

  /// Deletes every row noted, on the workers that hold them; returns how many (of a replicated table: in
  /// one copy).
  uint64_t deleteRows(const proto::SnapshotProto& snapshot) {
    uint64_t deleted = 0;
    uint64_t deletedInOneCopy = 0;
    for (auto& [tag, keys] : keysByTag_) {
      uint64_t deletedHere = 0;
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
        deletedHere += response.rows_deleted();
      }
      deleted += deletedHere;
      deletedInOneCopy = deletedHere;
    }
    return replicas_ ? deletedInOneCopy : deleted;
  }

  /// Outside a block: commits the statement's transaction and records what changed.
  void commit() {
    if (!own_) return;
    std::vector<proto::StorageStatistics> statistics = own_->commit();
    recordCommitted(cluster_, {table_}, statistics);
  }

 private:
  /// The rows of `chunk` (column 0 their ids) that this statement has not met before.
  std::vector<uint32_t> firstSeen(const engine::Chunk& chunk) {
    std::vector<uint32_t> rows;
    const auto* ids = chunk.column(0).data<int64_t>();
    for (uint32_t row = 0; row < chunk.size(); ++row) {
      if (seen_.insert(static_cast<uint64_t>(ids[row])).second) rows.push_back(row);
    }
    return rows;
  }

  void noteDelete(uint64_t id) { keysByTag_[static_cast<uint32_t>(id >> kRowTagShift)].push_back(id & kRowKeyMask); }

  ClusterContext& cluster_;
  const PlanExecutor& executor_;
  std::shared_ptr<const TableEntry> table_;
  std::optional<ReplicaRows> replicas_;  // after table_, which it reads
  std::unique_ptr<Transaction> own_;     // rolled back on destruction unless committed
  Transaction* transaction_ = nullptr;
  uint64_t writeId_ = 0;
  std::unordered_set<uint64_t> seen_;
  std::map<uint32_t, std::vector<uint64_t>> keysByTag_;
};

/// The outcome of a statement that changed `rows` rows: with RETURNING, `returned` and a tag without the count
/// (pgwire adds the count of rows it sent).
RowChangeOutcome outcomeOf(std::string_view command, uint64_t rows, bool returning, QueryResult returned) {
  RowChangeOutcome outcome;
  outcome.rows = rows;
  if (returning) {
    outcome.commandTag = std::string(command);
    outcome.returned = std::move(returned);
  } else {
    outcome.commandTag = fmt::format("{} {}", command, rows);
  }
  return outcome;
}

/// Columns [first, end) of `rows` of `chunk` (taken from it).
engine::Chunk selectColumns(engine::Chunk& chunk, size_t first, size_t end, const std::vector<uint32_t>& rows) {
  engine::Chunk out(rows.size());
  const bool all = rows.size() == chunk.size();
  for (size_t c = first; c < end; ++c) {
    out.addColumn(all ? std::move(chunk.column(c)) : chunk.column(c).select(rows));
  }
  return out;
}

}  // namespace

RowChangeOutcome runDelete(ClusterContext& cluster, const sql::DeleteRows& command, const PlanExecutor& executor,
                           Transaction* transaction) {
  RowChange change(cluster, command.table, transaction, executor);
  QueryResult found = executor.run(command.plan);
  QueryResult returned;
  for (size_t c = 1; c < found.columns.size(); ++c) returned.columns.push_back(found.columns[c]);
  change.forEachChanged(found, [&](engine::Chunk& chunk, const std::vector<uint32_t>& rows) {
    if (command.returning) returned.chunks.push_back(selectColumns(chunk, 1, chunk.numColumns(), rows));
  });
  const uint64_t deleted = change.deleteRows(executor.snapshot().value());
  change.commit();
  return outcomeOf("DELETE", deleted, command.returning, std::move(returned));
}

RowChangeOutcome runUpdate(ClusterContext& cluster, const sql::UpdateRows& command, const PlanExecutor& executor,
                           Transaction* transaction) {
  RowChange change(cluster, command.table, transaction, executor);
  QueryResult found = executor.run(command.plan);
  // The new versions go in under the same write as the deletes of the old ones.
  RowRouter router(cluster, change.table(), {}, change.transaction());
  // A new version that keeps its row's keys takes the place of a row that was unique: nothing to check.
  std::vector<size_t> keyColumns = change.table()->primaryKey;
  for (const auto& key : change.table()->uniqueKeys)
    keyColumns.insert(keyColumns.end(), key.columns.begin(), key.columns.end());
  if (std::none_of(command.assignedColumns.begin(), command.assignedColumns.end(), [&](size_t column) {
        return std::find(keyColumns.begin(), keyColumns.end(), column) != keyColumns.end();
      })) {
    router.load().skipKeyCheck();
  }
  const size_t newValuesEnd = 1 + command.newValueColumns;
  QueryResult returned;
  for (size_t c = newValuesEnd; c < found.columns.size(); ++c) returned.columns.push_back(found.columns[c]);
  change.forEachChanged(found, [&](engine::Chunk& chunk, const std::vector<uint32_t>& rows) {
    if (command.returning) returned.chunks.push_back(selectColumns(chunk, newValuesEnd, chunk.numColumns(), rows));
    router.write(selectColumns(chunk, 1, newValuesEnd, rows));
  });
  const uint64_t updated = change.deleteRows(executor.snapshot().value());
  router.finish();
  change.commit();
  return outcomeOf("UPDATE", updated, command.returning, std::move(returned));
}

}  // namespace shoal::coordinator
