#pragma once

#include <string>

#include "coordinator/catalog/catalog_store.h"

namespace shoal::etcd {
class EtcdClient;
}

namespace shoal::coordinator {

/// The catalog in etcd, so that a coordinator started on another host recovers every table definition and
/// the placement of every partition. One key per relation under `<prefix>catalog/` (tables/SCHEMA/NAME,
/// views/SCHEMA/NAME, with '/' in a name escaped) and a meta key with the rest (format version, id counter,
/// schemas, comments); a change writes only the keys it changed, in one etcd transaction.
class EtcdCatalogStore final : public CatalogStore {
 public:
  /// `prefix`: the cluster's key prefix, e.g. "/shoal/CLUSTER-ID/".
  EtcdCatalogStore(etcd::EtcdClient& client, std::string prefix);

  std::optional<nlohmann::json> load() override;
  void save(const nlohmann::json& document) override;
  std::string describe() const override;

 private:
  etcd::EtcdClient& client_;
  const std::string prefix_;  // <cluster prefix>catalog/
};

}  // namespace shoal::coordinator
