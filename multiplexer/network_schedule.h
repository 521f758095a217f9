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
/// more for that target) and tells every other node with a small phase-done
/// frame; all nodes move on once they have heard from everyone.
///
/// A phase-done frame also says whether its sender still has data queued. When
/// no node does, the schedule pauses instead of spinning through empty phases,
/// until local data arrives or another node's phase-done for the current phase
/// shows that someone has started it. Every node sees the same flags, so every
/// node pauses (or not) at the same phase.
///
/// This class is the schedule's logic only; the multiplexer sends the frames.
class RoundRobinSchedule {
 public:
  RoundRobinSchedule(NodeId self, uint32_t clusterNodes, uint32_t messagesPerPhase);

  uint64_t phase() const { return phase_; }
  /// The one node this node may send to in the current phase.
  NodeId target() const;
  bool paused() const { return paused_; }
  /// Whether this node's part of the current phase is still open for sending.
  bool sending() const { return !paused_ && !localDone_; }
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
  /// A (re)connected peer's current phase: a node that is behind, because it
  /// restarted, jumps forward to it.
  void onPeerPhase(uint64_t phase);
  /// Moves to the next phase if everyone is done with this one; true when it did.
  bool advanceIfComplete();

  /// This node's phase-done value for the current phase, once it has sent it
  /// (a peer that connects later needs it too).
  std::optional<uint64_t> localVote() const { return localDone_ ? std::optional<uint64_t>(localVote_) : std::nullopt; }

  /// Phases wait only for connected nodes: a node counts from when its
  /// connection is up until it is lost. This node always counts.
  void setNodeAlive(NodeId node, bool alive);

 private:
  struct PhaseVotes {
    std::vector<bool> voted;  // by node: a repeated frame (after a reconnect) counts once
    bool anyBusy = false;
  };

  void vote(uint64_t phase, NodeId node, bool busy);

  NodeId self_;
  uint32_t nodes_;
  uint32_t messagesPerPhase_;
  uint64_t phase_ = 0;
  uint32_t sentThisPhase_ = 0;
  bool localDone_ = false;
  uint64_t localVote_ = 0;
  bool paused_ = true;
  std::vector<bool> alive_;
  std::map<uint64_t, PhaseVotes> votes_;
};

}  // namespace shoal::multiplexer
