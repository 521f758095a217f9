#pragma once

#include <csignal>
#include <cstdlib>
#include <string_view>

namespace shoal {

/// A test hook for the commit protocol's crash tests: when the environment variable SHOAL_FAULT_POINT names
/// `point`, the process kills itself there with SIGKILL, as `kill -9` would. Unset (the default), it costs a
/// comparison. The points are listed in docs/transactions.md.
inline void faultPoint(std::string_view point) {
  static const char* const configured = std::getenv("SHOAL_FAULT_POINT");
  if (configured != nullptr && point == configured) std::raise(SIGKILL);
}

}  // namespace shoal
