#include "worker/drain_gate.h"

#include "common/status.h"

namespace shoal::worker {

DrainGate::Admission DrainGate::admit() {
  std::lock_guard lock(mutex_);
  if (draining_) {
    SHOAL_USER_FAIL(SqlState::kAdminShutdown,
                    "worker \"{}\" is leaving the cluster: it finishes the work it runs and takes no new work",
                    workerName_);
  }
  ++running_;
  return Admission(*this);
}

DrainGate::Admission DrainGate::track() {
  std::lock_guard lock(mutex_);
  ++running_;
  return Admission(*this);
}

void DrainGate::startDraining() {
  std::lock_guard lock(mutex_);
  draining_ = true;
}

bool DrainGate::draining() const {
  std::lock_guard lock(mutex_);
  return draining_;
}

size_t DrainGate::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

bool DrainGate::waitUntilIdle(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return idle_.wait_for(lock, timeout, [this] { return running_ == 0; });
}

void DrainGate::release() {
  std::lock_guard lock(mutex_);
  if (--running_ == 0) idle_.notify_all();
}

}  // namespace shoal::worker
