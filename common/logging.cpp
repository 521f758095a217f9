#include "common/logging.h"

#include <unistd.h>

#include <spdlog/sinks/stdout_color_sinks.h>

#include "common/status.h"

namespace shoal {

void initLogging(const std::string& level, const std::string& roleName) {
  auto logger = spdlog::stderr_color_mt(roleName);
  logger->set_pattern(fmt::format("%Y-%m-%d %H:%M:%S.%e %^%l%$ [{}:{}] %v", roleName, getpid()));
  auto parsedLevel = spdlog::level::from_str(level);
  if (parsedLevel == spdlog::level::off && level != "off") {
    throw ShoalError(Status(SqlState::kInvalidParameterValue, fmt::format("unknown log level: {}", level)));
  }
  logger->set_level(parsedLevel);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

}  // namespace shoal
