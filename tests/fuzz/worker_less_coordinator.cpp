#include "tests/fuzz/worker_less_coordinator.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/logging.h"
#include "sql/parser/parsed_script.h"

namespace shoal::fuzz {

WorkerLessCoordinator& WorkerLessCoordinator::instance() {
  static WorkerLessCoordinator* coordinator = new WorkerLessCoordinator();  // lives until exit, never destroyed
  return *coordinator;
}

WorkerLessCoordinator::WorkerLessCoordinator() {
  initLogging("error", "fuzz");
  secretFile_ = (std::filesystem::temp_directory_path() / ("shoal-fuzz-secret-" + std::to_string(::getpid()))).string();
  std::ofstream(secretFile_) << "fuzz-cluster-secret-of-thirty-two-bytes!\n";
  std::filesystem::permissions(secretFile_, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  coordinator::CoordinatorOptions options;
  options.clusterId = "fuzz";
  options.pgPort = 0;
  options.controlPort = 0;
  options.memoryBudgetMb = 1024;
  // The fake workers never send a heartbeat: they must not be declared down while the fuzzer runs.
  options.heartbeatTimeoutMs = 24u * 3600 * 1000;
  options.clusterSecretFile = secretFile_;
  coordinator_ = std::make_unique<coordinator::Coordinator>(options);
  coordinator_->start();
  for (const std::string name : {"fuzz-worker-1", "fuzz-worker-2"}) {
    // Port 9 (discard) listens nowhere here: every call to these workers is refused at once.
    cluster().registry.registerWorker(name, "127.0.0.1:9", "127.0.0.1:9");
    workers_.push_back(coordinator::LiveWorker{name, "127.0.0.1:9", "127.0.0.1:9"});
  }
  loadSchema();
}

std::unique_ptr<coordinator::Session> WorkerLessCoordinator::newSession() const {
  return std::make_unique<coordinator::Session>(cluster(), sql::SessionInfo{"shoal", "shoal", 1, {}, {}, {}, {}, {}});
}

void WorkerLessCoordinator::loadSchema() {
  std::ifstream in(std::filesystem::path(SHOAL_FUZZ_DIR) / "corpus" / "schema.sql");
  std::stringstream text;
  text << in.rdbuf();
  auto script = std::make_shared<const sql::ParsedScript>(sql::ParsedScript::parse(text.str()));
  auto session = newSession();
  size_t failed = 0;
  for (size_t i = 0; i < script->numStatements(); ++i) {
    try {
      session->execute(*session->prepare(script, i), {});
    } catch (const ShoalError&) {
      ++failed;  // a view over a relation another statement failed to make, say: the rest still serves
    }
  }
  if (failed * 10 > script->numStatements()) {
    throw std::runtime_error(
        fmt::format("corpus/schema.sql: {} of {} statements failed", failed, script->numStatements()));
  }
}

}  // namespace shoal::fuzz
