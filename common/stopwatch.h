#pragma once

#include <chrono>

namespace shoal {

/// Seconds since construction, on the monotonic clock: for progress and timing lines in logs.
class Stopwatch {
 public:
  Stopwatch() : started_(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(); }

 private:
  std::chrono::steady_clock::time_point started_;
};

}  // namespace shoal
