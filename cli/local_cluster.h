#pragma once

#include <cstdint>
#include <string>

namespace shoal::cli {

struct LocalClusterOptions {
  int numWorkers = 2;
  std::string host = "127.0.0.1";
  uint16_t pgPort = 5433;  // 0: any free port
  std::string dataDir = "shoal-data";
  std::string clusterId = "shoal-local";
  std::string logLevel = "info";
  /// tpchgen-cli for CALL tpch_load; empty: found on PATH or in a .venv beside the build.
  std::string tpchGenerator;
  /// Passed to every worker's --numa-nodes (0: the machine's own topology).
  uint32_t numaNodes = 0;
  /// Each worker's query threads (0: one per hardware thread).
  uint32_t threads = 0;
  /// Each worker's --transport and --net-schedule. The workers share one host's loopback, where no switch
  /// port is contended for, so the free schedule (no phase barriers) is the default here.
  std::string transport = "auto";
  std::string netSchedule = "free";
  /// Each worker's --message-bytes (0: the worker's default).
  size_t messageBytes = 0;
  /// TPC-H scale factor to load before the cluster is announced ready, unless the data directory already
  /// holds TPC-H (0: load nothing).
  double tpchScaleFactor = 0;
  /// How long to wait for the coordinator and every worker to come up.
  int startupTimeoutSeconds = 60;
  /// The coordinator's --client-startup-timeout and --max-startup-connections.
  int clientStartupTimeoutSeconds = 60;
  size_t maxStartupConnections = 20;
  /// The memory the cluster's processes may hold for queries, together (0: three quarters of the host's or
  /// its cgroup's): a fifth goes to the coordinator's --memory-budget-mb, the rest is split among the workers.
  uint64_t memoryBudgetMb = 0;
  /// Mutual TLS on internal gRPC, with certificates made in the data directory.
  bool internalTls = false;
  /// The coordinator's --hba-file (empty: its built-in rules).
  std::string hbaFile;
  /// Start a worker that died again (after a backoff), as a supervisor would; false: leave it down.
  bool restartWorkers = true;
  /// The coordinator's --tls-cert and --tls-key (empty: none).
  std::string tlsCertificateFile;
  std::string tlsKeyFile;
};

/// `shoal local`: starts a coordinator and N workers as child processes of
/// this one, prints "ready: postgresql://..." once the cluster accepts
/// queries, and stops them all on SIGINT or SIGTERM. Children die with this
/// process even if it is killed outright, so no orphans remain.
/// Returns the process exit code.
int runLocalCluster(const LocalClusterOptions& options, const std::string& shoalExecutable);

}  // namespace shoal::cli
