#include "common/run_on_cores.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace shoal {
namespace {

TEST(RunOnCoresTest, EveryIndexRunsExactlyOnce) {
  std::vector<std::atomic<int>> calls(100);
  runOnCores(calls.size(), [&](size_t i) { ++calls[i]; });
  for (size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i].load(), 1) << "index " << i;
}

TEST(RunOnCoresTest, NothingToDoCallsNothing) {
  runOnCores(0, [](size_t) { FAIL() << "called"; });
}

TEST(RunOnCoresTest, AFailureIsRethrownOnceTheOthersHaveRun) {
  // A commit that fails on one table still lets the other tables finish before the error goes up.
  std::atomic<int> finished{0};
  EXPECT_THROW(runOnCores(8,
                          [&](size_t i) {
                            if (i == 2) throw std::runtime_error("table 2 failed");
                            ++finished;
                          }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 7);
}

}  // namespace
}  // namespace shoal
