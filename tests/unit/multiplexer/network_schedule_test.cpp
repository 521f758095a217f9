#include "multiplexer/network_schedule.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace shoal::multiplexer {
namespace {

/// Drives n schedules as if their phase-done frames were delivered instantly.
struct Cluster {
  explicit Cluster(uint32_t nodes, uint32_t perPhase = 8) {
    for (NodeId node = 0; node < nodes; ++node) {
      schedules.emplace_back(node, nodes, perPhase);
      for (NodeId other = 0; other < nodes; ++other) schedules.back().setNodeAlive(other, true);
      schedules.back().start();
    }
  }
  void finish(NodeId node, bool busy) {
    uint64_t value = schedules[node].finishLocalPart(busy);
    for (NodeId other = 0; other < schedules.size(); ++other) {
      if (other != node) schedules[other].onPeerPhaseDone(node, value);
    }
  }
  std::vector<RoundRobinSchedule> schedules;
};

TEST(RoundRobinSchedule, EveryPhaseIsAPermutationAndEveryPairMeetsOncePerRound) {
  for (uint32_t nodes : {2u, 3u, 4u, 6u}) {
    Cluster cluster(nodes);
    std::set<std::pair<NodeId, NodeId>> pairs;
    for (uint32_t phase = 0; phase < nodes - 1; ++phase) {
      std::set<NodeId> receivers;
      for (auto& schedule : cluster.schedules) {
        schedule.wake();
        ASSERT_EQ(schedule.phase(), phase);
        receivers.insert(schedule.target());
      }
      // In one phase each node sends to one target and receives from one source: no shared links.
      EXPECT_EQ(receivers.size(), nodes);
      for (NodeId node = 0; node < nodes; ++node) {
        EXPECT_NE(cluster.schedules[node].target(), node);
        pairs.insert({node, cluster.schedules[node].target()});
        cluster.finish(node, true);
      }
      for (auto& schedule : cluster.schedules) EXPECT_TRUE(schedule.advanceIfComplete());
    }
    EXPECT_EQ(pairs.size(), nodes * (nodes - 1)) << "a round visits every ordered pair";
  }
}

TEST(RoundRobinSchedule, NobodyMovesOnBeforeEveryoneIsDone) {
  Cluster cluster(3);
  for (auto& schedule : cluster.schedules) schedule.wake();
  cluster.finish(0, true);
  cluster.finish(1, true);
  EXPECT_FALSE(cluster.schedules[0].advanceIfComplete());
  EXPECT_FALSE(cluster.schedules[2].advanceIfComplete()) << "node 2 has not finished its own part";
  cluster.finish(2, false);
  for (auto& schedule : cluster.schedules) {
    EXPECT_TRUE(schedule.advanceIfComplete());
    EXPECT_EQ(schedule.phase(), 1u);
    EXPECT_FALSE(schedule.paused()) << "someone was still busy";
  }
}

TEST(RoundRobinSchedule, IdleClusterPausesAndOnePeersPhaseWakesTheRest) {
  Cluster cluster(4);
  for (auto& schedule : cluster.schedules) schedule.wake();
  for (NodeId node = 0; node < 4; ++node) cluster.finish(node, false);
  for (auto& schedule : cluster.schedules) {
    ASSERT_TRUE(schedule.advanceIfComplete());
    EXPECT_TRUE(schedule.paused()) << "nobody had data: no spinning through empty phases";
    EXPECT_FALSE(schedule.sending());
  }
  // Node 2 gets data, runs phase 1 and tells the others, which wake up for that phase.
  cluster.schedules[2].wake();
  EXPECT_TRUE(cluster.schedules[2].sending());
  cluster.finish(2, false);
  EXPECT_FALSE(cluster.schedules[0].paused());
  EXPECT_TRUE(cluster.schedules[0].sending());
}

TEST(RoundRobinSchedule, APeerVoteForTheNextPhaseThatArrivesEarlyStillWakesUs) {
  Cluster cluster(2);
  for (auto& schedule : cluster.schedules) schedule.wake();
  cluster.finish(0, true);
  cluster.finish(1, false);
  // Node 0 moves on and finishes phase 1 before node 1 has even advanced.
  ASSERT_TRUE(cluster.schedules[0].advanceIfComplete());
  cluster.finish(0, false);
  ASSERT_TRUE(cluster.schedules[1].advanceIfComplete());
  EXPECT_FALSE(cluster.schedules[1].paused()) << "node 0 has started phase 1, so node 1 must take part";
  cluster.finish(1, false);
  EXPECT_TRUE(cluster.schedules[0].advanceIfComplete());
  EXPECT_TRUE(cluster.schedules[1].advanceIfComplete());
}

TEST(RoundRobinSchedule, NothingIsSentBeforeTheStart) {
  RoundRobinSchedule schedule(1, 2, 8);
  schedule.setNodeAlive(0, true);
  schedule.wake();
  EXPECT_FALSE(schedule.sending());
  schedule.onPeerPhase(7);
  schedule.start();
  EXPECT_EQ(schedule.phase(), 7u) << "starts where the peers are";
}

TEST(RoundRobinSchedule, BudgetLimitsMessagesPerPhase) {
  RoundRobinSchedule schedule(0, 3, 8);
  schedule.setNodeAlive(1, true);
  schedule.setNodeAlive(2, true);
  schedule.start();
  schedule.wake();
  EXPECT_EQ(schedule.budget(), 8u);
  for (int i = 0; i < 8; ++i) schedule.countSent();
  EXPECT_EQ(schedule.budget(), 0u);
}

TEST(RoundRobinSchedule, LostNodesAreNotWaitedForAndARestartedNodeJoinsWithoutDeadlock) {
  Cluster cluster(3);
  for (auto& schedule : cluster.schedules) schedule.wake();
  cluster.schedules[0].setNodeAlive(2, false);
  cluster.schedules[1].setNodeAlive(2, false);
  cluster.finish(0, true);
  cluster.finish(1, true);
  EXPECT_TRUE(cluster.schedules[0].advanceIfComplete()) << "the lost node 2 is not waited for";
  EXPECT_TRUE(cluster.schedules[1].advanceIfComplete());
  cluster.finish(0, true);  // node 0 is done with phase 1, node 1 not yet

  // Node 2 restarts: it connects to both, learns their phase, and starts there.
  RoundRobinSchedule restarted(2, 3, 8);
  restarted.setNodeAlive(0, true);
  restarted.setNodeAlive(1, true);
  cluster.schedules[0].setNodeAlive(2, true);
  cluster.schedules[1].setNodeAlive(2, true);
  restarted.onPeerPhase(cluster.schedules[0].phase());
  restarted.onPeerPhase(cluster.schedules[1].phase());
  restarted.onPeerPhaseDone(0, *cluster.schedules[0].localVote());  // resent when the link came up
  restarted.start();
  EXPECT_EQ(restarted.phase(), 1u);
  EXPECT_FALSE(restarted.paused()) << "node 0 has started phase 1";
  cluster.schedules[2] = std::move(restarted);
  // The survivors finish phase 1 without the newcomer, which still takes part.
  cluster.finish(1, true);
  cluster.finish(2, true);
  for (auto& schedule : cluster.schedules) EXPECT_TRUE(schedule.advanceIfComplete());
  // From phase 3 on everyone waits for everyone.
  for (int phase = 2; phase < 5; ++phase) {
    for (auto& schedule : cluster.schedules) schedule.wake();
    cluster.finish(0, true);
    cluster.finish(1, true);
    if (phase >= 3) {
      EXPECT_FALSE(cluster.schedules[0].advanceIfComplete()) << "waits for node 2 at " << phase;
    }
    cluster.finish(2, true);
    for (auto& schedule : cluster.schedules) EXPECT_TRUE(schedule.advanceIfComplete()) << phase;
  }
}

}  // namespace
}  // namespace shoal::multiplexer
