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
  if (state.job.prepare && !state.job.stream && !cancelled()) {
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
  // A streamed job's end counts as one morsel: it cannot finish before its stream is exhausted.
  state.unfinished.store(state.job.stream ? 1 : state.job.morsels.size());
  if (state.job.stream) state.job.stream->startConsuming();
  state.ready = true;
}

std::optional<std::pair<size_t, Morsel>> QueryExecution::claimLocked(uint32_t node) {
  if (cancelled()) return std::nullopt;
  // Work on the thread's own NUMA node first, streamed input before the rest (a message taken now gives its
  // buffer back sooner, and its senders go on); only then steal, in the same order.
  for (const bool steal : {false, true}) {
    for (size_t index = 0; index < jobs_.size(); ++index) {
      JobState& state = *jobs_[index];
      if (!state.job.stream || !state.ready || state.streamEnded) continue;
      if (auto claimed = claimStreamedLocked(state, node, steal)) return std::pair{index, *claimed};
    }
    for (size_t index = 0; index < jobs_.size(); ++index) {
      JobState& state = *jobs_[index];
      if (!state.ready || state.finished || state.job.stream) continue;
      const size_t numaNodes = state.queues.size();
      for (size_t offset = steal ? 1 : 0; offset < (steal ? numaNodes : 1); ++offset) {
        const size_t queue = (node + offset) % numaNodes;
        const size_t position = state.next[queue].fetch_add(1, std::memory_order_relaxed);
        if (position < state.queues[queue].size()) return std::pair{index, state.queues[queue][position]};
      }
    }
  }
  return std::nullopt;
}

std::optional<Morsel> QueryExecution::claimStreamedLocked(JobState& state, uint32_t node, bool steal) {
  try {
    if (auto taken = state.job.stream->tryTake(node, steal)) {
      state.unfinished.fetch_add(1, std::memory_order_relaxed);
      return Morsel{*taken, node};
    }
    if (!state.job.stream->exhausted()) return std::nullopt;  // more is coming: the stream wakes a thread
  } catch (const ShoalError& error) {
    fail(error.status());  // the end, completed by the claiming thread, lets the query drain
  } catch (const std::bad_alloc&) {
    fail(Status(SqlState::kOutOfMemory, "out of memory"));
  }
  state.streamEnded = true;
  Morsel end;
  end.endOfStream = true;
  end.numaNode = node;
  return end;
}

}  // namespace shoal::scheduler
