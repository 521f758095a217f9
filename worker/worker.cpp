#include "worker/worker.h"

#include <malloc.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include "common/host_memory.h"
#include "common/status.h"
#include "engine/expression/random_values.h"
#include "proto/control.grpc.pb.h"
#include "proto/control_protocol.h"
#include "proto/data_channel.h"
#include "proto/internal_auth.h"
#include "proto/internal_tls.h"
#include "worker/drain_gate.h"
#include "worker/etcd_registration.h"
#include "worker/exchange_network.h"
#include "worker/storage/storage_manager.h"
#include "worker/worker_control_service.h"
#include "worker/worker_data_service.h"

namespace shoal::worker {

namespace {
/// How often the worker looks for segments to compact: garbage waits at most this long past its horizon.
constexpr std::chrono::milliseconds kCompactionInterval{2000};
}  // namespace
namespace {

constexpr auto kRpcDeadline = std::chrono::seconds(2);
constexpr auto kRetryDelay = std::chrono::milliseconds(500);
// Log an unreachable coordinator on the first failure and then every this many.
constexpr int kLogEveryAttempts = 20;

std::unique_ptr<grpc::ClientContext> contextWithDeadline() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + kRpcDeadline);
  return context;
}

}  // namespace

Worker::Worker(WorkerOptions options) : options_(std::move(options)) {
  if (options_.nodeName.empty()) {
    char hostname[256] = {};
    ::gethostname(hostname, sizeof(hostname) - 1);
    options_.nodeName = fmt::format("{}:{}", hostname, getpid());
  }
}

Worker::~Worker() {
  stop();
}

