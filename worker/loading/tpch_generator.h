#pragma once

#include <filesystem>
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

/// Runs tpchgen-cli for part `part` of `parts` of every TPC-H table, writing
/// dbgen-identical .tbl files under `directory` (<table>/<table>.<part>.tbl;
/// nation and region come only with part 1). One process for all tables,
/// because each tpchgen-cli start costs about a second of CPU. Fails with
/// 58030 when the generator cannot run or fails.
void generateTpchPart(const std::string& generator, double scaleFactor, uint32_t part, uint32_t parts, uint32_t threads,
                      const std::filesystem::path& directory);

}  // namespace shoal::worker
