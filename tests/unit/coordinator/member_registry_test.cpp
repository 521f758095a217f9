// Embedded membership: registration, heartbeats, and a silent worker going down.
#include "coordinator/membership/member_registry.h"

#include <gtest/gtest.h>

#include <thread>

namespace shoal::coordinator {
namespace {

using namespace std::chrono_literals;

std::string stateOf(const MemberRegistry& registry, uint32_t nodeId) {
  for (const auto& node : registry.nodes()) {
    if (node.nodeId == nodeId) return node.state;
  }
  return "absent";
}

TEST(MemberRegistryTest, CoordinatorIsNodeZeroAndWorkersFollow) {
  MemberRegistry registry(1s);
  registry.setCoordinatorAddress("127.0.0.1:5433");
  uint32_t first = *registry.registerWorker("w1", "127.0.0.1:1");
  uint32_t second = *registry.registerWorker("w2", "127.0.0.1:2");
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(second, 2u);
  auto nodes = registry.nodes();
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].role, "coordinator");
  EXPECT_EQ(nodes[0].address, "127.0.0.1:5433");
  EXPECT_EQ(nodes[2].address, "127.0.0.1:2");
  EXPECT_EQ(nodes[2].nodeName, "w2");
  EXPECT_EQ(registry.numLiveWorkers(), 2u);
}

TEST(MemberRegistryTest, SilentWorkerIsDownAndHeartbeatBringsItBack) {
  MemberRegistry registry(100ms);
  uint32_t nodeId = *registry.registerWorker("w1", "a:1");
  EXPECT_EQ(stateOf(registry, nodeId), "up");
  std::this_thread::sleep_for(150ms);
  EXPECT_EQ(stateOf(registry, nodeId), "down");
  EXPECT_EQ(registry.numLiveWorkers(), 0u);
  EXPECT_TRUE(registry.heartbeat(nodeId));
  EXPECT_EQ(stateOf(registry, nodeId), "up");
}

TEST(MemberRegistryTest, ReRegistrationKeepsTheNodeId) {
  MemberRegistry registry(1s);
  uint32_t nodeId = *registry.registerWorker("w1", "a:1");
  EXPECT_EQ(registry.registerWorker("w1", "a:1"), nodeId);  // the same worker again, e.g. after a restart
  EXPECT_TRUE(registry.deregister(nodeId));
  EXPECT_EQ(registry.registerWorker("w1", "a:2"), nodeId);  // the name is free again once its worker left
  EXPECT_EQ(registry.nodes().size(), 2u);
  EXPECT_EQ(registry.nodes()[1].address, "a:2");
}

TEST(MemberRegistryTest, ALiveWorkersNameCannotBeTakenFromAnotherAddress) {
  MemberRegistry registry(100ms);
  uint32_t nodeId = *registry.registerWorker("w1", "a:1");
  EXPECT_EQ(registry.registerWorker("w1", "evil:1"), std::nullopt);
  EXPECT_EQ(registry.nodes()[1].address, "a:1");
  std::this_thread::sleep_for(150ms);  // w1 is down now: a replacement may take its name
  EXPECT_EQ(registry.registerWorker("w1", "b:1"), nodeId);
}

TEST(MemberRegistryTest, UnknownAndDeparted) {
  MemberRegistry registry(1s);
  EXPECT_FALSE(registry.heartbeat(42));
  uint32_t nodeId = *registry.registerWorker("w1", "a:1");
  EXPECT_TRUE(registry.deregister(nodeId));
  EXPECT_EQ(stateOf(registry, nodeId), "left");
  EXPECT_FALSE(registry.heartbeat(nodeId));  // it must register again
  EXPECT_FALSE(registry.deregister(99));
}

}  // namespace
}  // namespace shoal::coordinator
