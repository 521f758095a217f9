#include "bench/network_benchmark.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "multiplexer/multiplexer.h"

namespace shoal::bench {
namespace {

using multiplexer::ExchangeId;
using multiplexer::Message;
using multiplexer::Multiplexer;
using multiplexer::MultiplexerOptions;
using multiplexer::NodeAddress;
using multiplexer::NodeId;
using multiplexer::ScheduleKind;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr uint64_t kBaselineChunkBytes = 512 * 1024;
constexpr ExchangeId kStartBarrier = 1;
constexpr ExchangeId kData = 2;
constexpr ExchangeId kEndBarrier = 3;

enum class ScenarioKind { kBaseline, kPointToPoint, kBidirectional, kAllToAll };

struct Scenario {
  std::string name;
  ScenarioKind kind;
  ScheduleKind schedule = ScheduleKind::kRoundRobin;
  uint64_t messageBytes = 512 * 1024;
};

/// Every node derives the same list, so the processes agree without talking.
std::vector<Scenario> scenarios(const NetBenchmarkOptions& options) {
  std::vector<Scenario> list;
  ScheduleKind schedule = *multiplexer::parseScheduleKind(options.schedule);
  uint64_t size = options.messageBytes;
  // Baseline and point-to-point alternate, several times: on a shared machine
  // the figures wander from run to run, and the report takes their medians.
  for (uint32_t repeat = 0; repeat < options.repeats; ++repeat) {
    list.push_back({"baseline-tcp-socket", ScenarioKind::kBaseline});
    list.push_back({"p2p-unidirectional", ScenarioKind::kPointToPoint, schedule, size});
  }
  list.push_back({"p2p-bidirectional", ScenarioKind::kBidirectional, schedule, size});
  list.push_back({"all-to-all-free", ScenarioKind::kAllToAll, ScheduleKind::kFree, size});
  list.push_back({"all-to-all-round-robin", ScenarioKind::kAllToAll, ScheduleKind::kRoundRobin, size});
  for (uint64_t sweepSize : options.messageSizes) {
    list.push_back({"all-to-all-size", ScenarioKind::kAllToAll, schedule, sweepSize});
  }
  return list;
}

double cpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

std::string hostOf(const NetBenchmarkOptions& options, NodeId node) {
  return options.hosts.empty() ? options.localHost : options.hosts[node];
}

/// Each scenario gets its own ports, so that no run waits for the last one's sockets.
std::vector<NodeAddress> addresses(const NetBenchmarkOptions& options, size_t scenarioIndex) {
  std::vector<NodeAddress> nodes;
  for (NodeId node = 0; node < options.nodes; ++node) {
    nodes.push_back(NodeAddress{hostOf(options, node),
                                static_cast<uint16_t>(options.basePort + scenarioIndex * options.nodes + node)});
  }
  return nodes;
}

struct Measurement {
  uint64_t bytesSent = 0;
  uint64_t bytesReceived = 0;
  double seconds = 0;
  double cpuSeconds = 0;
  std::string transport;
};

/// Every node sends an empty last message to every node and waits for all of them.
void barrier(Multiplexer& mux, ExchangeId id) {
  auto inbox = mux.openExchange(id);
  Message* message = mux.acquire(0, 60s);
  if (message == nullptr) throw std::runtime_error("no message for a barrier");
  message->setExchangeId(id);
  message->setLast(true);
  Status sent = mux.broadcast(message, true);
  if (!sent.isOk()) throw std::runtime_error(fmt::format("barrier {}: sending: {}", id, sent.toString()));
  auto received = inbox->receive(0, 120s);
  if (!received.status.isOk()) {
    throw std::runtime_error(fmt::format("barrier {}: waiting: {}", id, received.status.toString()));
  }
  mux.closeExchange(id);
}

Measurement runMultiplexerScenario(const NetBenchmarkOptions& options, NodeId self, size_t index,
                                   const Scenario& scenario) {
  MultiplexerOptions muxOptions;
  muxOptions.self = self;
  muxOptions.nodes = addresses(options, index);
  muxOptions.clusterId = options.clusterId;
  muxOptions.secret = options.secret;
  muxOptions.transport = *multiplexer::parseTransportChoice(options.transport);
  muxOptions.schedule = scenario.schedule;
  muxOptions.messagesPerPhase = options.messagesPerPhase;
  muxOptions.busyPoll = options.busyPoll;
  muxOptions.messageBytes = scenario.messageBytes;
  // Keep about 8 MB in flight per peer and 32 MB in the send pool, whatever the message size.
  muxOptions.receiveWindow = static_cast<uint32_t>(std::clamp<uint64_t>((8ull << 20) / scenario.messageBytes, 2, 256));
  muxOptions.sendMessagesPerNumaNode =
      static_cast<uint32_t>(std::clamp<uint64_t>((32ull << 20) / scenario.messageBytes, 4, 1024));
  Multiplexer mux(muxOptions);
  Status started = mux.start();
  if (!started.isOk()) throw ShoalError(started);
  if (!mux.waitForPeers(60s)) throw std::runtime_error("the benchmark nodes did not all connect within 60 s");

  std::vector<NodeId> destinations;
  std::vector<NodeId> sources;
  switch (scenario.kind) {
    case ScenarioKind::kPointToPoint:
      if (self == 0) destinations = {1};
      if (self == 1) sources = {0};
      break;
    case ScenarioKind::kBidirectional:
      if (self <= 1) destinations = {1 - self};
      if (self <= 1) sources = {1 - self};
      break;
    case ScenarioKind::kAllToAll:
      for (NodeId node = 0; node < options.nodes; ++node) {
        if (node != self) destinations.push_back(node), sources.push_back(node);
      }
      break;
    case ScenarioKind::kBaseline:
      break;
  }
  uint64_t messagesPerDestination =
      destinations.empty() ? 0
                           : std::max<uint64_t>(2, options.bytesPerNode / scenario.messageBytes / destinations.size());

  auto inbox = mux.openExchange(kData);
  inbox->expectSendersOnly(sources);
  barrier(mux, kStartBarrier);
  double cpuBefore = cpuSeconds();
  auto start = Clock::now();
  Measurement measurement;
  std::string consumerError;
  std::thread consumer([&] {
    while (true) {
      auto received = inbox->receive(0, 120s);
      if (!received.status.isOk()) {
        consumerError = received.status.toString();
        return;
      }
      if (received.message == nullptr) return;
      measurement.bytesReceived += received.message->payloadSize();
      received.message->release();
    }
  });
  for (uint64_t round = 0; round < messagesPerDestination; ++round) {
    for (NodeId destination : destinations) {
      Message* message = mux.acquire(0, 120s);
      if (message == nullptr) throw std::runtime_error("no free message within 120 s");
      message->setExchangeId(kData);
      message->setPayloadSize(static_cast<uint32_t>(scenario.messageBytes));
      message->setLast(round + 1 == messagesPerDestination);
      Status sent = mux.send(destination, message);
      if (!sent.isOk()) throw std::runtime_error("sending data: " + sent.toString());
      measurement.bytesSent += scenario.messageBytes;
    }
  }
  consumer.join();
  if (!consumerError.empty()) throw std::runtime_error(consumerError);
  barrier(mux, kEndBarrier);
  measurement.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  measurement.cpuSeconds = cpuSeconds() - cpuBefore;
  measurement.transport = mux.peerStatus(self == 0 ? 1 : 0).transport;
  mux.shutdown();
  return measurement;
}

/// The baseline: one plain blocking TCP stream from node 0 to node 1, 512 KB
/// writes and reads, then a one-byte acknowledgement; timed at the sender.
Measurement runBaseline(const NetBenchmarkOptions& options, NodeId self, size_t index) {
  Measurement measurement;
  measurement.transport = "tcp-socket";
  if (self > 1) return measurement;
  uint16_t port = static_cast<uint16_t>(options.basePort + index * options.nodes + 1);
  std::vector<char> buffer(kBaselineChunkBytes);
  uint64_t total = std::max<uint64_t>(1, options.bytesPerNode / kBaselineChunkBytes) * kBaselineChunkBytes;
  if (self == 1) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || listen(listener, 1) != 0) {
      throw std::runtime_error(fmt::format("baseline: cannot listen on port {}: {}", port, std::strerror(errno)));
    }
    int fd = accept(listener, nullptr, nullptr);
    double cpuBefore = cpuSeconds();
    auto start = Clock::now();
    while (measurement.bytesReceived < total) {
      ssize_t got = read(fd, buffer.data(), buffer.size());
      if (got <= 0) throw std::runtime_error("baseline: the sender went away");
      measurement.bytesReceived += static_cast<uint64_t>(got);
    }
    char ack = 1;
    if (write(fd, &ack, 1) != 1) throw std::runtime_error("baseline: cannot acknowledge");
    measurement.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    measurement.cpuSeconds = cpuSeconds() - cpuBefore;
    close(fd);
    close(listener);
    return measurement;
  }
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* target = nullptr;
  if (getaddrinfo(hostOf(options, 1).c_str(), std::to_string(port).c_str(), &hints, &target) != 0) {
    throw std::runtime_error("baseline: cannot resolve node 1");
  }
  int fd = -1;
  for (auto deadline = Clock::now() + 30s; Clock::now() < deadline; std::this_thread::sleep_for(20ms)) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(fd, target->ai_addr, target->ai_addrlen) == 0) break;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(target);
  if (fd < 0) throw std::runtime_error("baseline: cannot connect to node 1");
  double cpuBefore = cpuSeconds();
  auto start = Clock::now();
  while (measurement.bytesSent < total) {
    size_t offset = 0;
    while (offset < buffer.size()) {
      ssize_t written = write(fd, buffer.data() + offset, buffer.size() - offset);
      if (written <= 0) throw std::runtime_error("baseline: the receiver went away");
      offset += static_cast<size_t>(written);
    }
    measurement.bytesSent += buffer.size();
  }
  char ack;
  if (read(fd, &ack, 1) != 1) throw std::runtime_error("baseline: no acknowledgement");
  measurement.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  measurement.cpuSeconds = cpuSeconds() - cpuBefore;
  close(fd);
  return measurement;
}

