// The one `shoal` executable: `shoal coordinator`, `shoal worker`, `shoal local`,
// `shoal load` and `shoal bench`.
#include <unistd.h>

#include <chrono>
#include <climits>
#include <iostream>
#include <map>
#include <sstream>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "bench/network_benchmark.h"
#include "cli/local_cluster.h"
#include "cli/repo_script.h"
#include "cli/sql_client.h"
#include "cli/termination_signals.h"
#include "cli/worker_drain.h"
#include "common/logging.h"
#include "common/status.h"
#include "coordinator/auth/tls_context.h"
#include "coordinator/coordinator.h"
#include "proto/internal_auth.h"
#include "proto/internal_tls.h"
#include "worker/worker.h"

namespace {

using namespace shoal;

/// Waits until SIGINT or SIGTERM arrives, or `stopEarly` says to stop.
template <class StopEarly>
void serveUntilTerminated(StopEarly&& stopEarly) {
  while (!cli::waitForTerminationSignal(std::chrono::milliseconds(200))) {
    if (stopEarly()) return;
  }
}

/// --cluster-ca, --node-cert and --node-key: mutual TLS on internal gRPC (proto/internal_tls.h).
struct InternalTlsFlags {
  std::string ca;
  std::string certificate;
  std::string key;
};

void addInternalTlsFlags(CLI::App* command, InternalTlsFlags& flags) {
  command->add_option("--cluster-ca", flags.ca,
                      "The cluster CA's certificate: internal gRPC then uses mutual TLS, and accepts only peers "
                      "whose certificate it signed (`shoal certs init` makes one; with --node-cert, --node-key)");
  command->add_option("--node-cert", flags.certificate, "This node's certificate, signed by --cluster-ca");
  command->add_option("--node-key", flags.key, "The key of --node-cert");
}

void addEtcdSecurityFlags(CLI::App* command, etcd::EtcdSecurity& security) {
  command->add_option("--etcd-ca", security.caFile, "CA certificate of etcd's TLS: etcd is then reached over https");
  command->add_option("--etcd-cert", security.certificateFile,
                      "Client certificate for etcd (its --client-cert-auth), with --etcd-key");
  command->add_option("--etcd-key", security.keyFile, "The key of --etcd-cert");
  command->add_option("--etcd-user", security.user, "etcd user to log in as (etcd's `auth enable`)");
  command->add_option("--etcd-password-file", security.passwordFile,
                      "File whose first line is --etcd-user's password (owner-only permissions)");
}

/// Installs the flags' TLS for this process; all three or none.
void installInternalTlsFlags(const InternalTlsFlags& flags) {
  const int given = !flags.ca.empty() + !flags.certificate.empty() + !flags.key.empty();
  if (given == 0) return;
  if (given != 3)
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "--cluster-ca, --node-cert and --node-key go together");
  proto::installInternalTls(flags.ca, flags.certificate, flags.key);
}

std::string ownExecutablePath() {
  char path[PATH_MAX] = {};
  ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  return length > 0 ? std::string(path, static_cast<size_t>(length)) : std::string("shoal");
}

}  // namespace

