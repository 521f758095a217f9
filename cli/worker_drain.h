#pragma once

#include <chrono>
#include <string>

namespace shoal::cli {

/// `shoal worker --drain`: asks the worker serving at `address` to leave the cluster on purpose, then
/// waits until it is gone (it finishes its running work first). Prints progress; returns the exit code:
/// 0 once the worker left, 1 when it could not be asked or was still there after `timeout`. The call
/// presents the cluster secret installed in this process (proto/internal_auth.h).
int drainWorker(const std::string& address, std::chrono::seconds timeout);

}  // namespace shoal::cli
