#include "coordinator/query/load_transaction.h"

#include <grpcpp/client_context.h>
#include <spdlog/spdlog.h>

#include <map>

#include "proto/rpc_status.h"
#include "worker/storage/column_statistics.h"

namespace shoal::coordinator {

LoadTransaction::LoadTransaction(ClusterContext& cluster, std::vector<std::shared_ptr<const TableEntry>> tables)
    : cluster_(cluster), tables_(std::move(tables)), loadId_(cluster.nextLoadId.fetch_add(1)) {
  // Load ids only need to be unique among loads in flight; mixing in the time keeps them unique across restarts.
  loadId_ = (static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) << 16) ^ loadId_;
  for (const auto& table : tables_) {
    for (const auto& address : cluster_.workers.placementAddresses(*table)) addresses_.insert(address);
  }
}

LoadTransaction::~LoadTransaction() {
  if (!finished_) abort();
}

uint64_t LoadTransaction::commit() {
  finished_ = true;
  // What each worker's partitions gained, per storage id, in the order the workers answered.
  std::map<uint64_t, std::vector<proto::StorageStatistics>> loadedByStorage;
  for (const auto& address : addresses_) {
    grpc::ClientContext context;
    proto::FinishLoadRequest request;
    request.set_load_id(loadId_);
    request.set_commit(true);
    proto::FinishLoadResponse response;
    grpc::Status status = cluster_.workers.dataStub(address).FinishLoad(&context, request, &response);
    if (!status.ok()) {
      // Workers committed so far keep their rows: say so rather than pretend the load vanished.
      Status error = proto::fromGrpcStatus(status, address);
      throw ShoalError(Status(error.sqlState(),
                              fmt::format("commit of the load failed on worker {}: {}; rows already committed on other "
                                          "workers stay loaded",
                                          address, error.message())));
    }
    for (const auto& loaded : response.statistics()) loadedByStorage[loaded.storage_id()].push_back(loaded);
  }
  uint64_t total = 0;
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
    cluster_.tables.recordLoad(table->name, table->storageId, rows, serialized);
    total += rows;
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
