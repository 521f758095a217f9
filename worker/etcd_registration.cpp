#include "worker/etcd_registration.h"

#include <spdlog/spdlog.h>

#include "common/status.h"

namespace shoal::worker {
namespace {

constexpr auto kRetryDelay = std::chrono::milliseconds(500);
// Log an unreachable etcd on the first failure and then every this many.
constexpr int kLogEveryAttempts = 20;

}  // namespace

EtcdRegistration::EtcdRegistration(std::string endpoints, etcd::EtcdSecurity security, const std::string& clusterId,
                                   std::string nodeName, etcd::MemberRecord record, int64_t ttlSeconds)
    // Each call waits at most a third of the TTL, so that a slow etcd still leaves time to renew.
    : client_(std::move(endpoints), std::chrono::milliseconds(std::max<int64_t>(500, ttlSeconds * 1000 / 3)),
              std::move(security)),
      key_(etcd::membersPrefix(clusterId) + nodeName),
      ttlSeconds_(ttlSeconds),
      record_(std::move(record)) {}

EtcdRegistration::~EtcdRegistration() {
  stopRenewing();
}

void EtcdRegistration::start() {
  thread_ = std::thread([this] { renewLoop(); });
}

void EtcdRegistration::renewLoop() {
  const auto renewInterval = std::chrono::milliseconds(ttlSeconds_ * 1000 / 3);
  int failedAttempts = 0;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    int64_t lease = lease_;
    etcd::MemberRecord record = record_;
    lock.unlock();
    bool ok = true;
    try {
      if (lease == 0) {
        int64_t granted = client_.grantLease(ttlSeconds_);
        client_.put(key_, record.toJson(), granted);
        lease = granted;  // only once the key is there (a lease granted without it simply expires)
        spdlog::info("registered in etcd at {} as {} (lease {:x}, TTL {} s)", client_.endpoints(), key_, lease,
                     ttlSeconds_);
      } else if (!client_.keepAlive(lease)) {
        spdlog::warn("etcd no longer knows lease {:x} (it expired while etcd was out of reach): registering again",
                     lease);
        lease = 0;
      }
      failedAttempts = 0;
    } catch (const ShoalError& error) {
      ok = false;
      if (failedAttempts++ % kLogEveryAttempts == 0) spdlog::warn("etcd: {}", error.status().message());
    }
    lock.lock();
    lease_ = lease;
    if (ok && lease == 0) continue;  // register again right away
    wakeUp_.wait_for(lock, ok ? renewInterval : std::chrono::duration_cast<std::chrono::milliseconds>(kRetryDelay),
                     [this] { return stopping_; });
  }
}

void EtcdRegistration::announceDraining() {
  std::unique_lock lock(mutex_);
  if (record_.draining) return;
  record_.draining = true;
  int64_t lease = lease_;
  std::string value = record_.toJson();
  lock.unlock();
  if (lease == 0) return;  // the renewal thread registers with draining set
  try {
    client_.put(key_, value, lease);
  } catch (const ShoalError& error) {
    spdlog::warn("could not announce draining in etcd: {}", error.status().message());
  }
}

void EtcdRegistration::stopRenewing() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wakeUp_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EtcdRegistration::leave() {
  stopRenewing();
  int64_t lease;
  {
    std::lock_guard lock(mutex_);
    lease = std::exchange(lease_, 0);
  }
  if (lease == 0) return;
  try {
    client_.revokeLease(lease);
    spdlog::info("left the cluster: lease {:x} revoked in etcd", lease);
  } catch (const ShoalError& error) {
    spdlog::warn("left the cluster without revoking lease {:x} (it expires by itself): {}", lease,
                 error.status().message());
  }
}

}  // namespace shoal::worker
