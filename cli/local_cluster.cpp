#include "cli/local_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include "cli/sql_client.h"
#include "cli/termination_signals.h"
#include "common/host_memory.h"
#include "coordinator/auth/tls_context.h"
#include "proto/control.grpc.pb.h"
#include "proto/internal_auth.h"
#include "proto/internal_tls.h"

namespace shoal::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kPollInterval = std::chrono::milliseconds(100);
constexpr auto kShutdownGrace = std::chrono::seconds(5);

struct ChildProcess {
  std::string name;
  pid_t pid = -1;
  std::string logPath;
  bool running = true;
  std::vector<std::string> arguments;  // to start it again
  Clock::time_point startedAt = Clock::now();
  /// A worker that died is started again at restartAt, after a backoff that doubles while it keeps dying.
  std::optional<Clock::time_point> restartAt;
  std::chrono::seconds backoff{0};
  int restarts = 0;
};

/// Starts `arguments` as a child whose output goes to `logPath` and which gets
/// SIGTERM if this process dies.
ChildProcess spawn(const std::string& name, const std::vector<std::string>& arguments, const std::string& logPath) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    throw std::runtime_error(fmt::format("cannot start {}: fork failed", name));
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);  // the parent died before prctl took effect
    unblockTerminationSignals();
    int log = open(logPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log >= 0) {
      dup2(log, STDOUT_FILENO);
      dup2(log, STDERR_FILENO);
    }
    int devNull = open("/dev/null", O_RDONLY);
    if (devNull >= 0) dup2(devNull, STDIN_FILENO);
    std::vector<char*> argv;
    for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  ChildProcess child;
  child.name = name;
  child.pid = pid;
  child.logPath = logPath;
  child.arguments = arguments;
  return child;
}

// A worker that ran this long before it died starts over at the shortest backoff.
constexpr auto kStableRun = std::chrono::seconds(60);
constexpr auto kFirstBackoff = std::chrono::seconds(1);
constexpr auto kMaxBackoff = std::chrono::seconds(30);

std::string tailOfFile(const std::string& path, size_t maxLines) {
  std::ifstream file(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) {
    lines.push_back(line);
    if (lines.size() > maxLines) lines.erase(lines.begin());
  }
  std::string tail;
  for (const auto& line : lines) tail += "    " + line + "\n";
  return tail;
}

std::string describeExit(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("was killed by signal {}", WTERMSIG(status));
  return "stopped";
}

/// Reaps children that exited; returns the ones that did, with how they ended.
std::vector<std::pair<ChildProcess*, int>> reapExited(std::vector<ChildProcess>& children) {
  std::vector<std::pair<ChildProcess*, int>> exited;
  for (auto& child : children) {
    if (!child.running) continue;
    int status = 0;
    if (waitpid(child.pid, &status, WNOHANG) == child.pid) {
      child.running = false;
      exited.emplace_back(&child, status);
    }
  }
  return exited;
}

void stopAll(std::vector<ChildProcess>& children) {
  // Workers first, so that they can deregister from a coordinator that still listens.
  for (auto it = children.rbegin(); it != children.rend(); ++it) {
    if (it->running) kill(it->pid, SIGTERM);
  }
  auto deadline = Clock::now() + kShutdownGrace;
  while (Clock::now() < deadline) {
    reapExited(children);
    bool anyRunning = std::any_of(children.begin(), children.end(), [](auto& child) { return child.running; });
    if (!anyRunning) return;
    std::this_thread::sleep_for(kPollInterval);
  }
  for (auto& child : children) {
    if (child.running) {
      std::cerr << fmt::format("shoal local: {} did not stop within {} s; killing it\n", child.name,
                               kShutdownGrace.count());
      kill(child.pid, SIGKILL);
      waitpid(child.pid, nullptr, 0);
      child.running = false;
    }
  }
}

int countLiveWorkers(proto::Control::Stub& stub) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
  proto::ListNodesResponse response;
  if (!stub.ListNodes(&context, proto::ListNodesRequest(), &response).ok()) return -1;
  int live = 0;
  for (const auto& node : response.nodes()) {
    live += node.role() == "worker" && node.state() == "up";
  }
  return live;
}

