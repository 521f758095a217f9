#include "cli/repo_script.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace shoal::cli {

namespace fs = std::filesystem;

int execRepoScript(const std::string& shoalExecutable, const std::string& script,
                   const std::vector<std::string>& arguments) {
  for (fs::path start : {fs::absolute(shoalExecutable).parent_path(), fs::current_path()}) {
    for (fs::path directory = start;; directory = directory.parent_path()) {
      fs::path python = directory / ".venv" / "bin" / "python";
      fs::path scriptPath = directory / script;
      if (fs::exists(scriptPath) && ::access(python.c_str(), X_OK) == 0) {
        std::vector<std::string> argv = {python.string(), scriptPath.string()};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        std::vector<char*> pointers;
        for (auto& argument : argv) pointers.push_back(argument.data());
        pointers.push_back(nullptr);
        ::execv(python.c_str(), pointers.data());
        std::cerr << "shoal: cannot run " << python.string() << ": " << std::strerror(errno) << std::endl;
        return 2;
      }
      if (directory == directory.parent_path()) break;
    }
  }
  std::cerr << "shoal: " << script
            << " and the repository's .venv were not found above the shoal executable or the working directory "
               "(run `make build` in the repository first)"
            << std::endl;
  return 2;
}

}  // namespace shoal::cli
