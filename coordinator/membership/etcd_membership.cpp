#include "coordinator/membership/etcd_membership.h"

#include <set>

#include <spdlog/spdlog.h>

#include "common/status.h"
#include "coordinator/membership/member_registry.h"
#include "etcd/cluster_keys.h"
#include "proto/control_protocol.h"

namespace shoal::coordinator {
namespace {

constexpr auto kRetryDelay = std::chrono::milliseconds(500);

}  // namespace

EtcdMembership::EtcdMembership(etcd::EtcdClient& client, std::string clusterId, MemberRegistry& registry,
                               std::function<void()> onEtcdBack)
    : client_(client),
      clusterId_(std::move(clusterId)),
      prefix_(etcd::membersPrefix(clusterId_)),
      registry_(registry),
      onEtcdBack_(std::move(onEtcdBack)) {}

EtcdMembership::~EtcdMembership() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wakeUp_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EtcdMembership::start() {
  int64_t revision = synchronize(false);
  spdlog::info("membership from etcd at {} under {}: {} worker(s) registered", client_.endpoints(), prefix_,
               registry_.etcdMemberNames().size());
  thread_ = std::thread([this, revision] { watchLoop(revision + 1); });
}

int64_t EtcdMembership::synchronize(bool afterOutage) {
  int64_t revision = 0;
  std::vector<etcd::WatchEvent> present;
  for (auto& kv : client_.getPrefix(prefix_, &revision)) present.push_back(etcd::WatchEvent{false, std::move(kv)});
  std::set<std::string> names;
  for (const auto& event : present) names.insert(event.kv.key.substr(prefix_.size()));
  for (const auto& name : registry_.etcdMemberNames()) {
    if (names.contains(name)) continue;
    if (!afterOutage) {
      spdlog::warn("worker {} is no longer registered in etcd: marked down", name);
      registry_.lostFromEtcd(name);
      continue;
    }
    // Its key went while etcd was away, or etcd lost it with its data: a live worker registers again
    // within its lease TTL.
    std::lock_guard lock(mutex_);
    auto ttl = leaseTtlSeconds_.contains(name) ? leaseTtlSeconds_[name] : 5;
    graceUntil_[name] = Clock::now() + std::chrono::seconds(ttl + 1);
    spdlog::warn("worker {} is not registered in etcd after its outage: down unless it registers within {} s", name,
                 ttl + 1);
  }
  apply(present);
  return revision;
}

void EtcdMembership::apply(const std::vector<etcd::WatchEvent>& events) {
  for (const auto& event : events) {
    std::string name = event.kv.key.substr(prefix_.size());
    if (event.deleted) {
      spdlog::warn("worker {} left etcd (lease expired or revoked)", name);
      registry_.lostFromEtcd(name);
      continue;
    }
    auto record = etcd::MemberRecord::fromJson(event.kv.value);
    if (!record) {
      spdlog::error("ignoring the etcd key {}: not a member record", event.kv.key);
      continue;
    }
    if (record->protocolVersion != proto::kControlProtocolVersion) {
      spdlog::error("ignoring worker {} at {}: it speaks control protocol {}, this coordinator speaks {}", name,
                    record->address, record->protocolVersion, proto::kControlProtocolVersion);
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      leaseTtlSeconds_[name] = record->leaseTtlSeconds;
      graceUntil_.erase(name);
    }
    uint32_t nodeId = registry_.joinFromEtcd(name, record->address, record->exchangeAddress, record->draining);
    spdlog::info("worker {} {} as node {} at {} (from etcd)", name, record->draining ? "is draining" : "is up", nodeId,
                 record->address);
  }
}

void EtcdMembership::watchLoop(int64_t firstRevision) {
  int64_t startRevision = firstRevision;
  int failures = 0;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    std::unique_ptr<etcd::EtcdClient::Watch> watch;
    try {
      if (startRevision == 0) {
        startRevision = synchronize(true) + 1;
        spdlog::info("etcd at {} answers again: membership resynchronized", client_.endpoints());
        if (onEtcdBack_) onEtcdBack_();
      }
      watch = client_.watchPrefix(
          prefix_, startRevision, [this](const std::vector<etcd::WatchEvent>& events) { apply(events); },
          [this](const std::string& error) {
            std::lock_guard guard(mutex_);
            watchBroken_ = true;
            watchError_ = error;
            wakeUp_.notify_all();
          });
      failures = 0;
    } catch (const ShoalError& error) {
      if (failures++ % 20 == 0) spdlog::warn("membership: {}", error.status().message());
    }
    lock.lock();
    if (watch) {
      while (!stopping_ && !watchBroken_) {
        if (auto deadline = expireGraceLocked()) {
          wakeUp_.wait_until(lock, *deadline);
        } else {
          wakeUp_.wait(lock);
        }
      }
      if (watchBroken_ && !stopping_) {
        spdlog::warn("the membership watch on etcd at {} broke ({}); the last view stays until etcd answers",
                     client_.endpoints(), watchError_);
      }
      watchBroken_ = false;
      lock.unlock();
      watch.reset();  // joins the watch's thread, so without the lock
      lock.lock();
    } else {
      wakeUp_.wait_for(lock, kRetryDelay, [this] { return stopping_; });
    }
    startRevision = 0;  // list again before watching: events may have been missed
  }
}

std::optional<EtcdMembership::Clock::time_point> EtcdMembership::expireGraceLocked() {
  std::optional<Clock::time_point> next;
  const auto now = Clock::now();
  for (auto it = graceUntil_.begin(); it != graceUntil_.end();) {
    if (it->second <= now) {
      spdlog::warn("worker {} did not register again in etcd: marked down", it->first);
      registry_.lostFromEtcd(it->first);
      it = graceUntil_.erase(it);
    } else {
      next = next ? std::min(*next, it->second) : it->second;
      ++it;
    }
  }
  return next;
}

}  // namespace shoal::coordinator
