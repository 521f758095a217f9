#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "coordinator/catalog/table_catalog.h"
#include "coordinator/membership/member_registry.h"
#include "proto/storage.grpc.pb.h"

namespace shoal::coordinator {

struct LiveWorker {
  std::string name;
  std::string address;
  std::string exchangeAddress;
};

/// The coordinator's way to the workers: gRPC stubs by address (channels are
/// made once per incarnation of a worker and shared), and the resolution of a table's placement (worker
/// names) into the addresses of live workers. Thread-safe.
class WorkerClients {
 public:
  explicit WorkerClients(const MemberRegistry& registry) : registry_(registry) {}

  proto::WorkerData::Stub& dataStub(const std::string& address);

  /// The workers that are up, by node id.
  std::vector<LiveWorker> liveWorkers() const;
  /// The address of each of the table's partitions. Fails with 08006 naming
  /// the worker when one that holds a partition is not up.
  std::vector<std::string> placementAddresses(const TableEntry& table) const;
  /// The addresses a query reads the table from: as placementAddresses, except that a replicated table
  /// is read from the copies on workers that are up (a worker down does not stop reads; loads still
  /// need every copy). Fails with 08006 when no copy is up.
  std::vector<std::string> readableAddresses(const TableEntry& table) const;
  /// Before a distributed query: when its workers or their incarnations differ from the last query's
  /// (a worker joined or came back), asks each to shut its exchange multiplexer down, and waits, so that the
  /// query's fresh multiplexers never meet old ones. Serialized with itself.
  void prepareExchange(const std::vector<std::string>& addresses, const std::vector<uint64_t>& incarnations);
  /// The node id of the worker at `address`, which the row ids its scans make carry (0 when unknown).
  uint32_t rowTagOf(const std::string& address) const;
  /// The address of the worker whose row ids carry `tag`; 08006 when it is not up.
  std::string addressOfRowTag(uint32_t tag) const;
  /// The layout message that tells workers where the table's rows go.
  proto::TableLayout layoutOf(const TableEntry& table) const;

 private:
  const MemberRegistry& registry_;
  std::mutex mutex_;
  struct Stub {
    uint64_t incarnation = 0;
    std::unique_ptr<proto::WorkerData::Stub> stub;
  };
  std::map<std::string, Stub> stubs_;  // by address; guarded by mutex_
  /// Stubs of workers that came back since: calls may still be starting on them (a few per rejoin).
  std::vector<std::unique_ptr<proto::WorkerData::Stub>> retired_;  // guarded by mutex_
  std::mutex exchangeMutex_;
  std::vector<std::string> exchangeAddresses_;  // of the last query; guarded by exchangeMutex_
  std::vector<uint64_t> exchangeIncarnations_;  // guarded by exchangeMutex_
};

}  // namespace shoal::coordinator
