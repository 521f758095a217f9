#include "coordinator/query/load_transaction.h"

#include <grpcpp/client_context.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <map>
#include <span>
#include <thread>

#include "proto/rpc_status.h"
#include "worker/storage/column_statistics.h"

namespace shoal::coordinator {

void recordCommitted(ClusterContext& cluster, const std::vector<std::shared_ptr<const TableEntry>>& tables,
                     const std::vector<proto::StorageStatistics>& statistics, const LoadRecorder& recorder) {
  // What each worker's partitions gained, per storage id.
  std::map<uint64_t, std::vector<const proto::StorageStatistics*>> byStorage;
  for (const auto& partition : statistics) byStorage[partition.storage_id()].push_back(&partition);
  std::vector<TableCatalog::LoadedTable> recorded;
  for (const auto& table : tables) {
    const auto& all = byStorage[table->storageId];
    // Every worker holds every row of a replicated table: one copy describes the table.
    const size_t copies =
        table->distribution == Distribution::kReplicated ? std::min<size_t>(all.size(), 1) : all.size();
    const std::span<const proto::StorageStatistics* const> partitions(all.data(), copies);
    TableCatalog::LoadedTable loaded{table->qualifiedName(), table->storageId, 0, {}, 0};
    std::vector<worker::ColumnStatistics> columns;
    for (const auto& column : table->columns) columns.emplace_back(column.type);
    bool added = false;
    for (const auto* partition : partitions) {
      loaded.rows += partition->rows();
      loaded.rowsDeleted += partition->rows_deleted();
      if (partition->rows() == 0) continue;
      if (static_cast<size_t>(partition->column_statistics_size()) != columns.size()) continue;
      added = true;
      for (size_t c = 0; c < columns.size(); ++c) {
        columns[c].merge(worker::ColumnStatistics::deserialize(table->columns[c].type,
                                                               partition->column_statistics(static_cast<int>(c))));
      }
    }
    if (added) {
      for (const auto& column : columns) loaded.columnStatistics.push_back(column.serialize());
    }
    recorded.push_back(std::move(loaded));
  }
  if (recorder) {
    recorder(recorded);
  } else {
    cluster.tables.recordLoad(recorded);
  }
}

LoadTransaction::LoadTransaction(ClusterContext& cluster, std::vector<std::shared_ptr<const TableEntry>> tables,
                                 Recorder recorder, Transaction* enclosing)
    : cluster_(cluster), tables_(std::move(tables)), recorder_(std::move(recorder)), transaction_(enclosing) {
  if (!transaction_) {
    own_ = std::make_unique<Transaction>(cluster_.transactions, IsolationLevel::kReadCommitted);
    transaction_ = own_.get();
  }
  writeId_ = transaction_->currentWrite();
  for (const auto& table : tables_) {
    for (const auto& address : cluster_.workers.placementAddresses(*table)) addresses_.insert(address);
  }
  // Known before the first row goes: an abort must reach every worker that may have staged some.
  transaction_->touch(std::vector<std::string>(addresses_.begin(), addresses_.end()), tables_);
}

LoadTransaction::~LoadTransaction() {
  if (!finished_) abort();
}

namespace {

/// Runs call(i) for every i < count, each on a thread of its own, and waits for all.
void inParallel(size_t count, const std::function<void(size_t)>& call) {
  std::vector<std::thread> threads;
  for (size_t i = 0; i < count; ++i) threads.emplace_back(call, i);
  for (auto& thread : threads) thread.join();
}

}  // namespace

void LoadTransaction::announce(uint64_t totalBytes) {
  const std::vector<std::string> addresses(addresses_.begin(), addresses_.end());
  const uint64_t bytesPerWorker = totalBytes / std::max<size_t>(1, addresses.size());
  inParallel(addresses.size(), [&](size_t i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    proto::PrepareLoadRequest request;
    request.set_load_id(writeId_);
    request.set_expected_bytes(bytesPerWorker);
    proto::PrepareLoadResponse response;
    grpc::Status status = cluster_.workers.dataStub(addresses[i]).PrepareLoad(&context, request, &response);
    if (!status.ok()) spdlog::debug("PrepareLoad on {} failed: {}", addresses[i], status.error_message());
  });
}

uint64_t LoadTransaction::commit() {
  if (!keysChecked_) {
    keysChecked_ = true;
    for (const auto& table : tables_) {
      KeyCheckResult checked = checkUniqueKeys(cluster_, *table, *transaction_, writeId_, conflicts_);
      keyCheck_.snapshotSeq = checked.snapshotSeq;
      keyCheck_.rowsSkipped += checked.rowsSkipped;
      for (auto& chunk : checked.reported) keyCheck_.reported.push_back(std::move(chunk));
    }
  }
  finished_ = true;
  if (!own_) return 0;
  std::vector<proto::StorageStatistics> statistics = own_->commit();
  uint64_t rows = 0;
  for (const auto& partition : statistics) {
    auto table = std::find_if(tables_.begin(), tables_.end(),
                              [&](const auto& entry) { return entry->storageId == partition.storage_id(); });
    // A replicated table's rows are on every worker: count one copy.
    if (table != tables_.end() && (*table)->distribution == Distribution::kReplicated) continue;
    rows += partition.rows() - partition.rows_deleted();  // ON CONFLICT's skipped rows are staged, then deleted
  }
  for (const auto& table : tables_) {
    if (table->distribution != Distribution::kReplicated) continue;
    for (const auto& partition : statistics) {
      if (partition.storage_id() == table->storageId) {
        rows += partition.rows() - partition.rows_deleted();
        break;
      }
    }
  }
  recordCommitted(cluster_, tables_, statistics, recorder_);
  return rows;
}

void LoadTransaction::abort() {
  finished_ = true;
  if (own_) own_->rollback();
}

}  // namespace shoal::coordinator