void Worker::start() {
  // Loads free and allocate again megabytes at a time (chunks, segment buffers). glibc would hand big
  // blocks back to the kernel and fault fresh zeroed pages in for the next ones; keep them instead.
  // FinishTransaction trims what a load leaves behind, so the resident memory of an idle worker is its data.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 512 << 20);
  ::mallopt(M_TOP_PAD, 16 << 20);
  // glibc gives each thread that meets a locked arena a new one, up to 8 per core, and malloc_trim never returns
  // the free top of any but the first: under steady query load each arena kept its own high-water mark, and the
  // worker's resident memory climbed by a fifth over a 5-minute soak with nothing leaked (heaptrack). One arena
  // per core keeps the same throughput there and holds memory flat (tests/soak).
  ::mallopt(M_ARENA_MAX, static_cast<int>(std::max(2u, std::thread::hardware_concurrency())));
  proto::installClusterSecret(proto::readClusterSecretFile(options_.clusterSecretFile));
  NumaTopology topology = options_.numaNodes > 0 ? NumaTopology::fake(options_.numaNodes) : NumaTopology::detect();
  spdlog::info("placing segments over {} NUMA node(s){}", topology.numNodes(), topology.isFake() ? " (simulated)" : "");
  if (!options_.dataDir.empty()) {
    store_ = std::make_unique<PartitionStore>(std::filesystem::path(options_.dataDir) / "storage");
  }
  storage_ = std::make_unique<StorageManager>(topology, store_.get());
  storage_->recover();
  compactor_ = std::make_unique<PeriodicTask>(kCompactionInterval, [this] {
    try {
      storage_->compactAll();
    } catch (const std::exception& error) {
      spdlog::warn("compaction failed (it tries again): {}", error.what());
    }
  });
  size_t recoveredRows = 0;
  for (const auto& partition : storage_->partitions()) recoveredRows += partition->numRows();
  if (store_)
    spdlog::info("recovered {} table partition(s), {} rows, from {}", storage_->partitions().size(), recoveredRows,
                 options_.dataDir);
  drainGate_ = std::make_unique<DrainGate>(options_.nodeName);
  engine::setRandomStreamSalt(std::hash<std::string>{}(options_.nodeName) | 1);
  // `shoal worker --drain` asks over gRPC; the main thread drains as it does on SIGTERM.
  service_ = std::make_unique<WorkerControlService>(options_.nodeName, *drainGate_, [] { ::kill(getpid(), SIGTERM); });
  // The host's usable memory is the physical memory or the cgroup's limit, whichever is smaller.
  const uint64_t memoryBudgetBytes =
      options_.memoryBudgetMb != 0 ? options_.memoryBudgetMb << 20 : usableHostMemoryBytes() / 4 * 3;
  dispatcher_ = std::make_unique<scheduler::Dispatcher>(options_.threads, topology, memoryBudgetBytes);
  spdlog::info("running queries on {} thread(s)", dispatcher_->numThreads());
  uint64_t memoryLimitBytes = options_.queryMemoryLimitMb << 20;
  if (memoryLimitBytes == 0 || memoryLimitBytes > memoryBudgetBytes) memoryLimitBytes = memoryBudgetBytes;
  spdlog::info("queries here may hold {} MB together, one {} MB unless its session sets query_memory_limit_mb",
               memoryBudgetBytes >> 20, memoryLimitBytes >> 20);
  multiplexer::MultiplexerOptions network;
  network.transport = options_.transport;
  network.schedule = options_.schedule;
  network.messageBytes = options_.messageBytes;
  network.clusterId = options_.clusterId;
  network.secret = proto::clusterSecret();
  network.fakeNumaNodes = options_.numaNodes;  // exchange inboxes get one queue per (simulated) node
  network.networkCpu = options_.networkCpu;
  exchangeNetwork_ = std::make_unique<ExchangeNetwork>(options_.listenHost, options_.exchangePort, network);
  spdlog::info("exchanges with other workers on {} (transport {}, {} schedule)", exchangeNetwork_->address(),
               multiplexer::transportChoiceName(options_.transport), multiplexer::scheduleKindName(options_.schedule));
  dataService_ = std::make_unique<WorkerDataService>(*storage_, *dispatcher_, *exchangeNetwork_, *drainGate_,
                                                     memoryLimitBytes, options_.tpchGenerator);
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  proto::acceptDataChannelPings(builder);
  int selectedPort = 0;
  builder.AddListeningPort(fmt::format("{}:{}", options_.listenHost, options_.listenPort),
                           proto::internalServerCredentials(), &selectedPort);
  builder.RegisterService(service_.get());
  builder.RegisterService(dataService_.get());
  server_ = builder.BuildAndStart();
  if (!server_ || selectedPort == 0) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "cannot serve the worker control service on {}:{}",
                    options_.listenHost, options_.listenPort);
  }
  address_ = fmt::format("{}:{}", options_.listenHost, selectedPort);
  dataService_->setSelfAddress(address_);
  if (!proto::internalTlsInstalled()) {
    spdlog::warn(
        "internal gRPC on {} and the exchange on {} are plaintext (no --cluster-ca, --node-cert, "
        "--node-key): only the cluster token guards them",
        address_, exchangeNetwork_->address());
  }
  if (!options_.etcdEndpoints.empty()) {
    spdlog::info("worker {} serving on {}, registering in etcd at {}", options_.nodeName, address_,
                 options_.etcdEndpoints);
    etcd::MemberRecord record;
    record.address = address_;
    record.exchangeAddress = exchangeNetwork_->address();
    record.numCores = std::thread::hardware_concurrency();
    record.leaseTtlSeconds = options_.leaseTtlSeconds;
    record.protocolVersion =
        options_.debugProtocolVersion != 0 ? options_.debugProtocolVersion : proto::kControlProtocolVersion;
    etcdRegistration_ =
        std::make_unique<EtcdRegistration>(options_.etcdEndpoints, options_.etcdSecurity, options_.clusterId,
                                           options_.nodeName, record, options_.leaseTtlSeconds);
    etcdRegistration_->start();
    return;
  }
  spdlog::info("worker {} serving on {}, coordinator at {}", options_.nodeName, address_, options_.coordinatorAddress);
  membershipThread_ = std::thread([this] { membershipLoop(); });
}

