#include "coordinator/coordinator.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "common/host_memory.h"
#include "common/status.h"
#include "coordinator/catalog/etcd_catalog_store.h"
#include "coordinator/catalog/system_catalog.h"
#include "coordinator/cluster/cluster_context.h"
#include "coordinator/cluster/storage_drop_retrier.h"
#include "coordinator/membership/control_service.h"
#include "coordinator/membership/etcd_membership.h"
#include "coordinator/membership/member_registry.h"
#include "coordinator/pgwire/pgwire_server.h"
#include "coordinator/query/table_commands.h"
#include "etcd/cluster_keys.h"
#include "etcd/etcd_client.h"
#include "proto/internal_auth.h"
#include "proto/internal_tls.h"
#include "sql/binder/search_path.h"

namespace shoal::coordinator {

Coordinator::Coordinator(CoordinatorOptions options) : options_(std::move(options)) {}

Coordinator::~Coordinator() {
  stop();
}

uint16_t Coordinator::pgPort() const {
  return pgwireServer_ ? pgwireServer_->port() : 0;
}

void Coordinator::start() {
  proto::installClusterSecret(proto::readClusterSecretFile(options_.clusterSecretFile));
  registry_ = std::make_unique<MemberRegistry>(std::chrono::milliseconds(options_.heartbeatTimeoutMs));
  if (!options_.dataDir.empty()) std::filesystem::create_directories(options_.dataDir);
  std::unique_ptr<CatalogStore> catalogStore;
  if (!options_.etcdEndpoints.empty()) {
    etcd_ = std::make_unique<etcd::EtcdClient>(options_.etcdEndpoints, std::chrono::seconds(2), options_.etcdSecurity);
    if (options_.etcdSecurity.caFile.empty()) {
      spdlog::warn(
          "etcd at {} is reached in plaintext (no --etcd-ca): the catalog, with role passwords' SCRAM "
          "secrets, travels unencrypted",
          options_.etcdEndpoints);
    }
    catalogStore = std::make_unique<EtcdCatalogStore>(*etcd_, etcd::clusterPrefix(options_.clusterId));
  } else if (!options_.dataDir.empty()) {
    catalogStore = std::make_unique<FileCatalogStore>(std::filesystem::path(options_.dataDir) / "catalog.json");
  }
  if (catalogStore) spdlog::info("catalog: {}", catalogStore->describe());
  tables_ = std::make_unique<TableCatalog>(std::move(catalogStore));
  queryLog_ = std::make_unique<QueryLog>();
  sessions_ = std::make_unique<SessionRegistry>();
  catalog_ = std::make_unique<SystemCatalog>(*registry_, *tables_, *queryLog_, *sessions_);
  clusterCatalog_ = std::make_unique<ClusterCatalog>(*catalog_, *tables_);
  catalog_->setViewColumns([this](const ViewEntry& view) { return clusterCatalog_->viewColumns(view); });
  workers_ = std::make_unique<WorkerClients>(*registry_);
  const uint64_t memoryBudgetBytes =
      options_.memoryBudgetMb != 0 ? options_.memoryBudgetMb << 20 : usableHostMemoryBytes() / 4;
  dispatcher_ = std::make_unique<scheduler::Dispatcher>(0, NumaTopology::detect(), memoryBudgetBytes);
  spdlog::info("queries here may hold {} MB together (results and gathered rows)", memoryBudgetBytes >> 20);
  std::unique_ptr<CommitLog> commitLog;
  if (etcd_) {
    commitLog = std::make_unique<EtcdCommitLog>(*etcd_, etcd::clusterPrefix(options_.clusterId));
  } else if (!options_.dataDir.empty()) {
    commitLog = std::make_unique<FileCommitLog>(std::filesystem::path(options_.dataDir) / "commit-log.jsonl");
  } else {
    commitLog = std::make_unique<MemoryCommitLog>();
  }
  // DDL of transaction blocks that were open when the coordinator stopped goes, unless their commit was decided.
  const auto decided = commitLog->pending();
  tables_->recoverUncommittedChanges([&](uint64_t id) { return decided.contains(id); });
  transactions_ = std::make_unique<TransactionManager>(*workers_, std::move(commitLog));
  cluster_ =
      std::unique_ptr<ClusterContext>(new ClusterContext{*catalog_, *tables_, *clusterCatalog_, *registry_, *workers_,
                                                         *dispatcher_, *queryLog_, *sessions_, *transactions_});
  controlService_ = std::make_unique<ControlService>(options_.clusterId, *registry_, options_.heartbeatIntervalMs);
  storageDropRetrier_ = std::make_unique<StorageDropRetrier>(*cluster_);
  transactions_->startResolver();
  dropTemporarySchemasLeftBehind();

  grpc::ServerBuilder builder;
  int selectedPort = 0;
  builder.AddListeningPort(fmt::format("{}:{}", options_.controlHost, options_.controlPort),
                           proto::internalServerCredentials(), &selectedPort);
  builder.RegisterService(controlService_.get());
  controlServer_ = builder.BuildAndStart();
  if (!controlServer_ || selectedPort == 0) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "cannot serve the control plane on {}:{} (port in use?)",
                    options_.controlHost, options_.controlPort);
  }
  controlPort_ = static_cast<uint16_t>(selectedPort);
  spdlog::info("control plane (gRPC) on {}:{}, cluster id '{}'{}", options_.controlHost, controlPort_,
               options_.clusterId, proto::internalTlsInstalled() ? ", mutual TLS with the cluster CA" : "");
  if (!proto::internalTlsInstalled()) {
    spdlog::warn(
        "the control plane on {}:{} is plaintext (no --cluster-ca, --node-cert, --node-key): only the "
        "cluster token guards it",
        options_.controlHost, controlPort_);
  }

  PgwireOptions pgwireOptions;
  pgwireOptions.host = options_.pgHost;
  pgwireOptions.port = options_.pgPort;
  pgwireOptions.maxConnections = options_.maxConnections;
  pgwireOptions.startupTimeoutSeconds = options_.clientStartupTimeoutSeconds;
  pgwireOptions.maxStartupConnections = options_.maxStartupConnections;
  if (!options_.hbaFile.empty()) pgwireOptions.hostRules = HostRules::load(options_.hbaFile);
  if (options_.tlsCertificateFile.empty() != options_.tlsKeyFile.empty()) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "--tls-cert and --tls-key go together");
  }
  if (!options_.tlsCertificateFile.empty()) {
    pgwireOptions.tls = TlsContext::load(options_.tlsCertificateFile, options_.tlsKeyFile);
    spdlog::info("SQL clients may use TLS (certificate {})", options_.tlsCertificateFile);
  } else {
    spdlog::warn("the SQL port {}:{} has no TLS (--tls-cert, --tls-key): sessions travel in plaintext", options_.pgHost,
                 options_.pgPort);
  }
  for (const auto& rule : pgwireOptions.hostRules.rules()) {
    if (rule.method == LoginMethod::kTrust && !rule.sameHost && rule.mask != ~uint32_t{0}) {
      spdlog::warn("{}: clients matching line {} log in without a password (trust) from more than one address",
                   options_.hbaFile.empty() ? "the built-in host rules" : options_.hbaFile, rule.line);
    }
  }
  pgwireServer_ = std::make_unique<PgwireServer>(pgwireOptions, *cluster_);
  pgwireServer_->start();
  registry_->setCoordinatorAddress(fmt::format("{}:{}", options_.pgHost, pgwireServer_->port()));
  if (etcd_) {
    // After etcd comes back (perhaps without its data), whatever of the catalog it lacks is written again.
    etcdMembership_ = std::make_unique<EtcdMembership>(*etcd_, options_.clusterId, *registry_, [this] {
      try {
        tables_->republish();
      } catch (const ShoalError& error) {
        spdlog::error("could not republish the catalog to etcd: {}", error.status().message());
      }
    });
    etcdMembership_->start();
  }
  writePortFile();
}

