#pragma once

#include <string>
#include <vector>

namespace shoal::cli {

/// Replaces this process with the repository's Python `script` (a path relative
/// to the repository root, e.g. "bench/tpch_bench.py") run by the repository's
/// .venv interpreter, with `arguments`. The repository is the first directory
/// above the shoal executable (then above the working directory) that holds
/// both. Returns only on failure, with a message on stderr and exit code 2.
int execRepoScript(const std::string& shoalExecutable, const std::string& script,
                   const std::vector<std::string>& arguments);

}  // namespace shoal::cli
