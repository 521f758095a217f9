#include "coordinator/query/unique_key_check.h"

#include <grpcpp/client_context.h>

#include <algorithm>
#include <mutex>
#include <thread>

#include "engine/vector/chunk_codec.h"
#include "proto/rpc_status.h"

namespace shoal::coordinator {

namespace {

bool enforceable(const std::vector<size_t>& keyColumns, Distribution distribution,
                 const std::vector<size_t>& distributionColumns) {
  if (distribution == Distribution::kReplicated) return true;
  if (distribution != Distribution::kHash || distributionColumns.empty()) return false;
  return std::all_of(distributionColumns.begin(), distributionColumns.end(), [&](size_t column) {
    return std::find(keyColumns.begin(), keyColumns.end(), column) != keyColumns.end();
  });
}

std::string columnList(const std::vector<std::string>& names, const std::vector<size_t>& columns) {
  std::string list;
  for (size_t column : columns) list += (list.empty() ? "" : ", ") + names[column];
  return list;
}

}  // namespace

void requireEnforceableKey(const std::string& tableName, const std::vector<std::string>& columnNames,
                           const std::vector<size_t>& keyColumns, Distribution distribution,
                           const std::vector<size_t>& distributionColumns, std::string_view constraintKind) {
  if (enforceable(keyColumns, distribution, distributionColumns)) return;
  const std::string keyList = columnList(columnNames, keyColumns);
  const std::string why =
      distribution == Distribution::kHash
          ? fmt::format("it is distributed by hash({}), and rows with equal keys could land on different workers",
                        columnList(columnNames, distributionColumns))
          : "it is distributed randomly, and rows with equal keys could land on different workers";
  throw ShoalError(Status(SqlState::kFeatureNotSupported,
                          fmt::format("table \"{}\" cannot have {} ({}): {}", tableName, constraintKind, keyList, why))
                       .withHint(fmt::format("Distribute the table by hash on the key's columns or some of them "
                                             "(WITH (distribution = 'hash({})')), or replicate it.",
                                             keyList)));
}

std::vector<worker::UniqueKey> enforcedKeys(const TableEntry& table) {
  std::vector<worker::UniqueKey> keys;
  auto add = [&](const std::string& name, const std::vector<size_t>& columns) {
    if (!columns.empty() && enforceable(columns, table.distribution, table.distributionColumns)) {
      keys.push_back(worker::UniqueKey{name, columns, false});
    }
  };
  add(table.name + "_pkey", table.primaryKey);
  for (const auto& key : table.uniqueKeys) add(key.name, key.columns);
  return keys;
}

KeyCheckResult checkUniqueKeys(ClusterContext& cluster, const TableEntry& table, Transaction& transaction,
                               uint64_t writeId, const ConflictHandling& handling) {
  const std::vector<worker::UniqueKey> keys = handling.keys.empty() ? enforcedKeys(table) : handling.keys;
  if (keys.empty()) return {};
  proto::CheckUniqueKeysRequest request;
  request.set_write_id(writeId);
  *request.mutable_snapshot() = transaction.snapshotForStatement();
  request.mutable_snapshot()->clear_own_writes();
  for (uint64_t write : transaction.writes()) request.mutable_snapshot()->add_own_writes(write);
  request.set_storage_id(table.storageId);
  for (const auto& key : keys) {
    auto* proto = request.add_keys();
    proto->set_name(key.name);
    for (size_t column : key.columns) proto->add_columns(static_cast<uint32_t>(column));
    proto->set_arbiter(key.arbiter);
  }
  request.set_action(static_cast<uint32_t>(handling.action));

  // A replicated table's copies hold the same rows and check alike: every copy drops the same ones.
  const std::vector<std::string> addresses = cluster.workers.placementAddresses(table);
  std::vector<proto::CheckUniqueKeysResponse> responses(addresses.size());
  std::mutex mutex;
  std::optional<Status> firstError;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < addresses.size(); ++i) {
    threads.emplace_back([&, i] {
      grpc::ClientContext context;
      grpc::Status status = cluster.workers.dataStub(addresses[i]).CheckUniqueKeys(&context, request, &responses[i]);
      if (status.ok()) return;
      std::lock_guard lock(mutex);
      if (!firstError) firstError = proto::fromGrpcStatus(status, addresses[i]);
    });
  }
  for (auto& thread : threads) thread.join();
  if (firstError) throw ShoalError(*firstError);

  KeyCheckResult result;
  result.snapshotSeq = request.snapshot().commit_seq();
  const size_t copies =
      table.distribution == Distribution::kReplicated ? std::min<size_t>(1, responses.size()) : responses.size();
  const std::vector<engine::LogicalType> types = table.columnTypes();
  for (size_t i = 0; i < copies; ++i) {
    result.rowsSkipped += responses[i].rows_skipped();
    if (responses[i].reported().empty()) continue;
    auto bytes = std::make_shared<const std::string>(std::move(*responses[i].mutable_reported()));
    for (auto& chunk : engine::decodeChunks(bytes, types)) result.reported.push_back(std::move(chunk));
  }
  return result;
}

}  // namespace shoal::coordinator
