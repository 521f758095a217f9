#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "etcd/etcd_client.h"

namespace shoal::coordinator {

class MemberRegistry;

/// Membership from etcd (`--etcd`): each worker keeps a leased key under the cluster's members/ prefix,
/// and this feeds the MemberRegistry from them. It lists the prefix and then watches it, so joins and
/// departures (a lease that expired) arrive as events, without polling. When the watch breaks because
/// etcd went away, the registry keeps its last view, and once etcd answers again this lists and watches
/// anew and calls `onEtcdBack` (the coordinator republishes its catalog if etcd lost it). A worker missing
/// from that new listing gets its lease TTL (plus a second) to register again, as it does when etcd came
/// back without its data, before it is marked down.
class EtcdMembership {
 public:
  EtcdMembership(etcd::EtcdClient& client, std::string clusterId, MemberRegistry& registry,
                 std::function<void()> onEtcdBack);
  ~EtcdMembership();

  /// Reads the members once (failing with 08006 when etcd cannot be reached) and starts watching.
  void start();

 private:
  using Clock = std::chrono::steady_clock;

  /// Lists the members into the registry and returns the revision to watch from. Workers that are missing
  /// are marked down at once, or after `afterOutage` only once their grace has passed.
  int64_t synchronize(bool afterOutage);
  void apply(const std::vector<etcd::WatchEvent>& events);
  void watchLoop(int64_t firstRevision);
  /// Marks down the missing workers whose grace has passed; returns the next grace deadline.
  std::optional<Clock::time_point> expireGraceLocked();

  etcd::EtcdClient& client_;
  const std::string clusterId_;
  const std::string prefix_;
  MemberRegistry& registry_;
  const std::function<void()> onEtcdBack_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wakeUp_;
  bool stopping_ = false;                                // guarded by mutex_
  bool watchBroken_ = false;                             // guarded by mutex_
  std::string watchError_;                               // guarded by mutex_
  std::map<std::string, int64_t> leaseTtlSeconds_;       // by worker; guarded by mutex_
  std::map<std::string, Clock::time_point> graceUntil_;  // missing workers; guarded by mutex_
};

}  // namespace shoal::coordinator
