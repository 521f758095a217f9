// The morsel dispatcher: every morsel once, build before probe, NUMA-local
// first, queries sharing threads by priority, cancellation within 100 ms,
// errors and the memory limit ending a query cleanly.
#include "scheduler/dispatcher.h"

#include <gtest/gtest.h>

#include <thread>

#include "common/stopwatch.h"

namespace shoal::scheduler {
namespace {

using namespace std::chrono_literals;

std::vector<Morsel> morsels(size_t count, uint32_t numaNodes = 1) {
  std::vector<Morsel> result;
  for (size_t i = 0; i < count; ++i) result.push_back({i, static_cast<uint32_t>(i % numaNodes)});
  return result;
}

TEST(DispatcherTest, EveryMorselRunsExactlyOnceAndFinishRunsAfterTheLast) {
  Dispatcher dispatcher(4, NumaTopology::fake(1));
  constexpr size_t kMorsels = 5000;
  std::vector<std::atomic<int>> runs(kMorsels);
  std::atomic<bool> finishedEarly{false};
  std::atomic<int> finishes{0};
  PipelineJob job;
  job.morsels = morsels(kMorsels);
  job.runMorsel = [&](const Morsel& morsel, WorkerContext&) { runs[morsel.index].fetch_add(1); };
  job.finish = [&] {
    for (auto& count : runs) finishedEarly = finishedEarly || count.load() != 1;
    finishes.fetch_add(1);
  };
  std::vector<PipelineJob> jobs;
  jobs.push_back(std::move(job));
  dispatcher.submit(std::move(jobs))->wait();
  EXPECT_EQ(finishes.load(), 1);
  EXPECT_FALSE(finishedEarly.load());
  for (auto& count : runs) ASSERT_EQ(count.load(), 1);
}

TEST(DispatcherTest, AProbeWaitsForItsBuildAndLearnsItsMorselsThen) {
  Dispatcher dispatcher(2, NumaTopology::fake(1));
  std::atomic<int> built{0};
  std::atomic<int> probedBeforeBuild{0};
  std::atomic<int> probed{0};
  std::atomic<bool> lastFinished{false};
  std::vector<PipelineJob> jobs(3);
  jobs[0].name = "build";
  jobs[0].morsels = morsels(50);
  jobs[0].runMorsel = [&](const Morsel&, WorkerContext&) {
    std::this_thread::sleep_for(100us);
    built.fetch_add(1);
  };
  jobs[1].name = "probe";
  jobs[1].dependencies = {0};
  // The probe's morsels depend on what the build produced.
  jobs[1].prepare = [&] { return morsels(static_cast<size_t>(built.load()) * 2); };
  jobs[1].runMorsel = [&](const Morsel&, WorkerContext&) {
    if (built.load() != 50) probedBeforeBuild.fetch_add(1);
    probed.fetch_add(1);
  };
  // A job with no morsels still finishes once its dependency has.
  jobs[2].name = "result";
  jobs[2].dependencies = {1};
  jobs[2].finish = [&] { lastFinished = probed.load() == 100; };
  dispatcher.submit(std::move(jobs))->wait();
  EXPECT_EQ(probedBeforeBuild.load(), 0);
  EXPECT_EQ(probed.load(), 100);
  EXPECT_TRUE(lastFinished.load());
}

TEST(DispatcherTest, ThreadsTakeMorselsOfTheirOwnNumaNodeFirst) {
  // A fake two-node topology: thread i is on node i % 2.
  Dispatcher dispatcher(2, NumaTopology::fake(2));
  std::atomic<int> local{0};
  std::atomic<int> remote{0};
  std::vector<PipelineJob> jobs(1);
  jobs[0].morsels = morsels(400, 2);
  jobs[0].runMorsel = [&](const Morsel& morsel, WorkerContext& context) {
    (morsel.numaNode == context.numaNode() ? local : remote).fetch_add(1);
    std::this_thread::sleep_for(50us);
  };
  dispatcher.submit(std::move(jobs))->wait();
  EXPECT_EQ(local.load() + remote.load(), 400);
  // Only the tail is stolen, when one node's morsels run out first.
  EXPECT_GT(local.load(), 340) << "local " << local.load() << " remote " << remote.load();
}

PipelineJob sleepingJob(size_t count, std::chrono::microseconds each, std::atomic<int>& counter) {
  PipelineJob job;
  job.morsels = morsels(count);
  job.runMorsel = [each, &counter](const Morsel&, WorkerContext& context) {
    context.checkCancelled();
    std::this_thread::sleep_for(each);
    counter.fetch_add(1);
  };
  return job;
}

TEST(DispatcherTest, ANewQueryGetsThreadsAtTheNextMorselBoundary) {
  Dispatcher dispatcher(2, NumaTopology::fake(1));
  std::atomic<int> longRuns{0};
  std::atomic<int> shortRuns{0};
  std::vector<PipelineJob> longJobs;
  longJobs.push_back(sleepingJob(400, 5ms, longRuns));
  auto longQuery = dispatcher.submit(std::move(longJobs));
  std::this_thread::sleep_for(30ms);
  std::vector<PipelineJob> shortJobs;
  shortJobs.push_back(sleepingJob(4, 1ms, shortRuns));
  Stopwatch watch;
  auto shortQuery = dispatcher.submit(std::move(shortJobs));
  ASSERT_TRUE(shortQuery->waitFor(200ms)) << "the short query waited for the long one";
  EXPECT_LT(watch.seconds(), 0.1);
  EXPECT_FALSE(longQuery->done());
  longQuery->cancel(Status(SqlState::kQueryCanceled, "enough"));
  EXPECT_THROW(longQuery->wait(), ShoalError);
}

TEST(DispatcherTest, PriorityWeighsTheShareOfThreads) {
  Dispatcher dispatcher(4, NumaTopology::fake(1));
  std::atomic<int> high{0};
  std::atomic<int> low{0};
  std::vector<PipelineJob> highJobs;
  highJobs.push_back(sleepingJob(100000, 2ms, high));
  std::vector<PipelineJob> lowJobs;
  lowJobs.push_back(sleepingJob(100000, 2ms, low));
  auto highQuery = dispatcher.submit(std::move(highJobs), 3);
  auto lowQuery = dispatcher.submit(std::move(lowJobs), 1);
  std::this_thread::sleep_for(400ms);
  int highCount = high.load();
  int lowCount = low.load();
  highQuery->cancel(Status(SqlState::kQueryCanceled, "enough"));
  lowQuery->cancel(Status(SqlState::kQueryCanceled, "enough"));
  EXPECT_THROW(highQuery->wait(), ShoalError);
  EXPECT_THROW(lowQuery->wait(), ShoalError);
  ASSERT_GT(lowCount, 0);
  double ratio = static_cast<double>(highCount) / lowCount;
  EXPECT_GT(ratio, 2.0) << highCount << " vs " << lowCount;
  EXPECT_LT(ratio, 4.5) << highCount << " vs " << lowCount;
}

TEST(DispatcherTest, CancellingReturnsWithin100MillisecondsAndFreesTheThreads) {
  Dispatcher dispatcher(2, NumaTopology::fake(1));
  std::vector<PipelineJob> jobs(1);
  jobs[0].morsels = morsels(100);
  jobs[0].runMorsel = [](const Morsel&, WorkerContext& context) {
    // A long morsel that checks between its vectors.
    for (int i = 0; i < 10000; ++i) {
      context.checkCancelled();
      std::this_thread::sleep_for(1ms);
    }
  };
  auto query = dispatcher.submit(std::move(jobs));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(dispatcher.busyThreads(), 2u);
  Stopwatch watch;
  query->cancel(Status(SqlState::kQueryCanceled, "canceling statement due to user request"));
  try {
    query->wait();
    FAIL() << "a cancelled query must not succeed";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kQueryCanceled);
  }
  EXPECT_LT(watch.seconds(), 0.1);
  EXPECT_EQ(dispatcher.busyThreads(), 0u);
  // The threads serve the next query.
  std::atomic<int> runs{0};
  std::vector<PipelineJob> next;
  next.push_back(sleepingJob(10, 0us, runs));
  dispatcher.submit(std::move(next))->wait();
  EXPECT_EQ(runs.load(), 10);
}

TEST(DispatcherTest, TheFirstErrorEndsTheQueryAndIsWhatTheWaiterSees) {
  Dispatcher dispatcher(2, NumaTopology::fake(1));
  std::atomic<int> runs{0};
  std::vector<PipelineJob> jobs(1);
  jobs[0].morsels = morsels(1000);
  jobs[0].runMorsel = [&](const Morsel& morsel, WorkerContext&) {
    runs.fetch_add(1);
    if (morsel.index == 10) SHOAL_USER_FAIL(SqlState::kDivisionByZero, "division by zero");
    std::this_thread::sleep_for(100us);
  };
  auto query = dispatcher.submit(std::move(jobs));
  try {
    query->wait();
    FAIL() << "the error must reach the waiter";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kDivisionByZero);
  }
  EXPECT_LT(runs.load(), 1000);
}

TEST(DispatcherTest, AQueryOverItsMemoryLimitFailsWith53200) {
  Dispatcher dispatcher(2, NumaTopology::fake(1));
  std::vector<PipelineJob> jobs(1);
  jobs[0].morsels = morsels(100);
  std::shared_ptr<QueryExecution> query;
  std::atomic<QueryExecution*> self{nullptr};
  jobs[0].runMorsel = [&](const Morsel&, WorkerContext&) {
    while (self.load() == nullptr) std::this_thread::yield();
    self.load()->memory().reserve(1 << 20);  // 1 MB per morsel, never released
  };
  query = dispatcher.submit(std::move(jobs), 1, 10 << 20);
  self = query.get();
  try {
    query->wait();
    FAIL() << "100 MB in a 10 MB limit must fail";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kOutOfMemory);
  }
  EXPECT_LE(query->memory().peakBytes(), 10u << 20);
}

}  // namespace
}  // namespace shoal::scheduler