std::string scheduleName(const Scenario& scenario) {
  return std::string(multiplexer::scheduleKindName(scenario.schedule));
}

double gigabytesPerSecond(uint64_t bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / 1e9 : 0;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

int runNetBenchmarkNode(const NetBenchmarkOptions& options, uint32_t self) {
  auto list = scenarios(options);
  for (size_t index = 0; index < list.size(); ++index) {
    const Scenario& scenario = list[index];
    Measurement measurement = scenario.kind == ScenarioKind::kBaseline
                                  ? runBaseline(options, self, index)
                                  : runMultiplexerScenario(options, self, index, scenario);
    nlohmann::json line = {{"scenario", scenario.name},
                           {"index", index},
                           {"node", self},
                           {"schedule", scheduleName(scenario)},
                           {"message_bytes", scenario.messageBytes},
                           {"transport", measurement.transport},
                           {"bytes_sent", measurement.bytesSent},
                           {"bytes_received", measurement.bytesReceived},
                           {"seconds", measurement.seconds},
                           {"cpu_seconds", measurement.cpuSeconds}};
    std::cout << line.dump() << std::endl;
    spdlog::info("net bench node {}: {} ({} KB messages) done in {:.3f} s", self, scenario.name,
                 scenario.messageBytes / 1024, measurement.seconds);
  }
  return 0;
}

int runNetBenchmark(const NetBenchmarkOptions& options, const std::string& executable) {
  if (options.nodes < 2) {
    std::cerr << "shoal bench net: needs at least 2 nodes" << std::endl;
    return 2;
  }
  std::string sizes;
  for (uint64_t size : options.messageSizes) sizes += (sizes.empty() ? "" : ",") + std::to_string(size);
  struct Child {
    pid_t pid;
    FILE* output;
  };
  std::vector<Child> children;
  for (NodeId node = 0; node < options.nodes; ++node) {
    int pipeFds[2];
    if (pipe(pipeFds) != 0) throw std::runtime_error("pipe failed");
    std::vector<std::string> arguments = {executable,
                                          "--log-level",
                                          options.logLevel,
                                          "bench",
                                          "net-node",
                                          "--node-id",
                                          std::to_string(node),
                                          "--nodes",
                                          std::to_string(options.nodes),
                                          "--base-port",
                                          std::to_string(options.basePort),
                                          "--transport",
                                          options.transport,
                                          "--messages-per-phase",
                                          std::to_string(options.messagesPerPhase),
                                          "--bytes-per-node",
                                          std::to_string(options.bytesPerNode),
                                          "--sizes",
                                          sizes,
                                          "--net-schedule",
                                          options.schedule,
                                          "--message-bytes",
                                          std::to_string(options.messageBytes),
                                          "--repeats",
                                          std::to_string(options.repeats),
                                          "--host",
                                          options.localHost};
    if (options.busyPoll) arguments.push_back("--busy-poll");
    pid_t pid = fork();
    if (pid == 0) {
      dup2(pipeFds[1], STDOUT_FILENO);
      close(pipeFds[0]);
      close(pipeFds[1]);
      std::vector<char*> argv;
      for (auto& argument : arguments) argv.push_back(argument.data());
      argv.push_back(nullptr);
      execv(executable.c_str(), argv.data());
      _exit(127);
    }
    close(pipeFds[1]);
    children.push_back({pid, fdopen(pipeFds[0], "r")});
  }
  std::vector<nlohmann::json> lines;
  size_t runCount = scenarios(options).size();
  for (Child& child : children) {
    char buffer[4096];
    while (fgets(buffer, sizeof(buffer), child.output) != nullptr) {
      lines.push_back(nlohmann::json::parse(buffer));
      if (&child == &children.front()) {  // node 0's lines arrive as its runs end: show progress
        const auto& line = lines.back();
        std::cerr << fmt::format("bench net: run {}/{} {} ({} KB messages) done in {:.2f} s",
                                 line["index"].get<size_t>() + 1, runCount, line["scenario"].get<std::string>(),
                                 line["message_bytes"].get<uint64_t>() / 1024, line["seconds"].get<double>())
                  << std::endl;
      }
    }
    fclose(child.output);
  }
  bool failed = false;
  for (Child& child : children) {
    int status = 0;
    waitpid(child.pid, &status, 0);
    failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  if (failed) {
    std::cerr << "shoal bench net: a benchmark node failed (see its log above)" << std::endl;
    return 1;
  }

  // Group the nodes' lines by scenario run.
  std::map<size_t, std::vector<nlohmann::json>> byIndex;
  for (auto& line : lines) byIndex[line["index"].get<size_t>()].push_back(line);
  auto nodeLine = [&](size_t index, NodeId node) -> nlohmann::json& {
    for (auto& line : byIndex[index]) {
      if (line["node"] == node) return line;
    }
    throw std::runtime_error("a node's result is missing");
  };
  auto list = scenarios(options);
  nlohmann::json report;
  report["nodes"] = options.nodes;
  report["bytes_per_node"] = options.bytesPerNode;
  report["messages_per_phase"] = options.messagesPerPhase;
  report["repeats"] = options.repeats;
  report["transport_requested"] = options.transport;
  report["runs"] = lines;
  std::vector<double> baselineRuns, p2pRuns;
  double baselineCpu = 0, baselineBytes = 0, muxCpu = 0, muxBytes = 0;
  nlohmann::json allToAll = nlohmann::json::array();
  for (size_t index = 0; index < list.size(); ++index) {
    const Scenario& scenario = list[index];
    auto& sender = nodeLine(index, 0);
    auto& receiver = nodeLine(index, 1);
    switch (scenario.kind) {
      case ScenarioKind::kBaseline:
        baselineRuns.push_back(gigabytesPerSecond(sender["bytes_sent"], sender["seconds"]));
        baselineCpu += sender["cpu_seconds"].get<double>() + receiver["cpu_seconds"].get<double>();
        baselineBytes += receiver["bytes_received"].get<double>();
        break;
      case ScenarioKind::kPointToPoint:
        p2pRuns.push_back(gigabytesPerSecond(sender["bytes_sent"], sender["seconds"]));
        muxCpu += sender["cpu_seconds"].get<double>() + receiver["cpu_seconds"].get<double>();
        muxBytes += receiver["bytes_received"].get<double>();
        report["transport"] = sender["transport"];
        break;
      case ScenarioKind::kBidirectional:
        report["p2p_bidirectional_gbps"] = gigabytesPerSecond(sender["bytes_sent"], sender["seconds"]) +
                                           gigabytesPerSecond(receiver["bytes_sent"], receiver["seconds"]);
        break;
      case ScenarioKind::kAllToAll: {
        double perNode = 0, cpu = 0, bytes = 0;
        for (NodeId node = 0; node < options.nodes; ++node) {
          auto& line = nodeLine(index, node);
          perNode += gigabytesPerSecond(line["bytes_sent"], line["seconds"]) / options.nodes;
          cpu += line["cpu_seconds"].get<double>();
          bytes += line["bytes_received"].get<double>();
        }
        nlohmann::json entry = {{"message_bytes", scenario.messageBytes},
                                {"schedule", scheduleName(scenario)},
                                {"gbps_per_node", perNode},
                                {"cpu_seconds_per_gb", bytes > 0 ? cpu / (bytes / 1e9) : 0}};
        if (scenario.name == "all-to-all-size") {
          allToAll.push_back(entry);
        } else {
          report["schedule_comparison"][scheduleName(scenario)] = entry;
        }
        break;
      }
    }
  }
  report["all_to_all"] = allToAll;
  double baselineGbps = median(baselineRuns);
  double p2pGbps = median(p2pRuns);
  report["baseline_gbps"] = baselineGbps;
  report["baseline_gbps_runs"] = baselineRuns;
  report["p2p_unidirectional_gbps"] = p2pGbps;
  report["p2p_unidirectional_gbps_runs"] = p2pRuns;
  report["p2p_ratio_to_baseline"] = baselineGbps > 0 ? p2pGbps / baselineGbps : 0;
  report["cpu_seconds_per_gb"] = {
      {"multiplexer_" + report.value("transport", std::string("tcp")), muxCpu / (muxBytes / 1e9)},
      {"baseline_tcp_socket", baselineCpu / (baselineBytes / 1e9)}};

  std::cout << fmt::format("shoal bench net: {} nodes, transport {}\n", options.nodes,
                           report.value("transport", std::string("?")));
  std::cout << fmt::format(
      "  point-to-point      {:8.3f} GB/s   baseline TCP socket {:8.3f} GB/s   ratio {:.2f} "
      "(medians of {} runs each)\n",
      p2pGbps, baselineGbps, report["p2p_ratio_to_baseline"].get<double>(), p2pRuns.size());
  std::cout << fmt::format("  bidirectional       {:8.3f} GB/s (both directions)\n",
                           report["p2p_bidirectional_gbps"].get<double>());
  for (auto& [name, entry] : report["schedule_comparison"].items()) {
    std::cout << fmt::format("  all-to-all {:12} {:8.3f} GB/s per node ({} KB messages)\n", name,
                             entry["gbps_per_node"].get<double>(), options.messageBytes / 1024);
  }
  for (auto& entry : allToAll) {
    std::cout << fmt::format("  all-to-all {:>8} KB {:8.3f} GB/s per node, {:.2f} CPU s/GB\n",
                             entry["message_bytes"].get<uint64_t>() / 1024, entry["gbps_per_node"].get<double>(),
                             entry["cpu_seconds_per_gb"].get<double>());
  }
  for (auto& [name, value] : report["cpu_seconds_per_gb"].items()) {
    std::cout << fmt::format("  CPU per GB, point-to-point, {:24} {:.3f} s\n", name, value.get<double>());
  }
  if (!options.jsonPath.empty()) {
    std::ofstream out(options.jsonPath);
    out << report.dump(2) << std::endl;
    std::cout << "  wrote " << options.jsonPath << std::endl;
  }
  return 0;
}

}  // namespace shoal::bench