void Coordinator::writePortFile() const {
  if (options_.portFile.empty()) return;
  nlohmann::json ports = {{"pg_port", pgwireServer_->port()}, {"control_port", controlPort_}, {"pid", getpid()}};
  // Write then rename, so that a reader never sees half a file.
  std::string temporary = options_.portFile + ".tmp";
  std::ofstream(temporary) << ports.dump() << "\n";
  std::filesystem::rename(temporary, options_.portFile);
}

void Coordinator::dropTemporarySchemasLeftBehind() {
  // Sessions of a coordinator that stopped abruptly never dropped theirs; no session of this one has begun.
  std::vector<std::string> temporary;
  for (const auto& schema : tables_->schemas()) {
    if (sql::isTemporarySchema(schema.name)) temporary.push_back(schema.name);
  }
  if (temporary.empty()) return;
  spdlog::info("dropping {} temporary schemas that ended sessions left behind", temporary.size());
  dropTemporarySchemas(*cluster_, temporary);
}

void Coordinator::stop() {
  if (pgwireServer_) pgwireServer_->stop();
  storageDropRetrier_.reset();
  if (transactions_) transactions_->stopResolver();
  etcdMembership_.reset();
  if (controlServer_) {
    controlServer_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    controlServer_.reset();
  }
}

}  // namespace shoal::coordinator
