#pragma once

#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <string_view>

namespace shoal {

/// A test hook for the commit protocol's crash tests: when the environment variable SHOAL_FAULT_POINT names
/// `point` and the file SHOAL_FAULT_ARMED_FILE names exists (so that a test arms it for one transaction), the
/// process kills itself there with SIGKILL, as `kill -9` would. Unset (the default), it costs a comparison.
/// The points are listed in docs/transactions.md.
inline void faultPoint(std::string_view point) {
  static const char* const configured = std::getenv("SHOAL_FAULT_POINT");
  static const char* const armedFile = std::getenv("SHOAL_FAULT_ARMED_FILE");
  if (configured == nullptr || point != configured) return;
  if (armedFile != nullptr && ::access(armedFile, F_OK) != 0) return;
  std::raise(SIGKILL);
}

}  // namespace shoal
