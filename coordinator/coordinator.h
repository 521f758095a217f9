#pragma once

#include "etcd/etcd_client.h"
#include "scheduler/dispatcher.h"

#include <cstdint>
#include <memory>
#include <string>

namespace grpc {
class Server;
}

namespace shoal::etcd {
class EtcdClient;
}

namespace shoal::coordinator {

class MemberRegistry;
class EtcdMembership;
class ControlService;
class SystemCatalog;
class QueryLog;
class SessionRegistry;
class TableCatalog;
class ClusterCatalog;
class WorkerClients;
struct ClusterContext;
class PgwireServer;
class StorageDropRetrier;
class TransactionManager;

struct CoordinatorOptions {
  std::string clusterId = "shoal";
  std::string pgHost = "127.0.0.1";
  uint16_t pgPort = 5433;  // 0: any free port
  std::string controlHost = "127.0.0.1";
  uint16_t controlPort = 7433;  // 0: any free port
  uint32_t heartbeatIntervalMs = 500;
  /// What all queries may hold together on the coordinator (results, gathers; 0: a quarter of the host's
  /// usable memory).
  uint64_t memoryBudgetMb = 0;
  uint32_t heartbeatTimeoutMs = 2000;
  size_t maxConnections = 100;
  /// PgwireOptions' startupTimeoutSeconds and maxStartupConnections.
  int clientStartupTimeoutSeconds = 60;
  size_t maxStartupConnections = 20;
  /// pg_hba.conf-like host rules (auth/host_rules.h); empty: trust on 127.0.0.1, SCRAM elsewhere.
  std::string hbaFile;
  /// TLS on the SQL port: PEM certificate (chain) and key; both or neither.
  std::string tlsCertificateFile;
  std::string tlsKeyFile;
  /// When set, the bound ports are written there as JSON once the coordinator serves.
  std::string portFile;
  /// Where the catalog is kept (empty: in memory only, lost at exit).
  std::string dataDir;
  /// The cluster secret every node presents on internal calls (proto/internal_auth.h); required.
  std::string clusterSecretFile;
  /// etcd endpoints (host:port[,...]): membership and the catalog live there. Empty: the embedded
  /// membership (workers register over the control plane) and the catalog in dataDir.
  std::string etcdEndpoints;
  /// TLS and credentials towards etcd (--etcd-ca, --etcd-cert, --etcd-key, --etcd-user, --etcd-password-file).
  etcd::EtcdSecurity etcdSecurity;
};

/// The coordinator role: SQL clients over pgwire, the control plane over gRPC,
/// and the membership they share.
class Coordinator {
 public:
  explicit Coordinator(CoordinatorOptions options);
  ~Coordinator();

  /// Starts both servers; fails with a clear message when a port is taken.
  void start();
  void stop();

  uint16_t pgPort() const;
  uint16_t controlPort() const { return controlPort_; }
  /// The catalogs, membership and worker clients the sessions share (once started).
  ClusterContext& cluster() const { return *cluster_; }

 private:
  /// Drops the temporary schemas (pg_temp_N) a previous run's sessions left in the catalog.
  void dropTemporarySchemasLeftBehind();
  void writePortFile() const;

  CoordinatorOptions options_;
  std::unique_ptr<MemberRegistry> registry_;
  std::unique_ptr<etcd::EtcdClient> etcd_;
  std::unique_ptr<QueryLog> queryLog_;         // before the catalog, which reads it
  std::unique_ptr<SessionRegistry> sessions_;  // the same
  std::unique_ptr<SystemCatalog> catalog_;
  std::unique_ptr<TableCatalog> tables_;
  std::unique_ptr<ClusterCatalog> clusterCatalog_;
  std::unique_ptr<WorkerClients> workers_;
  std::unique_ptr<scheduler::Dispatcher> dispatcher_;
  std::unique_ptr<TransactionManager> transactions_;
  std::unique_ptr<ClusterContext> cluster_;
  std::unique_ptr<ControlService> controlService_;
  std::unique_ptr<StorageDropRetrier> storageDropRetrier_;
  std::unique_ptr<grpc::Server> controlServer_;
  std::unique_ptr<EtcdMembership> etcdMembership_;
  std::unique_ptr<PgwireServer> pgwireServer_;
  uint16_t controlPort_ = 0;
};

}  // namespace shoal::coordinator
