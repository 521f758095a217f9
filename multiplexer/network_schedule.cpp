#include "multiplexer/network_schedule.h"

#include <algorithm>

#include "common/check.h"

namespace shoal::multiplexer {

std::string_view scheduleKindName(ScheduleKind kind) {
  return kind == ScheduleKind::kRoundRobin ? "round-robin" : "free";
}

std::optional<ScheduleKind> parseScheduleKind(std::string_view text) {
  if (text == "round-robin") return ScheduleKind::kRoundRobin;
  if (text == "free") return ScheduleKind::kFree;
  return std::nullopt;
}

RoundRobinSchedule::RoundRobinSchedule(NodeId self, uint32_t clusterNodes, uint32_t messagesPerPhase)
    : self_(self), nodes_(clusterNodes), messagesPerPhase_(messagesPerPhase), countsFrom_(clusterNodes, kNever) {
  SHOAL_CHECK(clusterNodes >= 2 && self < clusterNodes, "round-robin schedule needs 2+ nodes");
  SHOAL_CHECK(messagesPerPhase > 0, "messages per phase must be positive");
  countsFrom_[self] = 0;
}

void RoundRobinSchedule::start(uint64_t phase) {
  if (started_) return;
  started_ = true;
  phase_ = std::max({phase_, phase, highestPeerPhase_});
  votes_.erase(votes_.begin(), votes_.lower_bound(phase_));
  // A peer's vote for this phase may already be here: then it has started it.
  paused_ = votes_.find(phase_) == votes_.end();
}

NodeId RoundRobinSchedule::target() const {
  uint64_t step = 1 + phase_ % (nodes_ - 1);
  return static_cast<NodeId>((self_ + step) % nodes_);
}

void RoundRobinSchedule::wake() {
  paused_ = false;
}

uint64_t RoundRobinSchedule::finishLocalPart(bool stillBusy) {
  SHOAL_CHECK(started_ && !localDone_, "phase {} finished twice or before the start", phase_);
  localDone_ = true;
  vote(phase_, self_, stillBusy);
  localVote_ = phase_ | (stillBusy ? kPhaseBusyBit : 0);
  return localVote_;
}

void RoundRobinSchedule::vote(uint64_t phase, NodeId node, bool busy) {
  PhaseVotes& votes = votes_[phase];
  if (votes.voted.empty()) votes.voted.assign(nodes_, false);
  votes.voted[node] = true;
  votes.anyBusy |= busy;
}

void RoundRobinSchedule::onPeerPhaseDone(NodeId peer, uint64_t value) {
  uint64_t phase = value & ~kPhaseBusyBit;
  if (peer >= nodes_ || countsFrom_[peer] == kNever || phase < phase_) return;  // stale
  vote(phase, peer, (value & kPhaseBusyBit) != 0);
  if (phase == phase_) paused_ = false;  // someone started this phase: take part
}

void RoundRobinSchedule::onPeerPhase(uint64_t phase) {
  highestPeerPhase_ = std::max(highestPeerPhase_, phase);
}

bool RoundRobinSchedule::advanceIfComplete() {
  if (!started_ || !localDone_) return false;
  auto it = votes_.find(phase_);
  if (it == votes_.end()) return false;
  for (NodeId node = 0; node < nodes_; ++node) {
    if (countsFrom_[node] <= phase_ && !it->second.voted[node]) return false;
  }
  bool anyBusy = it->second.anyBusy;
  votes_.erase(it);
  ++phase_;
  sentThisPhase_ = 0;
  localDone_ = false;
  // Pause when nobody had more to send, unless someone has already started
  // (and voted in) the new phase while we were still finishing the old one.
  paused_ = !anyBusy && votes_.find(phase_) == votes_.end();
  return true;
}

void RoundRobinSchedule::setNodeAlive(NodeId node, bool alive) {
  if (node >= nodes_ || node == self_) return;
  countsFrom_[node] = !alive ? kNever : (started_ ? phase_ + 2 : 0);
}

}  // namespace shoal::multiplexer
