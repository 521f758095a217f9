#include "coordinator/membership/member_registry.h"

namespace shoal::coordinator {

uint32_t MemberRegistry::registerWorker(const std::string& nodeName, const std::string& address,
                                        const std::string& exchangeAddress) {
  std::lock_guard lock(mutex_);
  for (auto& [nodeId, member] : members_) {
    if (member.nodeName == nodeName) {
      member.address = address;
      member.exchangeAddress = exchangeAddress;
      member.lastHeartbeat = Clock::now();
      member.left = false;
      return nodeId;
    }
  }
  uint32_t nodeId = nextNodeId_++;
  members_[nodeId] = Member{nodeName, address, exchangeAddress, Clock::now(), false};
  return nodeId;
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
                                      stateOfLocked(member, now), seconds});
  }
  return snapshot;
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
