#include "coordinator/query/load_transaction.h"

#include <grpcpp/client_context.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <map>
#include <thread>

#include "proto/rpc_status.h"
#include "worker/storage/column_statistics.h"

namespace shoal::coordinator {

LoadTransaction::LoadTransaction(ClusterContext& cluster, std::vector<std::shared_ptr<const TableEntry>> tables,
                                 Recorder recorder)
    : cluster_(cluster),
      tables_(std::move(tables)),
      loadId_(cluster.nextLoadId.fetch_add(1)),
      recorder_(std::move(recorder)) {
  // Load ids only need to be unique among loads in flight; mixing in the time keeps them unique across restarts.
  loadId_ = (static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) << 16) ^ loadId_;
  for (const auto& table : tables_) {
    for (const auto& address : cluster_.workers.placementAddresses(*table)) addresses_.insert(address);
  }
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
    request.set_load_id(loadId_);
    request.set_expected_bytes(bytesPerWorker);
    proto::PrepareLoadResponse response;
    grpc::Status status = cluster_.workers.dataStub(addresses[i]).PrepareLoad(&context, request, &response);
    if (!status.ok()) spdlog::debug("PrepareLoad on {} failed: {}", addresses[i], status.error_message());
  });
}

uint64_t LoadTransaction::commit() {
  finished_ = true;
  // What each worker's partitions gained, per storage id, in the order the workers answered.
  // Every worker commits at once: each flushes its last segments and syncs its files, which takes a while.
  const std::vector<std::string> addresses(addresses_.begin(), addresses_.end());
  std::vector<proto::FinishLoadResponse> responses(addresses.size());
  std::vector<grpc::Status> statuses(addresses.size());
  inParallel(addresses.size(), [&](size_t i) {
    grpc::ClientContext context;
    proto::FinishLoadRequest request;
    request.set_load_id(loadId_);
    request.set_commit(true);
    statuses[i] = cluster_.workers.dataStub(addresses[i]).FinishLoad(&context, request, &responses[i]);
  });
  // What each worker's partitions gained, per storage id, in the order of the workers.
  std::map<uint64_t, std::vector<proto::StorageStatistics>> loadedByStorage;
  for (size_t i = 0; i < addresses.size(); ++i) {
    if (!statuses[i].ok()) {
      // Workers that committed keep their rows: say so rather than pretend the load vanished.
      Status error = proto::fromGrpcStatus(statuses[i], addresses[i]);
      throw ShoalError(
          Status(error.sqlState(), fmt::format("commit of the load failed on worker {}: {}; rows committed on other "
                                               "workers stay loaded",
                                               addresses[i], error.message())));
    }
    for (const auto& loaded : responses[i].statistics()) loadedByStorage[loaded.storage_id()].push_back(loaded);
  }
  uint64_t total = 0;
  std::vector<TableCatalog::LoadedTable> recorded;
  for (const auto& table : tables_) {
    auto& partitions = loadedByStorage[table->storageId];
    // Every worker holds every row of a replicated table: one copy describes the table.
    if (table->distribution == Distribution::kReplicated && partitions.size() > 1) partitions.resize(1);
    uint64_t rows = 0;
    std::vector<worker::ColumnStatistics> statistics;
    for (const auto& column : table->columns) statistics.emplace_back(column.type);
    for (const auto& partition : partitions) {
      rows += partition.rows();
      if (static_cast<size_t>(partition.column_statistics_size()) != statistics.size()) continue;
      for (size_t c = 0; c < statistics.size(); ++c) {
        statistics[c].merge(worker::ColumnStatistics::deserialize(table->columns[c].type,
                                                                  partition.column_statistics(static_cast<int>(c))));
      }
    }
    std::vector<std::string> serialized;
    for (const auto& column : statistics) serialized.push_back(column.serialize());
    recorded.push_back(
        TableCatalog::LoadedTable{table->qualifiedName(), table->storageId, rows, std::move(serialized)});
    total += rows;
  }
  if (recorder_) {
    recorder_(recorded);
  } else {
    cluster_.tables.recordLoad(recorded);
  }
  return total;
}

void LoadTransaction::abort() {
  finished_ = true;
  for (const auto& address : addresses_) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    proto::FinishLoadRequest request;
    request.set_load_id(loadId_);
    request.set_commit(false);
    proto::FinishLoadResponse response;
    grpc::Status status = cluster_.workers.dataStub(address).FinishLoad(&context, request, &response);
    if (!status.ok())
      spdlog::warn("abort of load {} on worker {} failed: {}", loadId_, address, status.error_message());
  }
}

}  // namespace shoal::coordinator
