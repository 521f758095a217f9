#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "etcd/cluster_keys.h"
#include "etcd/etcd_client.h"

namespace shoal::worker {

/// A worker's registration in etcd (`--etcd`): its MemberRecord under the cluster's members/NODE-NAME,
/// attached to a lease of `ttlSeconds` that a thread renews three times per TTL. The coordinator watches
/// the prefix: while the key exists the worker is up. When the worker cannot reach etcd for longer than
/// the TTL (its link was cut), the lease expires and the key goes; once etcd answers again, the expired
/// lease is noticed and the worker registers anew. An etcd that restarted keeps the lease (or, if it lost
/// its data, the worker registers anew the same way).
class EtcdRegistration {
 public:
  EtcdRegistration(std::string endpoints, etcd::EtcdSecurity security, const std::string& clusterId,
                   std::string nodeName, etcd::MemberRecord record, int64_t ttlSeconds);
  /// Stops renewing without leaving (the lease then expires by itself).
  ~EtcdRegistration();

  void start();
  /// Publishes that this worker is draining (best effort: logs when etcd cannot be reached).
  void announceDraining();
  /// Stops renewing and revokes the lease, so the key goes at once: the coordinator sees the worker leave.
  void leave();

 private:
  void renewLoop();
  void stopRenewing();

  etcd::EtcdClient client_;
  const std::string key_;
  const int64_t ttlSeconds_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable wakeUp_;
  etcd::MemberRecord record_;  // guarded by mutex_
  int64_t lease_ = 0;          // guarded by mutex_; 0: not registered
  bool stopping_ = false;      // guarded by mutex_
};

}  // namespace shoal::worker
