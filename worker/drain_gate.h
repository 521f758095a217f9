#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <utility>

namespace shoal::worker {

/// Counts the calls a worker is serving, so that a worker leaving on purpose (SIGTERM, or
/// `shoal worker --drain`) can refuse new work and wait for the work it runs to finish before it leaves
/// the cluster. Thread-safe.
class DrainGate {
 public:
  /// Holds one call's place; the call counts as running until this goes.
  class Admission {
   public:
    explicit Admission(DrainGate& gate) : gate_(&gate) {}
    Admission(Admission&& other) noexcept : gate_(std::exchange(other.gate_, nullptr)) {}
    Admission(const Admission&) = delete;
    Admission& operator=(const Admission&) = delete;
    Admission& operator=(Admission&&) = delete;
    ~Admission() {
      if (gate_) gate_->release();
    }

   private:
    DrainGate* gate_;
  };

  explicit DrainGate(std::string workerName) : workerName_(std::move(workerName)) {}

  /// Admits new work (a query's fragments, a load); once draining began, fails with 57P01 naming the worker.
  Admission admit();
  /// Admits work that belongs to something already running (rows routed by a load in progress): counted,
  /// never refused.
  Admission track();

  /// Refuses new work from now on.
  void startDraining();
  bool draining() const;
  size_t running() const;
  /// Waits until no admitted call runs; false when `timeout` passed first.
  bool waitUntilIdle(std::chrono::milliseconds timeout);

 private:
  void release();

  const std::string workerName_;
  mutable std::mutex mutex_;
  std::condition_variable idle_;
  size_t running_ = 0;     // guarded by mutex_
  bool draining_ = false;  // guarded by mutex_
};

}  // namespace shoal::worker
