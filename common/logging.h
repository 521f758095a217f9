#pragma once

#include <string>

#include <spdlog/spdlog.h>

namespace shoal {

/// Configures the process-wide spdlog logger: level by name ("debug", "info",
/// "warn", "error") and a prefix naming the role, so that the interleaved
/// output of a local cluster says which process wrote each line.
void initLogging(const std::string& level, const std::string& roleName);

}  // namespace shoal
