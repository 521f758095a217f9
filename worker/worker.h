#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/periodic_task.h"
#include "etcd/etcd_client.h"
#include "multiplexer/multiplexer.h"
#include "scheduler/dispatcher.h"

namespace grpc {
class Server;
}

namespace shoal::worker {

class WorkerControlService;
class WorkerDataService;
class StorageManager;
class PartitionStore;
class ExchangeNetwork;
class EtcdRegistration;
class DrainGate;

struct WorkerOptions {
  /// host:port of the coordinator's control plane (the embedded membership; unused with etcdEndpoints).
  std::string coordinatorAddress;
  /// etcd endpoints (host:port[,...]): the worker registers there under a lease instead of with the
  /// coordinator.
  std::string etcdEndpoints;
  /// TLS and credentials towards etcd (--etcd-ca, --etcd-cert, --etcd-key, --etcd-user, --etcd-password-file).
  etcd::EtcdSecurity etcdSecurity;
  /// TTL of the etcd lease: a worker out of reach this long is down.
  int64_t leaseTtlSeconds = 5;
  /// How long a draining worker waits for its running work before it leaves anyway.
  uint32_t drainTimeoutSeconds = 300;
  std::string clusterId = "shoal";
  std::string listenHost = "127.0.0.1";
  uint16_t listenPort = 0;  // 0: any free port
  /// Stable name; defaults to host:pid.
  std::string nodeName;
  /// Test-only: registers with this control protocol version instead of the
  /// real one (0), to exercise the coordinator's refusal.
  uint32_t debugProtocolVersion = 0;
  /// NUMA nodes to place segments on: 0 reads the machine's topology; N > 0
  /// pretends there are N nodes (so the placement path runs on any machine).
  uint32_t numaNodes = 0;
  /// Where table partitions are kept across restarts (empty: in memory only).
  std::string dataDir;
  /// Query threads (the dispatcher's); 0: one per hardware thread.
  uint32_t threads = 0;
  /// The CPU the exchange network thread is pinned to (-1: not pinned).
  int networkCpu = -1;
  /// Memory one query may hold on this worker unless its session sets query_memory_limit_mb;
  /// 0: three quarters of the machine's memory.
  uint64_t queryMemoryLimitMb = 0;
  /// What all of this worker's queries may hold together (0: three quarters of the host's usable memory).
  uint64_t memoryBudgetMb = 0;
  /// Where the exchange multiplexer listens for other workers (on listenHost); 0: a free port.
  uint16_t exchangePort = 0;
  /// How exchange messages travel between workers: RDMA where a device exists (auto), or forced.
  multiplexer::TransportChoice transport = multiplexer::TransportChoice::kAuto;
  multiplexer::ScheduleKind schedule = multiplexer::ScheduleKind::kRoundRobin;
  /// The cluster secret this worker presents and checks on internal calls and in the exchange handshake;
  /// required.
  std::string clusterSecretFile;
  /// The tpchgen-cli this worker runs for CALL tpch_load: its own configuration, never the caller's.
  std::string tpchGenerator = "tpchgen-cli";
  /// Payload bytes of an exchange message; every worker of a cluster must use the same.
  size_t messageBytes = 512 * 1024;
};

/// The worker role: serves WorkerControl and WorkerData, and makes itself known to the cluster: in etcd
/// under a lease it renews (EtcdRegistration), or with the coordinator by heartbeats, registering again
/// whenever the coordinator forgets it (for example after a coordinator restart).
class Worker {
 public:
  explicit Worker(WorkerOptions options);
  ~Worker();

  void start();
  /// Leaves on purpose: refuses new work, waits (up to drainTimeoutSeconds) for the work it runs, then
  /// deregisters. stop() follows.
  void drain();
  /// Deregisters (best effort) and stops serving.
  void stop();

  /// Set when the coordinator refused this worker for good (cluster id or
  /// protocol version mismatch): the process should exit with this message.
  std::optional<std::string> fatalError() const;

 private:
  void membershipLoop();

  WorkerOptions options_;
  std::unique_ptr<PartitionStore> store_;
  std::unique_ptr<StorageManager> storage_;
  /// Compacts the partitions in the background (StorageManager::compactAll).
  std::unique_ptr<PeriodicTask> compactor_;
  std::unique_ptr<scheduler::Dispatcher> dispatcher_;
  std::unique_ptr<DrainGate> drainGate_;
  std::unique_ptr<WorkerControlService> service_;
  std::unique_ptr<ExchangeNetwork> exchangeNetwork_;
  std::unique_ptr<WorkerDataService> dataService_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::unique_ptr<EtcdRegistration> etcdRegistration_;
  std::thread membershipThread_;
  mutable std::mutex mutex_;
  std::condition_variable wakeUp_;
  bool stopping_ = false;                  // guarded by mutex_
  std::optional<std::string> fatalError_;  // guarded by mutex_
};

}  // namespace shoal::worker
