#include "scheduler/query_execution.h"

#include "common/check.h"
#include "scheduler/dispatcher.h"

namespace shoal::scheduler {

void WorkerContext::checkCancelled() const {
  if (cancelled()) SHOAL_USER_FAIL(SqlState::kQueryCanceled, "canceling statement due to user request");
}

QueryExecution::QueryExecution(std::vector<PipelineJob> jobs, uint32_t priority, uint64_t memoryLimitBytes,
                               MemoryTracker* memoryBudget)
    : priority_(std::max<uint32_t>(priority, 1)), memory_(memoryLimitBytes, memoryBudget) {
  for (auto& job : jobs) {
    auto state = std::make_unique<JobState>();
    state->job = std::move(job);
    state->waitingFor = state->job.dependencies.size() + (state->job.gate ? 1 : 0);
    jobs_.push_back(std::move(state));
  }
  for (size_t i = 0; i < jobs_.size(); ++i) {
    for (size_t dependency : jobs_[i]->job.dependencies) {
      SHOAL_CHECK_LT(dependency, jobs_.size(), "pipeline dependency");
      jobs_[dependency]->dependents.push_back(i);
    }
  }
  jobsLeft_ = jobs_.size();
}

void QueryExecution::cancel(Status reason) {
  fail(reason);
  if (dispatcher_ != nullptr) dispatcher_->reap(shared_from_this());
}

void QueryExecution::abandon() {
  cancel(Status(SqlState::kQueryCanceled, "canceling statement due to user request"));
  try {
    wait();
  } catch (const ShoalError&) {
  }
}

void QueryExecution::fail(const Status& status) {
  {
    std::lock_guard lock(mutex_);
    if (!firstError_) firstError_ = status;
  }
  cancelled_.store(true, std::memory_order_relaxed);
}

void QueryExecution::completeLocked() {
  std::lock_guard lock(mutex_);
  completed_ = true;
  finishedCondition_.notify_all();
}

bool QueryExecution::done() const {
  std::lock_guard lock(mutex_);
  return completed_;
}

void QueryExecution::wait() {
  std::unique_lock lock(mutex_);
  finishedCondition_.wait(lock, [&] { return completed_; });
  if (firstError_) throw ShoalError(*firstError_);
}

bool QueryExecution::waitFor(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!finishedCondition_.wait_for(lock, timeout, [&] { return completed_; })) return false;
  if (firstError_) throw ShoalError(*firstError_);
  return true;
}

void QueryExecution::makeReadyLocked(size_t index, uint32_t numaNodes) {
  JobState& state = *jobs_[index];
  if (state.job.prepare && !cancelled()) {
    try {
      state.job.morsels = state.job.prepare();
    } catch (const ShoalError& error) {
      fail(error.status());
    }
  }
  state.queues.assign(numaNodes, {});
  for (const auto& morsel : state.job.morsels) state.queues[morsel.numaNode % numaNodes].push_back(morsel);
  state.next = std::make_unique<std::atomic<size_t>[]>(numaNodes);
  for (uint32_t node = 0; node < numaNodes; ++node) state.next[node].store(0);
  state.unfinished.store(state.job.morsels.size());
  state.ready = true;
}

std::optional<std::pair<size_t, Morsel>> QueryExecution::claimLocked(uint32_t node) {
  if (cancelled()) return std::nullopt;
  for (size_t index = 0; index < jobs_.size(); ++index) {
    JobState& state = *jobs_[index];
    if (!state.ready || state.finished) continue;
    size_t numaNodes = state.queues.size();
    // The thread's own node first, then the others in turn (stealing).
    for (size_t offset = 0; offset < numaNodes; ++offset) {
      size_t queue = (node + offset) % numaNodes;
      size_t position = state.next[queue].fetch_add(1, std::memory_order_relaxed);
      if (position < state.queues[queue].size()) return std::pair{index, state.queues[queue][position]};
    }
  }
  return std::nullopt;
}

}  // namespace shoal::scheduler
