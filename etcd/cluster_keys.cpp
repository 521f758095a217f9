#include "etcd/cluster_keys.h"

#include <nlohmann/json.hpp>

namespace shoal::etcd {

std::string clusterPrefix(const std::string& clusterId) {
  return "/shoal/" + clusterId + "/";
}

std::string membersPrefix(const std::string& clusterId) {
  return clusterPrefix(clusterId) + "members/";
}

std::string MemberRecord::toJson() const {
  return nlohmann::json{{"address", address},
                        {"exchange_address", exchangeAddress},
                        {"num_cores", numCores},
                        {"protocol_version", protocolVersion},
                        {"lease_ttl_s", leaseTtlSeconds},
                        {"draining", draining}}
      .dump();
}

std::optional<MemberRecord> MemberRecord::fromJson(const std::string& json) {
  try {
    auto document = nlohmann::json::parse(json);
    MemberRecord record;
    record.address = document.at("address");
    record.exchangeAddress = document.at("exchange_address");
    record.numCores = document.at("num_cores");
    record.protocolVersion = document.at("protocol_version");
    record.leaseTtlSeconds = document.at("lease_ttl_s");
    record.draining = document.at("draining");
    return record;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace shoal::etcd
