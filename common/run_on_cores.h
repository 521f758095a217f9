#pragma once

#include <cstddef>
#include <functional>

namespace shoal {

/// Calls task(0), ..., task(count - 1), on as many threads as there are cores (the caller's one of them), each
/// taking the next index when done with one. Returns when every call has; then rethrows the first exception
/// any call threw, if one did.
void runOnCores(size_t count, const std::function<void(size_t)>& task);

}  // namespace shoal