int main(int argc, char** argv) {
  cli::blockTerminationSignals();

  CLI::App app{"Shoal: a distributed shared-nothing MPP SQL query cluster"};
  app.set_config("--config", "", "Read flags from a TOML/INI file (keys are the long flag names)");
  app.require_subcommand(1);
  std::string logLevel = "info";
  app.add_option("--log-level", logLevel, "Log level: trace, debug, info, warn, error")->capture_default_str();

  coordinator::CoordinatorOptions coordinatorOptions;
  auto* coordinatorCommand = app.add_subcommand("coordinator", "Run the coordinator: SQL endpoint and control plane");
  coordinatorCommand->add_option("--cluster-id", coordinatorOptions.clusterId, "Cluster id workers must present")
      ->capture_default_str();
  coordinatorCommand->add_option("--pg-host", coordinatorOptions.pgHost, "Address for PostgreSQL clients")
      ->capture_default_str();
  coordinatorCommand->add_option("--pg-port", coordinatorOptions.pgPort, "Port for PostgreSQL clients (0: any free)")
      ->capture_default_str();
  coordinatorCommand->add_option("--control-host", coordinatorOptions.controlHost, "Address of the gRPC control plane")
      ->capture_default_str();
  coordinatorCommand
      ->add_option("--control-port", coordinatorOptions.controlPort, "Port of the gRPC control plane (0: any free)")
      ->capture_default_str();
  coordinatorCommand
      ->add_option("--heartbeat-interval-ms", coordinatorOptions.heartbeatIntervalMs,
                   "Interval at which workers send heartbeats")
      ->capture_default_str();
  coordinatorCommand
      ->add_option("--heartbeat-timeout-ms", coordinatorOptions.heartbeatTimeoutMs,
                   "A worker silent this long is shown as down")
      ->capture_default_str();
  coordinatorCommand->add_option("--max-connections", coordinatorOptions.maxConnections, "Most SQL clients at once")
      ->capture_default_str();
  coordinatorCommand
      ->add_option("--client-startup-timeout", coordinatorOptions.clientStartupTimeoutSeconds,
                   "Seconds from a SQL client's connect within which it must finish its startup")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  coordinatorCommand
      ->add_option("--tls-cert", coordinatorOptions.tlsCertificateFile,
                   "PEM certificate (chain) for TLS on the SQL port (`shoal certs init DIR` makes one)")
      ->check(CLI::ExistingFile);
  coordinatorCommand->add_option("--tls-key", coordinatorOptions.tlsKeyFile, "PEM key of --tls-cert")
      ->check(CLI::ExistingFile);
  coordinatorCommand
      ->add_option("--hba-file", coordinatorOptions.hbaFile,
                   "Host rules, as pg_hba.conf's host lines: who logs in with trust, scram-sha-256 or is rejected "
                   "(default: trust from this machine's own addresses, scram-sha-256 from anywhere else)")
      ->check(CLI::ExistingFile);
  coordinatorCommand
      ->add_option("--max-startup-connections", coordinatorOptions.maxStartupConnections,
                   "Most SQL connections still in their startup at once; past it, the one starting longest is dropped")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  coordinatorCommand
      ->add_option("--memory-budget-mb", coordinatorOptions.memoryBudgetMb,
                   "Memory all queries may hold together on the coordinator (results and rows gathered from the "
                   "workers); past it a query fails with 53200 (0: a quarter of the host's memory or of its "
                   "cgroup's limit, whichever is smaller)")
      ->capture_default_str();
  coordinatorCommand->add_option("--data-dir", coordinatorOptions.dataDir,
                                 "Directory for the catalog (empty: keep it in memory)");
  coordinatorCommand
      ->add_option("--cluster-secret-file", coordinatorOptions.clusterSecretFile,
                   "File holding the cluster secret that every node presents on internal calls (make one with "
                   "`shoal secret init FILE`; owner-only permissions)")
      ->required();
  InternalTlsFlags coordinatorTls;
  addInternalTlsFlags(coordinatorCommand, coordinatorTls);
  coordinatorCommand->add_option("--port-file", coordinatorOptions.portFile,
                                 "Write the bound ports here as JSON once serving");
  coordinatorCommand->add_option("--etcd", coordinatorOptions.etcdEndpoints,
                                 "HOST:PORT[,...] of etcd: learn workers from their leases there, and keep the catalog "
                                 "there (default: workers register over the control plane; catalog in --data-dir)");
  addEtcdSecurityFlags(coordinatorCommand, coordinatorOptions.etcdSecurity);

  worker::WorkerOptions workerOptions;
  auto* workerCommand = app.add_subcommand("worker", "Run a worker that joins a coordinator");
  workerCommand->add_option("--coordinator", workerOptions.coordinatorAddress,
                            "HOST:PORT of the coordinator's control plane (to register there; or use --etcd)");
  workerCommand->add_option("--etcd", workerOptions.etcdEndpoints,
                            "HOST:PORT[,...] of etcd: register there under a lease the worker renews");
  addEtcdSecurityFlags(workerCommand, workerOptions.etcdSecurity);
  workerCommand
      ->add_option("--lease-ttl", workerOptions.leaseTtlSeconds,
                   "Seconds of the etcd lease: a worker out of etcd's reach this long is down")
      ->check(CLI::Range(int64_t{2}, int64_t{3600}))
      ->capture_default_str();
  workerCommand
      ->add_option("--drain-timeout", workerOptions.drainTimeoutSeconds,
                   "Seconds a leaving worker (SIGTERM, --drain) waits for its running work before it leaves anyway")
      ->capture_default_str();
  bool drainRunningWorker = false;
  workerCommand->add_flag("--drain", drainRunningWorker,
                          "Do not start a worker: ask the one serving at --listen-host:--listen-port to leave the "
                          "cluster (it finishes its running work, deregisters and exits) and wait until it is gone");
  workerCommand->add_option("--cluster-id", workerOptions.clusterId, "Cluster id to present")->capture_default_str();
  workerCommand->add_option("--listen-host", workerOptions.listenHost, "Address of this worker's gRPC service")
      ->capture_default_str();
  workerCommand
      ->add_option("--listen-port", workerOptions.listenPort, "Port of this worker's gRPC service (0: any free)")
      ->capture_default_str();
  workerCommand->add_option("--node-name", workerOptions.nodeName, "Stable name of this worker (default: host:pid)");
  workerCommand->add_option("--data-dir", workerOptions.dataDir,
                            "Directory for table partitions (empty: keep them in memory)");
  workerCommand
      ->add_option("--numa-nodes", workerOptions.numaNodes,
                   "NUMA nodes to place data on and to queue exchange messages by (0: the machine's own; N: "
                   "simulate N nodes)")
      ->capture_default_str();
  workerCommand
      ->add_option("--network-cpu", workerOptions.networkCpu,
                   "Pin the exchange network thread to this CPU (-1: let the scheduler place it)")
      ->check(CLI::Range(-1, 4095))
      ->capture_default_str();
  workerCommand->add_option("--threads", workerOptions.threads, "Query threads (0: one per hardware thread)")
      ->capture_default_str();
  workerCommand
      ->add_option("--query-memory-limit-mb", workerOptions.queryMemoryLimitMb,
                   "Memory one query may hold here unless its session SETs query_memory_limit_mb "
                   "(0: the whole --memory-budget-mb)")
      ->capture_default_str();
  workerCommand
      ->add_option("--memory-budget-mb", workerOptions.memoryBudgetMb,
                   "Memory all queries here may hold together; past it a query fails with 53200 (0: three quarters "
                   "of the host's memory or of its cgroup's limit, whichever is smaller)")
      ->capture_default_str();
  workerCommand
      ->add_option("--exchange-port", workerOptions.exchangePort,
                   "Port of the exchange multiplexer that other workers connect to (0: a free one)")
      ->capture_default_str();
  std::string workerTransport = "auto";
  workerCommand
      ->add_option("--transport", workerTransport,
                   "How exchange messages travel between workers: auto (RDMA where a device exists), rdma or tcp")
      ->check(CLI::IsMember({"auto", "rdma", "tcp"}))
      ->capture_default_str();
  std::string workerSchedule = "round-robin";
  workerCommand
      ->add_option("--net-schedule", workerSchedule,
                   "Network schedule of exchange messages: round-robin (the paper's phases, no two senders on one "
                   "receiver's link) or free (send whatever is ready, lowest latency)")
      ->check(CLI::IsMember({"round-robin", "free"}))
      ->capture_default_str();
  workerCommand
      ->add_option("--message-bytes", workerOptions.messageBytes,
                   "Payload bytes of an exchange message (every worker of the cluster must use the same)")
      ->check(CLI::Range(size_t{4096}, size_t{64} << 20))
      ->capture_default_str();
  workerCommand
      ->add_option("--cluster-secret-file", workerOptions.clusterSecretFile,
                   "File holding the cluster secret (the coordinator's and every worker's is the same)")
      ->required();
  InternalTlsFlags workerTls;
  addInternalTlsFlags(workerCommand, workerTls);
  workerCommand->add_option("--tpchgen", workerOptions.tpchGenerator, "tpchgen-cli this worker runs for CALL tpch_load")
      ->capture_default_str();
  workerCommand->add_option("--debug-protocol-version", workerOptions.debugProtocolVersion,
                            "Test only: present this control protocol version");

  cli::LocalClusterOptions localOptions;
  auto* localCommand = app.add_subcommand("local", "Run a coordinator and N workers on this machine");
  localCommand->add_option("--workers", localOptions.numWorkers, "Number of worker processes")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  localCommand->add_option("--pg-port", localOptions.pgPort, "Port for PostgreSQL clients (0: any free)")
      ->capture_default_str();
  localCommand->add_option("--host", localOptions.host, "Address every process listens on")->capture_default_str();
  localCommand->add_option("--data-dir", localOptions.dataDir, "Directory for logs and data")->capture_default_str();
  localCommand
      ->add_option("--client-startup-timeout", localOptions.clientStartupTimeoutSeconds,
                   "The coordinator's --client-startup-timeout")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  localCommand
      ->add_option("--memory-budget-mb", localOptions.memoryBudgetMb,
                   "Memory all the cluster's queries may hold together: a fifth for the coordinator, the rest split "
                   "among the workers; a query past its node's share fails with 53200 (0: three quarters of the "
                   "host's memory or of its cgroup's limit)")
      ->capture_default_str();
  localCommand->add_flag("--internal-tls", localOptions.internalTls,
                         "Mutual TLS on internal gRPC: a cluster CA and node certificate are made in the data "
                         "directory (internal-tls/) on the first start and given to every process");
  localCommand->add_flag("!--no-restart", localOptions.restartWorkers,
                         "Leave a worker that died down, instead of starting it again after a backoff (1 s, "
                         "doubling to 30 s while it keeps dying)");
  localCommand->add_option("--hba-file", localOptions.hbaFile, "The coordinator's --hba-file")
      ->check(CLI::ExistingFile);
  localCommand->add_option("--tls-cert", localOptions.tlsCertificateFile, "The coordinator's --tls-cert")
      ->check(CLI::ExistingFile);
  localCommand->add_option("--tls-key", localOptions.tlsKeyFile, "The coordinator's --tls-key")
      ->check(CLI::ExistingFile);
  localCommand
      ->add_option("--max-startup-connections", localOptions.maxStartupConnections,
                   "The coordinator's --max-startup-connections")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  localCommand->add_option("--cluster-id", localOptions.clusterId, "Cluster id")->capture_default_str();
  localCommand->add_option("--transport", localOptions.transport, "Each worker's --transport: auto, rdma or tcp")
      ->check(CLI::IsMember({"auto", "rdma", "tcp"}))
      ->capture_default_str();
  localCommand
      ->add_option("--net-schedule", localOptions.netSchedule,
                   "Each worker's --net-schedule (free by default here: the workers share one host's loopback)")
      ->check(CLI::IsMember({"round-robin", "free"}))
      ->capture_default_str();
  localCommand->add_option("--tpchgen", localOptions.tpchGenerator,
                           "tpchgen-cli for CALL tpch_load (default: on PATH, or in the build's .venv)");
  localCommand
      ->add_option("--tpch", localOptions.tpchScaleFactor,
                   "Load TPC-H at this scale factor before announcing ready, unless already loaded (0: none)")
      ->capture_default_str();
  localCommand
      ->add_option("--numa-nodes", localOptions.numaNodes,
                   "Each worker's --numa-nodes (0: the machine's own; N: simulate N nodes)")
      ->capture_default_str();
  localCommand->add_option("--threads", localOptions.threads, "Each worker's --threads (0: one per hardware thread)")
      ->capture_default_str();
  localCommand
      ->add_option("--message-bytes", localOptions.messageBytes,
                   "Each worker's --message-bytes (0: the workers' default, 512 KiB)")
      ->check(CLI::Range(size_t{4096}, size_t{64} << 20))
      ->capture_default_str();

  std::string secretPath;
  auto* secretCommand = app.add_subcommand("secret", "Cluster secrets");
  secretCommand->require_subcommand(1);
  auto* secretInitCommand = secretCommand->add_subcommand(
      "init", "Write a fresh random cluster secret to FILE (owner-only); copy it to every node of the cluster");
  secretInitCommand->add_option("FILE", secretPath, "Where to write it (must not exist)")->required();

  std::string certsDirectory;
  std::vector<std::string> certsHosts;
  auto* certsCommand = app.add_subcommand("certs", "TLS certificates");
  certsCommand->require_subcommand(1);
  auto* certsInitCommand = certsCommand->add_subcommand(
      "init",
      "Make a private CA (ca.crt, ca.key) and a node certificate it signs (node.crt, node.key) in DIR, for "
      "--tls-cert/--tls-key and clients' sslrootcert");
  certsInitCommand->add_option("DIR", certsDirectory, "Where to write them (existing files are never overwritten)")
      ->required();
  certsInitCommand->add_option("--host", certsHosts,
                               "A name or IPv4 address the node certificate is valid for, besides localhost and "
                               "127.0.0.1 (repeatable)");

  double loadScaleFactor = 1;
  std::string loadHost = "127.0.0.1";
  uint16_t loadPort = 5433;
  auto* loadCommand = app.add_subcommand("load", "Load a benchmark data set into a running cluster");
  auto* loadTpchCommand = loadCommand->add_subcommand("tpch", "Generate and load TPC-H (CALL tpch_load) at --sf");
  loadCommand->require_subcommand(1);
  loadTpchCommand->add_option("--sf", loadScaleFactor, "TPC-H scale factor")->capture_default_str();
  loadTpchCommand->add_option("--host", loadHost, "Coordinator's SQL host")->capture_default_str();
  loadTpchCommand->add_option("--port", loadPort, "Coordinator's SQL port")->capture_default_str();

  bench::NetBenchmarkOptions netOptions;
  uint32_t netNodeId = 0;
  std::string netHosts;
  std::string netSizes;
  auto* benchCommand = app.add_subcommand("bench", "Microbenchmarks");
  benchCommand->require_subcommand(1);
  auto* netCommand = benchCommand->add_subcommand(
      "net",
      "Network microbenchmarks of the multiplexer: point-to-point, all-to-all by message size, round-robin "
      "vs free schedule, CPU per GB, against a plain TCP socket baseline");
  auto* netNodeCommand = benchCommand->add_subcommand(
      "net-node", "One node of `bench net`; run it on every host, with the same flags, for a multi-host run");
  for (CLI::App* command : {netCommand, netNodeCommand}) {
    command->add_option("--nodes", netOptions.nodes, "Number of nodes")->capture_default_str();
    command->add_option("--hosts", netHosts, "Comma-separated host of each node (default: all 127.0.0.1)");
    command
        ->add_option("--host", netOptions.localHost,
                     "Address the local nodes listen on (an RDMA device's address for --transport rdma)")
        ->capture_default_str();
    command->add_option("--base-port", netOptions.basePort, "First port; each run uses the next --nodes ports")
        ->capture_default_str();
    command->add_option("--transport", netOptions.transport, "auto, rdma or tcp")
        ->check(CLI::IsMember({"auto", "rdma", "tcp"}))
        ->capture_default_str();
    command->add_option("--messages-per-phase", netOptions.messagesPerPhase, "Round-robin messages per phase")
        ->capture_default_str();
    command
        ->add_option("--net-schedule", netOptions.schedule,
                     "Network schedule of the point-to-point runs and the size sweep: round-robin or free")
        ->check(CLI::IsMember({"round-robin", "free"}))
        ->capture_default_str();
    command
        ->add_option("--message-bytes", netOptions.messageBytes,
                     "Message size of the point-to-point runs and the schedule comparison")
        ->capture_default_str();
    command->add_flag("--busy-poll", netOptions.busyPoll, "Poll RDMA completions instead of waiting for events");
    command->add_option("--bytes-per-node", netOptions.bytesPerNode, "Bytes each node sends per run")
        ->capture_default_str();
    command->add_option("--repeats", netOptions.repeats, "Baseline and point-to-point runs (medians are reported)")
        ->capture_default_str();
    command->add_option("--sizes", netSizes,
                        "Comma-separated message sizes in bytes for the all-to-all sweep "
                        "(default 1 KB to 64 MB)");
  }
  netCommand->add_option("--json", netOptions.jsonPath, "Write the report as JSON to this file");
  netNodeCommand->add_option("--node-id", netNodeId, "This node's id (0-based)")->required();

  // `bench tpch` is a Python script (it drives DuckDB's Python package); these flags are passed to it.
  auto* tpchBenchCommand = benchCommand->add_subcommand(
      "tpch",
      "TPC-H's 22 queries on a local cluster against DuckDB over the same data (best of 3, answers checked), "
      "optionally 1- vs 2-thread scaling, and with --workers > 1 the same on 1 worker with bytes shuffled");
  struct ForwardedOption {
    const char* name;
    const char* help;
    const char* defaultValue;
  };
  static const ForwardedOption kTpchBenchOptions[] = {
      {"--sf", "TPC-H scale factor", "1"},
      {"--workers", "Worker processes", "1"},
      {"--threads", "Query threads per worker (0: one per core)", "0"},
      {"--repeat", "Runs per query and engine; the best counts", "3"},
      {"--queries", "Queries to run, e.g. 1-22 or 1,6,9", "1-22"},
      {"--scaling", "Queries to time with 1 and then 2 threads per worker, e.g. 1,6", ""},
      {"--scaling-repeat", "Runs per query and thread count in the scaling check; the best counts", "15"},
      {"--layouts",
       "With --workers > 1: layouts to run on W workers beside 1 worker (partitioned, chunked), printed like "
       "the paper's Table 2",
       "partitioned,chunked"},
      {"--json", "Write the results as JSON to this file", ""},
      {"--data-dir", "The cluster's directory, kept for later runs (default: a scratch one)", ""},
      {"--tbl-dir", "DuckDB's .tbl files, written there if missing (default: a scratch directory)", ""},
  };
  static std::map<std::string, std::string> tpchBenchValues;
  for (const auto& option : kTpchBenchOptions) {
    tpchBenchValues[option.name] = option.defaultValue;
    tpchBenchCommand->add_option(option.name, tpchBenchValues[option.name], option.help)->capture_default_str();
  }

  CLI11_PARSE(app, argc, argv);

  if (*tpchBenchCommand) {
    std::vector<std::string> arguments = {"--shoal", ownExecutablePath()};
    for (const auto& [name, value] : tpchBenchValues) {
      if (value.empty()) continue;
      arguments.push_back(name);
      arguments.push_back(value);
    }
    return cli::execRepoScript(ownExecutablePath(), "bench/tpch_bench.py", arguments);
  }

  if (*benchCommand) {
    try {
      initLogging(logLevel, *netNodeCommand ? "net-node-" + std::to_string(netNodeId) : "bench");
      auto splitList = [](const std::string& text) {
        std::vector<std::string> items;
        std::stringstream stream(text);
        for (std::string item; std::getline(stream, item, ',');) {
          if (!item.empty()) items.push_back(item);
        }
        return items;
      };
      netOptions.hosts = splitList(netHosts);
      netOptions.logLevel = logLevel;
      if (!netOptions.hosts.empty() && netOptions.hosts.size() != netOptions.nodes) {
        std::cerr << "shoal bench: --hosts names " << netOptions.hosts.size() << " hosts for " << netOptions.nodes
                  << " nodes" << std::endl;
        return 2;
      }
      if (!netSizes.empty()) {
        netOptions.messageSizes.clear();
        for (const std::string& size : splitList(netSizes)) netOptions.messageSizes.push_back(std::stoull(size));
      }
      if (*netNodeCommand) return bench::runNetBenchmarkNode(netOptions, netNodeId);
      if (!netOptions.hosts.empty()) {
        std::cerr << "shoal bench net: with --hosts, run `shoal bench net-node --node-id I` with the same flags on "
                     "each host"
                  << std::endl;
        return 2;
      }
      return bench::runNetBenchmark(netOptions, ownExecutablePath());
    } catch (const std::exception& error) {
      std::cerr << "shoal bench: " << error.what() << std::endl;
      return 1;
    }
  }

  if (*secretCommand) {
    try {
      proto::writeClusterSecretFile(secretPath);
      std::cout << "wrote a cluster secret to " << secretPath << std::endl;
      return 0;
    } catch (const ShoalError& error) {
      std::cerr << "shoal secret init: " << error.status().message() << std::endl;
      return 1;
    }
  }

  if (*certsCommand) {
    try {
      coordinator::writeClusterCertificates(certsDirectory, certsHosts);
      std::cout << "wrote ca.crt, ca.key, node.crt and node.key to " << certsDirectory
                << "\n  serve:   shoal coordinator ... --tls-cert " << certsDirectory << "/node.crt --tls-key "
                << certsDirectory
                << "/node.key\n  connect: psql \"host=127.0.0.1 port=5433 user=shoal sslmode=verify-full "
                << "sslrootcert=" << certsDirectory << "/ca.crt\"" << std::endl;
      return 0;
    } catch (const ShoalError& error) {
      std::cerr << "shoal certs init: " << error.status().message() << std::endl;
      return 1;
    }
  }

  if (*loadCommand) {
    try {
      std::cout << fmt::format("loading TPC-H scale factor {} into {}:{} ...", loadScaleFactor, loadHost, loadPort)
                << std::endl;
      std::string tag = cli::runSqlStatement(loadHost, loadPort, fmt::format("CALL tpch_load({})", loadScaleFactor),
                                             [](const std::string& notice) { std::cout << notice << std::endl; });
      return tag == "CALL" ? 0 : 1;
    } catch (const std::exception& error) {
      std::cerr << "shoal load: " << error.what() << std::endl;
      return 1;
    }
  }

  try {
    if (*localCommand) {
      localOptions.logLevel = logLevel;
      return cli::runLocalCluster(localOptions, ownExecutablePath());
    }
    if (*coordinatorCommand) {
      initLogging(logLevel, "coordinator");
      installInternalTlsFlags(coordinatorTls);
      coordinator::Coordinator coordinator(coordinatorOptions);
      coordinator.start();
      serveUntilTerminated([] { return false; });
      spdlog::info("coordinator stopping");
      coordinator.stop();
      return 0;
    }
    installInternalTlsFlags(workerTls);
    if (drainRunningWorker) {
      proto::installClusterSecret(proto::readClusterSecretFile(workerOptions.clusterSecretFile));
      return cli::drainWorker(fmt::format("{}:{}", workerOptions.listenHost, workerOptions.listenPort),
                              std::chrono::seconds(workerOptions.drainTimeoutSeconds + 10));
    }
    if (workerOptions.coordinatorAddress.empty() == workerOptions.etcdEndpoints.empty()) {
      std::cerr << "shoal worker: give either --coordinator or --etcd" << std::endl;
      return 2;
    }
    initLogging(logLevel, "worker");
    workerOptions.transport = *multiplexer::parseTransportChoice(workerTransport);
    workerOptions.schedule = *multiplexer::parseScheduleKind(workerSchedule);
    worker::Worker worker(workerOptions);
    worker.start();
    serveUntilTerminated([&] { return worker.fatalError().has_value(); });
    if (!worker.fatalError()) worker.drain();  // SIGTERM, SIGINT or --drain: finish the running work first
    worker.stop();
    if (auto error = worker.fatalError()) {
      std::cerr << "shoal worker: " << *error << std::endl;
      return 2;
    }
    return 0;
  } catch (const ShoalError& error) {
    std::cerr << "shoal: " << error.status().message() << std::endl;
    return 1;
  }
}
