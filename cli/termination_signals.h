#pragma once

#include <chrono>
#include <optional>

namespace shoal::cli {

/// Blocks SIGINT and SIGTERM in the calling thread and every thread it starts
/// later, so that they are only ever taken by waitForTerminationSignal().
/// Call first thing in main, before any thread exists.
void blockTerminationSignals();

/// Waits up to `timeout` for SIGINT or SIGTERM; returns the signal, or nullopt on timeout.
std::optional<int> waitForTerminationSignal(std::chrono::milliseconds timeout);

/// Restores the default signal mask (in a child process before exec).
void unblockTerminationSignals();

}  // namespace shoal::cli
