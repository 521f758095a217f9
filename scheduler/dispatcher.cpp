#include "scheduler/dispatcher.h"

#include <pthread.h>
#include <sched.h>

#include <limits>

#include "common/logging.h"

namespace shoal::scheduler {
namespace {

/// A morsel that threw something other than a ShoalError hit a bug (an unchecked index, a library's
/// exception): it costs its query (XX000), never the process, as PostgreSQL reports its own internal errors.
Status internalError(const std::exception& error) {
  spdlog::error("internal error in a query's morsel: {}", error.what());
  return Status(SqlState::kInternalError, fmt::format("internal error: {}", error.what()));
}

}  // namespace

Dispatcher::Dispatcher(uint32_t threads, NumaTopology topology, uint64_t memoryBudgetBytes)
    : topology_(topology), memoryBudget_(MemoryTracker::NodeBudget{}, memoryBudgetBytes) {
  uint32_t cpus = std::max<uint32_t>(std::thread::hardware_concurrency(), 1);
  if (threads == 0) threads = cpus;
  for (uint32_t i = 0; i < threads; ++i) threads_.emplace_back([this, i, cpus] { threadMain(i, i % cpus); });
}

Dispatcher::~Dispatcher() {
  std::vector<std::shared_ptr<QueryExecution>> left;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& query : queries_) query->fail(Status(SqlState::kAdminShutdown, "the worker is shutting down"));
  }
  workAvailable_.notify_all();
  for (auto& thread : threads_) thread.join();
  {
    std::lock_guard lock(mutex_);
    left.swap(queries_);
  }
  for (auto& query : left) {
    query->dispatcher_ = nullptr;
    query->completeLocked();
  }
}

void Dispatcher::reap(const std::shared_ptr<QueryExecution>& query) {
  {
    std::lock_guard lock(mutex_);
    if (!query->cancelled() || query->runningMorsels() != 0) return;
    if (std::find(queries_.begin(), queries_.end(), query) == queries_.end()) return;
    std::erase(queries_, query);
    runningQueries_.store(static_cast<uint32_t>(queries_.size()));
  }
  query->completeLocked();
}

std::shared_ptr<QueryExecution> Dispatcher::submit(std::vector<PipelineJob> jobs, uint32_t priority,
                                                   uint64_t memoryLimitBytes) {
  auto query = std::make_shared<QueryExecution>(std::move(jobs), priority, memoryLimitBytes, &memoryBudget_);
  query->dispatcher_ = this;
  {
    std::lock_guard lock(mutex_);
    if (query->jobs_.empty()) {
      query->completeLocked();
      return query;
    }
    for (size_t i = 0; i < query->jobs_.size(); ++i) {
      if (query->jobs_[i]->waitingFor == 0) query->makeReadyLocked(i, topology_.numNodes());
    }
    queries_.push_back(query);
    runningQueries_.store(static_cast<uint32_t>(queries_.size()));
  }
  workAvailable_.notify_all();
  // A stream's listener takes the lock to wake a thread, so it is set without the lock held. What arrived
  // before it was set woke no one: the threads look again once it is.
  bool streams = false;
  for (auto& job : query->jobs_) {
    if (!job->job.stream) continue;
    job->job.stream->onArrival([this] { wakeForStream(); });
    streams = true;
  }
  if (streams) {
    { std::lock_guard lock(mutex_); }
    workAvailable_.notify_all();
  }
  // Gates may open at once (input already complete) or later, from the thread that completes the input.
  for (size_t i = 0; i < query->jobs_.size(); ++i) {
    if (auto gate = query->jobs_[i]->job.gate) {
      std::weak_ptr<QueryExecution> weak = query;
      gate->whenOpen([this, weak, i] {
        if (auto alive = weak.lock()) gateOpened(alive, i);
      });
    }
  }
  // Jobs without morsels finish at once; that may ready others.
  for (size_t i = 0; i < query->jobs_.size(); ++i) {
    bool empty = false;
    {
      std::lock_guard lock(mutex_);
      auto& state = *query->jobs_[i];
      // (A streamed job is never empty: its end is a morsel of its own, which may already be running.)
      empty = state.ready && !state.finished && !state.job.stream && state.job.morsels.empty() &&
              state.unfinished.load() == 0;
      if (empty) state.unfinished.store(1);  // completeMorsel counts it down
    }
    if (empty) completeMorsel(query, i);
  }
  return query;
}

