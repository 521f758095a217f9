#include "coordinator/membership/member_registry.h"

namespace shoal::coordinator {

MemberRegistry::Member& MemberRegistry::memberNamedLocked(const std::string& nodeName) {
  for (auto& [nodeId, member] : members_) {
    if (member.nodeName == nodeName) return member;
  }
  Member& member = members_[nextNodeId_++];
  member.nodeName = nodeName;
  return member;
}

uint32_t MemberRegistry::nodeIdOfLocked(const Member& member) const {
  for (const auto& [nodeId, candidate] : members_) {
    if (&candidate == &member) return nodeId;
  }
  return 0;
}

std::optional<uint32_t> MemberRegistry::registerWorker(const std::string& nodeName, const std::string& address,
                                                       const std::string& exchangeAddress) {
  std::lock_guard lock(mutex_);
  Member& member = memberNamedLocked(nodeName);
  if (member.address != address && !member.address.empty()) {
    std::string state = stateOfLocked(member, Clock::now());
    if (state == "up" || state == "draining") return std::nullopt;
  }
  const uint64_t incarnation = member.incarnation + 1;
  member = Member{nodeName, address, exchangeAddress, Clock::now()};
  member.incarnation = incarnation;
  return nodeIdOfLocked(member);
}

uint32_t MemberRegistry::joinFromEtcd(const std::string& nodeName, const std::string& address,
                                      const std::string& exchangeAddress, bool draining) {
  std::lock_guard lock(mutex_);
  Member& member = memberNamedLocked(nodeName);
  const bool wasUp = member.fromEtcd && !member.lost && !member.left;
  const uint64_t incarnation = wasUp ? member.incarnation : member.incarnation + 1;
  member = Member{nodeName, address, exchangeAddress, Clock::now()};
  member.incarnation = incarnation;
  member.fromEtcd = true;
  member.draining = draining;
  return nodeIdOfLocked(member);
}

void MemberRegistry::lostFromEtcd(const std::string& nodeName) {
  std::lock_guard lock(mutex_);
  for (auto& [nodeId, member] : members_) {
    if (member.nodeName != nodeName || !member.fromEtcd) continue;
    if (member.draining) {
      member.left = true;
    } else {
      member.lost = true;
    }
    member.lastHeartbeat = Clock::now();
  }
}

std::vector<std::string> MemberRegistry::etcdMemberNames() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [nodeId, member] : members_) {
    if (member.fromEtcd && !member.lost && !member.left) names.push_back(member.nodeName);
  }
  return names;
}

bool MemberRegistry::heartbeat(uint32_t nodeId) {
  std::lock_guard lock(mutex_);
  auto it = members_.find(nodeId);
  if (it == members_.end() || it->second.left) {
    return false;
  }
  it->second.lastHeartbeat = Clock::now();
  return true;
}

bool MemberRegistry::deregister(uint32_t nodeId) {
  std::lock_guard lock(mutex_);
  auto it = members_.find(nodeId);
  if (it == members_.end()) {
    return false;
  }
  it->second.left = true;
  return true;
}

std::string MemberRegistry::stateOfLocked(const Member& member, Clock::time_point now) const {
  if (member.left) return "left";
  if (member.fromEtcd) return member.lost ? "down" : member.draining ? "draining" : "up";
  return now - member.lastHeartbeat > heartbeatTimeout_ ? "down" : "up";
}

void MemberRegistry::setCoordinatorAddress(const std::string& address) {
  std::lock_guard lock(mutex_);
  coordinatorAddress_ = address;
}

std::vector<MemberSnapshot> MemberRegistry::nodes() const {
  std::lock_guard lock(mutex_);
  auto now = Clock::now();
  std::vector<MemberSnapshot> snapshot;
  snapshot.push_back(MemberSnapshot{0, "coordinator", "coordinator", coordinatorAddress_, "", "up", 0.0});
  for (const auto& [nodeId, member] : members_) {
    double seconds = std::chrono::duration<double>(now - member.lastHeartbeat).count();
    snapshot.push_back(MemberSnapshot{nodeId, member.nodeName, "worker", member.address, member.exchangeAddress,
                                      stateOfLocked(member, now), seconds,
                                      member.incarnation > 0 ? member.incarnation - 1 : 0});
  }
  return snapshot;
}

uint64_t MemberRegistry::incarnationAt(const std::string& address) const {
  std::lock_guard lock(mutex_);
  for (const auto& [nodeId, member] : members_) {
    if (member.address == address) return member.incarnation;
  }
  return 0;
}

std::string MemberRegistry::stateOf(const std::string& nodeName) const {
  std::lock_guard lock(mutex_);
  auto now = Clock::now();
  for (const auto& [nodeId, member] : members_) {
    if (member.nodeName == nodeName) return stateOfLocked(member, now);
  }
  return "not registered";
}

size_t MemberRegistry::numLiveWorkers() const {
  std::lock_guard lock(mutex_);
  auto now = Clock::now();
  size_t live = 0;
  for (const auto& [nodeId, member] : members_) {
    live += stateOfLocked(member, now) == "up";
  }
  return live;
}

}  // namespace shoal::coordinator
