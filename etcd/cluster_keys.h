#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace shoal::etcd {

/// Where one Shoal cluster keeps its state in etcd: every key under "/shoal/CLUSTER-ID/", so that
/// several clusters share one etcd. Workers put "members/NODE-NAME" with their lease; the catalog keeps
/// "catalog/...".
std::string clusterPrefix(const std::string& clusterId);
std::string membersPrefix(const std::string& clusterId);

/// What a worker publishes about itself under members/NODE-NAME (as JSON).
struct MemberRecord {
  std::string address;          // host:port of its gRPC services
  std::string exchangeAddress;  // host:port of its exchange multiplexer
  uint32_t numCores = 0;
  uint32_t protocolVersion = 0;  // proto::kControlProtocolVersion of the worker's build
  int64_t leaseTtlSeconds = 0;   // how long the worker may stay silent before its key goes
  bool draining = false;         // leaving on purpose: finishing its running fragments, taking no new ones

  std::string toJson() const;
  /// nullopt when `json` is not a member record.
  static std::optional<MemberRecord> fromJson(const std::string& json);
};

}  // namespace shoal::etcd
