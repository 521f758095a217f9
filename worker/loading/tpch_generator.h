#pragma once

#include <filesystem>
#include <mutex>
#include <string>

namespace shoal::worker {

/// A scratch directory for generated files, in memory (/dev/shm) when the
/// machine has it, removed with everything in it on destruction.
class ScratchDirectory {
 public:
  explicit ScratchDirectory(const std::string& prefix);
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// A running tpchgen-cli for part `part` of `parts` of every TPC-H table,
/// writing dbgen-identical .tbl files under `directory` (see outputPath). One
/// process for all tables, because each start costs about a second of CPU.
/// It writes one table at a time, each as "<file>.inprogress" renamed when
/// complete, so that readers can follow a file while it grows. Fails with
/// 58030 when the generator cannot start; the destructor kills a generator
/// still running.
class TpchGeneratorProcess {
 public:
  TpchGeneratorProcess(const std::string& generator, double scaleFactor, uint32_t part, uint32_t parts,
                       uint32_t threads, const std::filesystem::path& directory);
  ~TpchGeneratorProcess();
  TpchGeneratorProcess(const TpchGeneratorProcess&) = delete;
  TpchGeneratorProcess& operator=(const TpchGeneratorProcess&) = delete;

  /// The complete file of `table` (nation and region come only with part 1).
  std::filesystem::path outputPath(const std::string& table) const;
  /// True once the process has exited; thread-safe.
  bool exited();
  /// Waits for the process to exit; fails with 58030 unless it succeeded.
  void wait();

 private:
  /// Reaps the process if it has exited (blocking when `block`); mutex_ held.
  void reapLocked(bool block);

  std::filesystem::path directory_;
  uint32_t part_;
  uint32_t parts_;
  pid_t pid_ = -1;
  std::mutex mutex_;
  bool exited_ = false;  // guarded by mutex_
  int status_ = 0;       // guarded by mutex_
};

}  // namespace shoal::worker
