#include "worker/loading/tpch_generator.h"

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

void generateTpchPart(const std::string& generator, double scaleFactor, uint32_t part, uint32_t parts, uint32_t threads,
                      const std::filesystem::path& directory) {
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
  pid_t pid = 0;
  int spawnError = posix_spawnp(&pid, generator.c_str(), nullptr, nullptr, argv.data(), environ);
  if (spawnError != 0) {
    SHOAL_USER_FAIL(SqlState::kIoError, "cannot run the TPC-H generator \"{}\": {}", generator, strerror(spawnError));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    SHOAL_USER_FAIL(SqlState::kIoError, "the TPC-H generator failed on part {}/{} (exit status {})", part, parts,
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
}

}  // namespace shoal::worker