std::optional<std::tuple<std::shared_ptr<QueryExecution>, size_t, Morsel>> Dispatcher::pickLocked(uint32_t node) {
  // Serve the query with the fewest running morsels per unit of priority: elastic, priority-weighted sharing.
  std::vector<std::shared_ptr<QueryExecution>> order = queries_;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return static_cast<double>(a->runningMorsels()) / a->priority() <
           static_cast<double>(b->runningMorsels()) / b->priority();
  });
  for (auto& query : order) {
    if (auto claimed = query->claimLocked(node)) {
      query->running_.fetch_add(1, std::memory_order_relaxed);
      return std::tuple{query, claimed->first, claimed->second};
    }
  }
  return std::nullopt;
}

void Dispatcher::threadMain(uint32_t index, uint32_t cpu) {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  CPU_SET(cpu, &cpus);
  pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);  // best effort: a container may forbid it
  uint32_t node = topology_.nodeOfCpu(cpu);
  if (topology_.isFake()) node = index % topology_.numNodes();
  while (true) {
    std::optional<std::tuple<std::shared_ptr<QueryExecution>, size_t, Morsel>> task;
    {
      std::unique_lock lock(mutex_);
      workAvailable_.wait(lock, [&] { return stopping_ || (task = pickLocked(node)).has_value(); });
      if (!task && stopping_) return;
    }
    auto& [query, job, morsel] = *task;
    busy_.fetch_add(1, std::memory_order_relaxed);
    WorkerContext context(index, node, &query->cancelled_);
    try {
      engine::QueryMemoryScope memory(&query->memory());
      if (!morsel.endOfStream) query->jobs_[job]->job.runMorsel(morsel, context);
    } catch (const ShoalError& error) {
      query->fail(error.status());
    } catch (const std::bad_alloc&) {
      query->fail(Status(SqlState::kOutOfMemory, "out of memory"));
    } catch (const std::exception& error) {
      query->fail(internalError(error));
    }
    busy_.fetch_sub(1, std::memory_order_relaxed);
    query->running_.fetch_sub(1, std::memory_order_relaxed);
    completeMorsel(query, job);
  }
}

void Dispatcher::completeMorsel(const std::shared_ptr<QueryExecution>& query, size_t job) {
  auto& state = *query->jobs_[job];
  bool lastMorsel = state.unfinished.fetch_sub(1, std::memory_order_acq_rel) == 1;
  if (!lastMorsel && !query->cancelled()) return;
  if (lastMorsel && state.job.finish && !query->cancelled()) {
    try {
      engine::QueryMemoryScope memory(&query->memory());
      state.job.finish();
    } catch (const ShoalError& error) {
      query->fail(error.status());
    } catch (const std::bad_alloc&) {
      query->fail(Status(SqlState::kOutOfMemory, "out of memory"));
    } catch (const std::exception& error) {
      query->fail(internalError(error));
    }
  }
  std::vector<size_t> nowEmpty;
  bool complete = false;
  {
    std::lock_guard lock(mutex_);
    if (lastMorsel && !state.finished) {
      state.finished = true;
      --query->jobsLeft_;
      for (size_t dependent : state.dependents) dependencyMetLocked(*query, dependent, nowEmpty);
    }
    // Done when every job finished, or when cancelled and no morsel of it still runs.
    bool drained = query->cancelled() && query->runningMorsels() == 0;
    if ((query->jobsLeft_ == 0 || drained) && std::find(queries_.begin(), queries_.end(), query) != queries_.end()) {
      std::erase(queries_, query);
      runningQueries_.store(static_cast<uint32_t>(queries_.size()));
      complete = true;
    }
  }
  if (complete) {
    query->completeLocked();
    return;
  }
  workAvailable_.notify_all();
  for (size_t empty : nowEmpty) completeMorsel(query, empty);
}

void Dispatcher::dependencyMetLocked(QueryExecution& query, size_t job, std::vector<size_t>& nowEmpty) {
  auto& next = *query.jobs_[job];
  if (--next.waitingFor != 0) return;
  query.makeReadyLocked(job, topology_.numNodes());
  if (!next.job.stream && next.job.morsels.empty()) {
    next.unfinished.store(1);  // completeMorsel counts it down
    nowEmpty.push_back(job);
  }
}

void Dispatcher::wakeForStream() {
  // Runs on the thread that delivered (often the network thread), never under this lock. Taking it means no
  // thread is between its pick and its wait, so the wake-up is not lost.
  { std::lock_guard lock(mutex_); }
  workAvailable_.notify_one();
}

void Dispatcher::gateOpened(const std::shared_ptr<QueryExecution>& query, size_t job) {
  std::vector<size_t> nowEmpty;
  {
    std::lock_guard lock(mutex_);
    // A query already completed (failed, cancelled) no longer runs anything.
    if (std::find(queries_.begin(), queries_.end(), query) == queries_.end()) return;
    dependencyMetLocked(*query, job, nowEmpty);
  }
  workAvailable_.notify_all();
  for (size_t empty : nowEmpty) completeMorsel(query, empty);
}

}  // namespace shoal::scheduler
