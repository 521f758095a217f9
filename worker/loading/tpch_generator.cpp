#include "worker/loading/tpch_generator.h"

#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/status.h"

extern char** environ;

namespace shoal::worker {

ScratchDirectory::ScratchDirectory(const std::string& prefix) {
  std::filesystem::path base =
      std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
  std::string pattern = (base / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    SHOAL_USER_FAIL(SqlState::kIoError, "cannot create a scratch directory in {}: {}", base.string(), strerror(errno));
  }
  path_ = pattern;
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code error;
  std::filesystem::remove_all(path_, error);
  if (error) spdlog::warn("could not remove {}: {}", path_.string(), error.message());
}

TpchGeneratorProcess::TpchGeneratorProcess(const std::string& generator, double scaleFactor, uint32_t part,
                                           uint32_t parts, uint32_t threads, const std::filesystem::path& directory)
    : directory_(directory), part_(part), parts_(parts) {
  std::vector<std::string> arguments = {generator,
                                        "tbl",
                                        "-s",
                                        fmt::format("{}", scaleFactor),
                                        "--parts",
                                        std::to_string(parts),
                                        "--part",
                                        std::to_string(part),
                                        "--num-threads",
                                        std::to_string(threads),
                                        "--output-dir",
                                        directory.string()};
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  int spawnError = posix_spawnp(&pid_, generator.c_str(), nullptr, nullptr, argv.data(), environ);
  if (spawnError != 0) {
    SHOAL_USER_FAIL(SqlState::kIoError, "cannot run the TPC-H generator \"{}\": {}", generator, strerror(spawnError));
  }
}

TpchGeneratorProcess::~TpchGeneratorProcess() {
  std::lock_guard lock(mutex_);
  if (!exited_) {
    ::kill(pid_, SIGKILL);
    reapLocked(true);
  }
}

std::filesystem::path TpchGeneratorProcess::outputPath(const std::string& table) const {
  return directory_ / table / fmt::format("{}.{}.tbl", table, part_);
}

void TpchGeneratorProcess::reapLocked(bool block) {
  if (exited_) return;
  int status = 0;
  pid_t result;
  while ((result = ::waitpid(pid_, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (result == pid_) {
    exited_ = true;
    status_ = status;
  }
}

bool TpchGeneratorProcess::exited() {
  std::lock_guard lock(mutex_);
  reapLocked(false);
  return exited_;
}

void TpchGeneratorProcess::wait() {
  std::lock_guard lock(mutex_);
  reapLocked(true);
  if (!WIFEXITED(status_) || WEXITSTATUS(status_) != 0) {
    SHOAL_USER_FAIL(SqlState::kIoError, "the TPC-H generator failed on part {}/{} (exit status {})", part_, parts_,
                    WIFEXITED(status_) ? WEXITSTATUS(status_) : -1);
  }
}

}  // namespace shoal::worker
