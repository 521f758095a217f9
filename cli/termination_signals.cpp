#include "cli/termination_signals.h"

#include <signal.h>

#include <cerrno>

namespace shoal::cli {
namespace {

sigset_t terminationSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

void blockTerminationSignals() {
  sigset_t signals = terminationSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // A client that disconnects mid-write must not kill the process.
  signal(SIGPIPE, SIG_IGN);
}

std::optional<int> waitForTerminationSignal(std::chrono::milliseconds timeout) {
  sigset_t signals = terminationSignals();
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  timespec wait{static_cast<time_t>(seconds.count()),
                static_cast<long>(std::chrono::duration_cast<std::chrono::nanoseconds>(timeout - seconds).count())};
  int signal = sigtimedwait(&signals, nullptr, &wait);
  if (signal < 0) {
    return std::nullopt;  // EAGAIN (timeout) or EINTR
  }
  return signal;
}

void unblockTerminationSignals() {
  sigset_t signals = terminationSignals();
  pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_DFL);
}

}  // namespace shoal::cli
