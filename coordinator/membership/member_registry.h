#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
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
  /// "up"; "down" (heartbeats stopped, or its etcd lease expired); "draining" (leaving on purpose, finishing
  /// its running fragments); "left" (deregistered).
  std::string state;
  double secondsSinceHeartbeat;
  /// How many times it joined again after its first registration: restarted by a supervisor, back from an
  /// outage or after leaving (shoal_nodes.rejoins).
  uint64_t rejoins = 0;
};

/// The workers the coordinator knows. Two sources feed it: the embedded membership, where registrations
/// and heartbeats arrive over gRPC and a worker whose last heartbeat is older than the timeout is down;
/// and etcd (EtcdMembership), where a worker is up while its leased key exists. Thread-safe.
class MemberRegistry {
 public:
  using Clock = std::chrono::steady_clock;

  explicit MemberRegistry(std::chrono::milliseconds heartbeatTimeout) : heartbeatTimeout_(heartbeatTimeout) {}

  /// Adds a worker, or renews one that registers again under the same name
  /// (it keeps its node id). Returns the node id, or nothing when a worker of that name is up (or draining)
  /// at another address: a newcomer may not take over a live worker's name and with it its traffic.
  std::optional<uint32_t> registerWorker(const std::string& nodeName, const std::string& address,
                                         const std::string& exchangeAddress = "");
  /// Records a heartbeat; false when the node id is unknown (the worker must register again).
  bool heartbeat(uint32_t nodeId);
  /// Marks a worker as having left on purpose; false when unknown.
  bool deregister(uint32_t nodeId);

  /// A worker's key appeared or changed in etcd: it is up (or draining), and stays so without heartbeats
  /// until lostFromEtcd. Returns its node id, kept across departures as registerWorker keeps it.
  uint32_t joinFromEtcd(const std::string& nodeName, const std::string& address, const std::string& exchangeAddress,
                        bool draining);
  /// A worker's key left etcd: its lease expired (down) or, when it was draining, it left.
  void lostFromEtcd(const std::string& nodeName);
  /// The names of the etcd-registered workers that are up or draining.
  std::vector<std::string> etcdMemberNames() const;

  /// The address clients use to reach the coordinator, shown as node 0.
  void setCoordinatorAddress(const std::string& address);
  /// Every node: the coordinator (node 0) first, then the workers by node id.
  std::vector<MemberSnapshot> nodes() const;
  size_t numLiveWorkers() const;
  /// How many times the worker at `address` has (re)joined: a worker back from an outage gets fresh
  /// connections, not ones that died with its link. 0 when no worker has that address.
  uint64_t incarnationAt(const std::string& address) const;
  /// The state of the worker of that name ("up", "down", "draining", "left"), or "not registered".
  std::string stateOf(const std::string& nodeName) const;

 private:
  struct Member {
    std::string nodeName;
    std::string address;
    std::string exchangeAddress;
    Clock::time_point lastHeartbeat;  // or, for a worker known from etcd, its last change there
    bool left = false;
    bool fromEtcd = false;  // up while its etcd key exists, whatever the heartbeats
    bool draining = false;
    bool lost = false;         // its etcd key is gone
    uint64_t incarnation = 0;  // bumped at each (re)registration and each return from down or left
  };

  /// The member of that name, or a new one with the next node id.
  Member& memberNamedLocked(const std::string& nodeName);
  uint32_t nodeIdOfLocked(const Member& member) const;

  std::string stateOfLocked(const Member& member, Clock::time_point now) const;

  const std::chrono::milliseconds heartbeatTimeout_;
  mutable std::mutex mutex_;
  std::map<uint32_t, Member> members_;  // guarded by mutex_
  uint32_t nextNodeId_ = 1;             // guarded by mutex_; node 0 is the coordinator
  std::string coordinatorAddress_;      // guarded by mutex_
};

}  // namespace shoal::coordinator
