#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

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

/// A running tpchgen-cli for part `part` of `parts` of the TPC-H tables
/// `tables`, writing dbgen-identical .tbl text. One process for all tables,
/// because each start costs about a second of CPU (the generator's text pool).
///
/// The generator writes each table's "<file>.inprogress" (see outputPath), and
/// each of those is a named pipe this class made and opened for reading before
/// the generator started: the text goes straight from the generator to the
/// parsers, with no file written, read back and deleted, and a parser that
/// falls behind holds the generator back. Fails with 58030 when the generator
/// cannot start; the destructor kills a generator still running.
class TpchGeneratorProcess {
 public:
  TpchGeneratorProcess(const std::string& generator, double scaleFactor, uint32_t part, uint32_t parts,
                       uint32_t threads, const std::filesystem::path& directory,
                       const std::vector<std::string>& tables);
  ~TpchGeneratorProcess();
  TpchGeneratorProcess(const TpchGeneratorProcess&) = delete;
  TpchGeneratorProcess& operator=(const TpchGeneratorProcess&) = delete;

  /// The file name the generator gives `table`'s text, for messages.
  std::filesystem::path outputPath(const std::string& table) const;
  /// The non-blocking read end of `table`'s pipe. A read gives 0 both before
  /// the generator opened the pipe and after it closed it; only poll's POLLHUP
  /// (a writer came and went) or the generator's exit tell the end.
  int pipeOf(const std::string& table) const;
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
  std::map<std::string, int> pipes_;  // by table
  pid_t pid_ = -1;
  std::mutex mutex_;
  bool exited_ = false;  // guarded by mutex_
  int status_ = 0;       // guarded by mutex_
};

}  // namespace shoal::worker