void Worker::drain() {
  drainGate_->startDraining();
  if (etcdRegistration_) etcdRegistration_->announceDraining();
  spdlog::info("draining: no new work is taken; {} call(s) running", drainGate_->running());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options_.drainTimeoutSeconds);
  while (!drainGate_->waitUntilIdle(std::chrono::seconds(5))) {
    if (std::chrono::steady_clock::now() >= deadline) {
      spdlog::warn("draining: {} call(s) still running after {} s; leaving anyway", drainGate_->running(),
                   options_.drainTimeoutSeconds);
      return;
    }
    spdlog::info("draining: {} call(s) still running", drainGate_->running());
  }
  spdlog::info("drained: every running call finished");
}

std::optional<std::string> Worker::fatalError() const {
  std::lock_guard lock(mutex_);
  return fatalError_;
}

void Worker::membershipLoop() {
  auto channel = proto::createInternalChannel(options_.coordinatorAddress);
  auto stub = proto::Control::NewStub(channel);
  std::optional<uint32_t> nodeId;
  auto interval = std::chrono::milliseconds(500);
  int failedAttempts = 0;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    grpc::Status status;
    if (!nodeId) {
      proto::RegisterWorkerRequest request;
      request.set_cluster_id(options_.clusterId);
      request.set_protocol_version(options_.debugProtocolVersion != 0 ? options_.debugProtocolVersion
                                                                      : proto::kControlProtocolVersion);
      request.set_node_name(options_.nodeName);
      request.set_address(address_);
      request.set_num_cores(std::thread::hardware_concurrency());
      request.set_exchange_address(exchangeNetwork_->address());
      proto::RegisterWorkerResponse response;
      status = stub->RegisterWorker(contextWithDeadline().get(), request, &response);
      if (status.ok()) {
        nodeId = response.node_id();
        interval = std::chrono::milliseconds(response.heartbeat_interval_ms());
        service_->setNodeId(*nodeId);
        spdlog::info("registered with the coordinator as node {}", *nodeId);
      } else if (status.error_code() == grpc::StatusCode::FAILED_PRECONDITION ||
                 status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
        spdlog::error("the coordinator refused this worker: {}", status.error_message());
        lock.lock();
        fatalError_ = status.error_message();
        lock.unlock();
        ::kill(getpid(), SIGTERM);  // the main thread waits for signals and exits with the error
        return;
      }
    } else {
      proto::HeartbeatRequest request;
      request.set_node_id(*nodeId);
      request.set_cluster_id(options_.clusterId);
      proto::HeartbeatResponse response;
      status = stub->Heartbeat(contextWithDeadline().get(), request, &response);
      if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
        spdlog::warn("the coordinator no longer knows node {}; registering again", *nodeId);
        nodeId.reset();
        lock.lock();
        continue;  // register right away
      }
    }
    if (!status.ok()) {
      if (failedAttempts++ % kLogEveryAttempts == 0) {
        spdlog::warn("coordinator at {} unreachable: {}", options_.coordinatorAddress, status.error_message());
      }
    } else {
      failedAttempts = 0;
    }
    lock.lock();
    wakeUp_.wait_for(lock, nodeId ? interval : std::chrono::duration_cast<std::chrono::milliseconds>(kRetryDelay),
                     [this] { return stopping_; });
  }
  lock.unlock();
  if (nodeId) {
    proto::DeregisterWorkerRequest request;
    request.set_node_id(*nodeId);
    request.set_cluster_id(options_.clusterId);
    proto::DeregisterWorkerResponse response;
    auto status = stub->DeregisterWorker(contextWithDeadline().get(), request, &response);
    spdlog::info("left the cluster{}",
                 status.ok() ? "" : " (the coordinator did not answer: " + status.error_message() + ")");
  }
}

void Worker::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wakeUp_.notify_all();
  if (membershipThread_.joinable()) membershipThread_.join();
  if (etcdRegistration_) {
    // Draining first, so the coordinator shows the worker as having left rather than lost.
    etcdRegistration_->announceDraining();
    etcdRegistration_->leave();
  }
  if (server_) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    server_.reset();
  }
  compactor_.reset();
}

}  // namespace shoal::worker