/// Loads TPC-H at the options' scale factor unless the cluster already has it (a restart over the same data
/// directory), showing progress. The load runs beside a watch for Ctrl-C and dying children. Returns 0, or
/// the exit code after stopping everything.
int loadTpchOnFirstStart(const LocalClusterOptions& options, uint16_t pgPort, std::vector<ChildProcess>& children) {
  try {
    runSqlStatement(options.host, pgPort, "SELECT count(*) FROM lineitem", [](const std::string&) {});
    std::cout << "TPC-H is already loaded in " << options.dataDir << std::endl;
    return 0;
  } catch (const std::exception&) {
    // No lineitem yet: load it.
  }
  std::cout << fmt::format("loading TPC-H scale factor {} (first start only; --tpch 0 skips it) ...",
                           options.tpchScaleFactor)
            << std::endl;
  std::atomic<bool> done = false;
  std::string error;
  std::thread loader([&] {
    try {
      runSqlStatement(options.host, pgPort, fmt::format("CALL tpch_load({})", options.tpchScaleFactor),
                      [](const std::string& notice) { std::cout << "  " << notice << std::endl; });
    } catch (const std::exception& failure) {
      error = failure.what();
    }
    done = true;
  });
  while (!done) {
    if (auto signal = waitForTerminationSignal(kPollInterval)) {
      std::cout << fmt::format("shoal local: stopping on {} during the TPC-H load",
                               signal == SIGINT ? "SIGINT" : "SIGTERM")
                << std::endl;
      stopAll(children);  // the coordinator's exit ends the loader's connection
      loader.join();
      return 1;
    }
  }
  loader.join();
  if (!error.empty()) {
    std::cerr << "shoal local: loading TPC-H failed: " << error << "; the cluster runs without it" << std::endl;
  }
  return 0;
}

}  // namespace

/// tpchgen-cli on PATH, else in the .venv that `make` creates (looked for above the executable and the working
/// directory).
std::string findTpchGenerator(const std::string& shoalExecutable) {
  if (const char* path = std::getenv("PATH")) {
    std::string_view paths(path);
    while (!paths.empty()) {
      size_t colon = paths.find(':');
      fs::path candidate = fs::path(paths.substr(0, colon)) / "tpchgen-cli";
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      if (colon == std::string_view::npos) break;
      paths.remove_prefix(colon + 1);
    }
  }
  for (fs::path start : {fs::absolute(shoalExecutable).parent_path(), fs::current_path()}) {
    for (fs::path directory = start; !directory.empty(); directory = directory.parent_path()) {
      fs::path candidate = directory / ".venv" / "bin" / "tpchgen-cli";
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      if (directory == directory.parent_path()) break;
    }
  }
  return "tpchgen-cli";
}

