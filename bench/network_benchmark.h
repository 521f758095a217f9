#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace shoal::bench {

/// `shoal bench net`: the multiplexer's network microbenchmarks (the paper's
/// Figures 5, 10b and 10c), with a plain single-stream TCP socket loop between
/// the same processes as the baseline.
struct NetBenchmarkOptions {
  uint32_t nodes = 2;
  /// One host per node for a multi-host run (each host runs `shoal bench net-node`);
  /// empty: every node is a local process on 127.0.0.1.
  std::vector<std::string> hosts;
  /// Without `hosts`: the address every local node listens on (rdma_cm needs an RDMA device's address, not
  /// loopback).
  std::string localHost = "127.0.0.1";
  uint16_t basePort = 17100;
  std::string transport = "auto";
  /// Schedule of the point-to-point runs and the size sweep (the comparison runs both).
  std::string schedule = "round-robin";
  /// Message size of the point-to-point runs and the schedule comparison.
  uint64_t messageBytes = 512 * 1024;
  bool busyPoll = false;
  uint32_t messagesPerPhase = 8;
  /// Bytes each node sends in one all-to-all run, and node 0 in a point-to-point run.
  uint64_t bytesPerNode = 256ull << 20;
  std::vector<uint64_t> messageSizes = {1ull << 10,   4ull << 10, 16ull << 10, 64ull << 10, 256ull << 10,
                                        512ull << 10, 1ull << 20, 4ull << 20,  16ull << 20, 64ull << 20};
  /// Baseline and point-to-point runs, alternating; the report gives medians.
  uint32_t repeats = 3;
  std::string jsonPath;
  /// Passed on to the node processes.
  std::string logLevel = "info";
  std::string clusterId = "shoal-net-bench";
  std::string secret = "shoal-net-bench";
};

/// Starts `nodes` local processes (`executable bench net-node ...`), gathers
/// their measurements, prints a summary and writes the JSON report.
int runNetBenchmark(const NetBenchmarkOptions& options, const std::string& executable);

/// Runs one node of the benchmark and prints one JSON line per scenario on stdout.
int runNetBenchmarkNode(const NetBenchmarkOptions& options, uint32_t self);

}  // namespace shoal::bench
