#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace shoal::coordinator {

/// One node as the membership view shows it.
struct MemberSnapshot {
  uint32_t nodeId;
  std::string nodeName;
  std::string role;             // "coordinator" or "worker"
  std::string address;          // host:port
  std::string exchangeAddress;  // host:port of a worker's exchange multiplexer
  std::string state;            // "up", "down" (heartbeats stopped) or "left" (deregistered)
  double secondsSinceHeartbeat;
};

/// The embedded membership of workers (used when no etcd is configured):
/// registrations and heartbeats arrive over gRPC; a worker whose last heartbeat
/// is older than the timeout is down. Thread-safe.
class MemberRegistry {
 public:
  using Clock = std::chrono::steady_clock;

  explicit MemberRegistry(std::chrono::milliseconds heartbeatTimeout) : heartbeatTimeout_(heartbeatTimeout) {}

  /// Adds a worker, or renews one that registers again under the same name
  /// (it keeps its node id). Returns the node id.
  uint32_t registerWorker(const std::string& nodeName, const std::string& address,
                          const std::string& exchangeAddress = "");
  /// Records a heartbeat; false when the node id is unknown (the worker must register again).
  bool heartbeat(uint32_t nodeId);
  /// Marks a worker as having left on purpose; false when unknown.
  bool deregister(uint32_t nodeId);

  /// The address clients use to reach the coordinator, shown as node 0.
  void setCoordinatorAddress(const std::string& address);
  /// Every node: the coordinator (node 0) first, then the workers by node id.
  std::vector<MemberSnapshot> nodes() const;
  size_t numLiveWorkers() const;

 private:
  struct Member {
    std::string nodeName;
    std::string address;
    std::string exchangeAddress;
    Clock::time_point lastHeartbeat;
    bool left = false;
  };

  std::string stateOfLocked(const Member& member, Clock::time_point now) const;

  const std::chrono::milliseconds heartbeatTimeout_;
  mutable std::mutex mutex_;
  std::map<uint32_t, Member> members_;  // guarded by mutex_
  uint32_t nextNodeId_ = 1;             // guarded by mutex_; node 0 is the coordinator
  std::string coordinatorAddress_;      // guarded by mutex_
};

}  // namespace shoal::coordinator