int runLocalCluster(const LocalClusterOptions& options, const std::string& shoalExecutable) {
  fs::path dataDir = fs::absolute(options.dataDir);
  fs::path logDir = dataDir / "logs";
  fs::create_directories(logDir);
  fs::path portFile = dataDir / "coordinator.ports.json";
  fs::remove(portFile);

  std::vector<ChildProcess> children;
  auto fail = [&](const std::string& message) {
    std::cerr << "shoal local: " << message << "\n";
    stopAll(children);
    return 1;
  };
  // One secret for the whole local cluster, made on the first start and kept with its data.
  fs::path secretFile = dataDir / "cluster-secret";
  if (!fs::exists(secretFile)) proto::writeClusterSecretFile(secretFile.string());
  proto::installClusterSecret(proto::readClusterSecretFile(secretFile.string()));
  // With --internal-tls, one cluster CA and node certificate, made on the first start and kept with the data.
  std::vector<std::string> internalTlsArguments;
  if (options.internalTls) {
    const fs::path certificates = dataDir / "internal-tls";
    if (!fs::exists(certificates / "node.crt")) {
      fs::create_directories(certificates);
      coordinator::writeClusterCertificates(certificates.string(), {options.host});
    }
    internalTlsArguments = {"--cluster-ca", (certificates / "ca.crt").string(),
                            "--node-cert",  (certificates / "node.crt").string(),
                            "--node-key",   (certificates / "node.key").string()};
    proto::installInternalTls(internalTlsArguments[1], internalTlsArguments[3], internalTlsArguments[5]);
  }

  // The processes share this host's memory: three quarters of it (or of the cgroup's limit) by default, a
  // fifth of that for the coordinator's results and gathers, the rest split among the workers. Each budget
  // holds all of its process's queries; a query past it fails with 53200 before the kernel kills anything.
  const uint64_t hostBudgetMb =
      options.memoryBudgetMb != 0 ? options.memoryBudgetMb : usableHostMemoryBytes() / 4 * 3 >> 20;
  const uint64_t coordinatorBudgetMb = std::max<uint64_t>(1, hostBudgetMb / 5);
  const uint64_t workerBudgetMb = std::max<uint64_t>(
      1, (hostBudgetMb - coordinatorBudgetMb) / static_cast<uint64_t>(std::max(1, options.numWorkers)));
  std::vector<std::string> coordinatorArguments = {shoalExecutable,
                                                   "--log-level",
                                                   options.logLevel,
                                                   "coordinator",
                                                   "--cluster-id",
                                                   options.clusterId,
                                                   "--pg-host",
                                                   options.host,
                                                   "--pg-port",
                                                   std::to_string(options.pgPort),
                                                   "--control-host",
                                                   options.host,
                                                   "--control-port",
                                                   "0",
                                                   "--port-file",
                                                   portFile.string(),
                                                   "--data-dir",
                                                   (dataDir / "coordinator").string(),
                                                   "--cluster-secret-file",
                                                   secretFile.string(),
                                                   "--client-startup-timeout",
                                                   std::to_string(options.clientStartupTimeoutSeconds),
                                                   "--max-startup-connections",
                                                   std::to_string(options.maxStartupConnections),
                                                   "--memory-budget-mb",
                                                   std::to_string(coordinatorBudgetMb)};
  for (const auto& [flag, file] : {std::pair<std::string, std::string>{"--hba-file", options.hbaFile},
                                   {"--tls-cert", options.tlsCertificateFile},
                                   {"--tls-key", options.tlsKeyFile}}) {
    if (file.empty()) continue;
    coordinatorArguments.push_back(flag);
    coordinatorArguments.push_back(fs::absolute(file).string());
  }
  coordinatorArguments.insert(coordinatorArguments.end(), internalTlsArguments.begin(), internalTlsArguments.end());
  children.push_back(spawn("coordinator", coordinatorArguments, (logDir / "coordinator.log").string()));

  // The coordinator writes its bound ports once it serves; wait for them.
  auto deadline = Clock::now() + std::chrono::seconds(options.startupTimeoutSeconds);
  nlohmann::json ports;
  while (true) {
    if (waitForTerminationSignal(std::chrono::milliseconds(0))) return fail("interrupted during startup");
    for (auto& [child, status] : reapExited(children)) {
      return fail(fmt::format("the coordinator {} during startup; the end of {}:\n{}", describeExit(status),
                              child->logPath, tailOfFile(child->logPath, 10)));
    }
    if (fs::exists(portFile)) {
      std::ifstream(portFile) >> ports;
      break;
    }
    if (Clock::now() > deadline) return fail("the coordinator did not start in time; see " + children[0].logPath);
    std::this_thread::sleep_for(kPollInterval);
  }
  int pgPort = ports.at("pg_port").get<int>();
  std::string controlAddress = fmt::format("{}:{}", options.host, ports.at("control_port").get<int>());
  std::string tpchGenerator =
      options.tpchGenerator.empty() ? findTpchGenerator(shoalExecutable) : options.tpchGenerator;

  for (int i = 1; i <= options.numWorkers; ++i) {
    std::string name = fmt::format("worker-{}", i);
    std::vector<std::string> workerArguments = {shoalExecutable,
                                                "--log-level",
                                                options.logLevel,
                                                "worker",
                                                "--coordinator",
                                                controlAddress,
                                                "--cluster-id",
                                                options.clusterId,
                                                "--listen-host",
                                                options.host,
                                                "--node-name",
                                                name,
                                                "--numa-nodes",
                                                std::to_string(options.numaNodes),
                                                "--data-dir",
                                                (dataDir / name).string(),
                                                "--threads",
                                                std::to_string(options.threads),
                                                "--memory-budget-mb",
                                                std::to_string(workerBudgetMb),
                                                "--transport",
                                                options.transport,
                                                "--net-schedule",
                                                options.netSchedule,
                                                "--cluster-secret-file",
                                                secretFile.string(),
                                                "--tpchgen",
                                                tpchGenerator};
    if (options.messageBytes != 0) {
      workerArguments.push_back("--message-bytes");
      workerArguments.push_back(std::to_string(options.messageBytes));
    }
    workerArguments.insert(workerArguments.end(), internalTlsArguments.begin(), internalTlsArguments.end());
    children.push_back(spawn(name, workerArguments, (logDir / (name + ".log")).string()));
  }

  auto channel = proto::createInternalChannel(controlAddress);
  auto stub = proto::Control::NewStub(channel);
  while (countLiveWorkers(*stub) < options.numWorkers) {
    if (waitForTerminationSignal(std::chrono::milliseconds(0))) return fail("interrupted during startup");
    for (auto& [child, status] : reapExited(children)) {
      return fail(fmt::format("{} {} during startup; the end of {}:\n{}", child->name, describeExit(status),
                              child->logPath, tailOfFile(child->logPath, 10)));
    }
    if (Clock::now() > deadline)
      return fail("the workers did not register in time; see the logs in " + logDir.string());
    std::this_thread::sleep_for(kPollInterval);
  }

  if (options.tpchScaleFactor > 0) {
    if (int code = loadTpchOnFirstStart(options, pgPort, children); code != 0) return code;
  }

  std::string url = fmt::format("postgresql://shoal@{}:{}/shoal", options.host, pgPort);
  std::cout << fmt::format(
                   "Shoal is running: 1 coordinator and {} worker(s); logs in {}\n"
                   "  connect:  psql -h {} -p {} -U shoal\n"
                   "  try:      SELECT * FROM shoal_nodes;\n"
                   "            SELECT * FROM shoal_tables;\n"
                   "            SELECT count(*), sum(l_extendedprice), avg(l_discount) FROM lineitem\n"
                   "              WHERE l_shipdate <= DATE '1998-09-02';\n"
                   "  logins:   {}\n"
                   "  stop:     Ctrl-C\n",
                   options.numWorkers, logDir.string(), options.host, pgPort,
                   options.hbaFile.empty()
                       ? "trusted from this machine; to require passwords, ALTER ROLE shoal PASSWORD '...' and restart "
                         "with --hba-file (README: Security)"
                       : "as " + options.hbaFile + " says")
            << "ready: " << url << std::endl;

  while (true) {
    if (auto signal = waitForTerminationSignal(kPollInterval)) {
      std::cout << fmt::format("shoal local: stopping on {}", signal == SIGINT ? "SIGINT" : "SIGTERM") << std::endl;
      stopAll(children);
      std::cout << "shoal local: stopped" << std::endl;
      return 0;
    }
    for (auto& [child, status] : reapExited(children)) {
      std::cerr << fmt::format("shoal local: {} {}; the end of {}:\n{}", child->name, describeExit(status),
                               child->logPath, tailOfFile(child->logPath, 5));
      if (child->name == "coordinator") {
        return fail("the coordinator is gone; stopping the cluster");
      }
      if (!options.restartWorkers) continue;
      // As systemd's Restart=on-failure does for the shipped units: again, after a backoff that grows while
      // the worker keeps dying soon after it starts.
      child->backoff = Clock::now() - child->startedAt >= kStableRun || child->backoff.count() == 0
                           ? kFirstBackoff
                           : std::min(child->backoff * 2, kMaxBackoff);
      child->restartAt = Clock::now() + child->backoff;
      std::cerr << fmt::format("shoal local: restarting {} in {} s", child->name, child->backoff.count()) << std::endl;
    }
    for (auto& child : children) {
      if (child.running || !child.restartAt || Clock::now() < *child.restartAt) continue;
      ChildProcess restarted = spawn(child.name, child.arguments, child.logPath);
      restarted.backoff = child.backoff;
      restarted.restarts = child.restarts + 1;
      child = std::move(restarted);
      std::cerr << fmt::format("shoal local: restarted {} (pid {}, restart {})", child.name, child.pid, child.restarts)
                << std::endl;
    }
  }
}

}  // namespace shoal::cli
