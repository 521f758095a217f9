#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "multiplexer/wire_format.h"

namespace shoal::multiplexer {

enum class ScheduleKind { kRoundRobin, kFree };
std::string_view scheduleKindName(ScheduleKind kind);
std::optional<ScheduleKind> parseScheduleKind(std::string_view text);

/// The round-robin network schedule of the paper's section 3.2.3. Sending
/// happens in phases: in phase k, node i sends only to (i + k) mod n, so it
/// receives only from (i - k) mod n and no link is shared. A node ends its
/// part of a phase after `messagesPerPhase` messages (or when it has nothing
/// it can send to that target) and tells every other node with a small
/// phase-done frame; all nodes move on once they have heard from everyone.
///
/// A phase-done frame also says whether its sender still has data to send.
/// When no node does, the schedule pauses instead of spinning through empty
/// phases, until local data arrives or another node's phase-done for the
/// current phase shows that someone has started it. Every node sees the same
/// flags, so every node pauses (or not) at the same phase.
///
/// Membership: a node starts the schedule once it is connected to every peer,
/// at the highest phase its peers report (all 0 in a fresh cluster; the
/// survivors' phase when a node rejoins). A running node counts a peer that
/// connects from two phases on, which is never before the phase that peer
/// starts at, so nobody waits for a vote that will not come. A lost peer is
/// no longer waited for.
///
/// This class is the schedule's logic only; the multiplexer sends the frames.
class RoundRobinSchedule {
 public:
  RoundRobinSchedule(NodeId self, uint32_t clusterNodes, uint32_t messagesPerPhase);

  /// Starts phasing at `phase` (or the highest phase peers reported, if higher).
  void start(uint64_t phase = 0);
  bool started() const { return started_; }
  uint64_t phase() const { return phase_; }
  /// The one node this node may send to in the current phase.
  NodeId target() const;
  bool paused() const { return paused_; }
  /// Whether this node's part of the current phase is still open for sending.
  bool sending() const { return started_ && !paused_ && !localDone_; }
  /// How many more messages this phase allows to the target.
  uint32_t budget() const { return sending() ? messagesPerPhase_ - sentThisPhase_ : 0; }

  /// Starts the current phase because local data is waiting (no-op unless paused).
  void wake();
  void countSent() { ++sentThisPhase_; }
  /// Ends this node's part of the current phase; returns the phase-done value
  /// to send to every other node.
  uint64_t finishLocalPart(bool stillBusy);
  /// Records a peer's phase-done frame.
  void onPeerPhaseDone(NodeId peer, uint64_t value);
  /// A connected peer's current phase (sent once a connection is up): a node
  /// that has not started yet starts no lower than that.
  void onPeerPhase(uint64_t phase);
  /// Moves to the next phase if everyone is done with this one; true when it did.
  bool advanceIfComplete();

  /// This node's phase-done value for the current phase, once it has sent it
  /// (a peer that connects later needs it too).
  std::optional<uint64_t> localVote() const { return localDone_ ? std::optional<uint64_t>(localVote_) : std::nullopt; }

  /// A peer's connection came up (it counts from two phases on, or from the
  /// start if this node has not started) or was lost (it no longer counts).
  void setNodeAlive(NodeId node, bool alive);

 private:
  static constexpr uint64_t kNever = ~uint64_t{0};
  struct PhaseVotes {
    std::vector<bool> voted;  // by node: a repeated frame (after a reconnect) counts once
    bool anyBusy = false;
  };

  void vote(uint64_t phase, NodeId node, bool busy);

  NodeId self_;
  uint32_t nodes_;
  uint32_t messagesPerPhase_;
  bool started_ = false;
  uint64_t phase_ = 0;
  uint64_t highestPeerPhase_ = 0;
  uint32_t sentThisPhase_ = 0;
  bool localDone_ = false;
  uint64_t localVote_ = 0;
  bool paused_ = true;
  /// From which phase on each node's vote is needed (kNever: not connected).
  std::vector<uint64_t> countsFrom_;
  std::map<uint64_t, PhaseVotes> votes_;
};

}  // namespace shoal::multiplexer
