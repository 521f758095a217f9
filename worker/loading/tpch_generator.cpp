#include "worker/loading/tpch_generator.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
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

namespace {

// The generator writes megabytes at a time: a pipe this big takes a write in a few wake-ups rather than the
// default 64 KB's many. Bigger than /proc/sys/fs/pipe-max-size needs privileges, so a refusal is ignored.
constexpr int kPipeBytes = 1 << 20;

}  // namespace

TpchGeneratorProcess::TpchGeneratorProcess(const std::string& generator, double scaleFactor, uint32_t part,
                                           uint32_t parts, uint32_t threads, const std::filesystem::path& directory,
                                           const std::vector<std::string>& tables)
    : directory_(directory), part_(part), parts_(parts) {
  for (const auto& table : tables) {
    std::filesystem::create_directories(directory / table);
    const std::string pipe = outputPath(table).string() + ".inprogress";
    int fd = -1;
    if (::mkfifo(pipe.c_str(), 0600) != 0 || (fd = ::open(pipe.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
      const int error = errno;
      for (auto& [name, open] : pipes_) ::close(open);
      SHOAL_USER_FAIL(SqlState::kIoError, "cannot make the pipe {} for the TPC-H generator: {}", pipe, strerror(error));
    }
    ::fcntl(fd, F_SETPIPE_SZ, kPipeBytes);
    pipes_[table] = fd;
  }
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
    for (auto& [table, fd] : pipes_) ::close(fd);
    SHOAL_USER_FAIL(SqlState::kIoError, "cannot run the TPC-H generator \"{}\": {}", generator, strerror(spawnError));
  }
}

TpchGeneratorProcess::~TpchGeneratorProcess() {
  std::lock_guard lock(mutex_);
  if (!exited_) {
    ::kill(pid_, SIGKILL);
    reapLocked(true);
  }
  for (auto& [table, fd] : pipes_) ::close(fd);
}

int TpchGeneratorProcess::pipeOf(const std::string& table) const {
  auto it = pipes_.find(table);
  if (it == pipes_.end()) SHOAL_USER_FAIL(SqlState::kInternalError, "the TPC-H generator has no pipe for {}", table);
  return it->second;
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
  // Not a blocking waitpid under the lock: readers ask exited() meanwhile, and one stuck behind a waiter
  // would stop draining its pipe, and so the generator, which would never exit.
  while (!exited()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::lock_guard lock(mutex_);
  if (!WIFEXITED(status_) || WEXITSTATUS(status_) != 0) {
    SHOAL_USER_FAIL(SqlState::kIoError, "the TPC-H generator failed on part {}/{} (exit status {})", part_, parts_,
                    WIFEXITED(status_) ? WEXITSTATUS(status_) : -1);
  }
}

}  // namespace shoal::worker
