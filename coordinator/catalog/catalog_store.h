#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace shoal::coordinator {

/// Where the catalog's durable copy lives. After every change the catalog hands its store the whole
/// document (format_version, next_id, tables, views); a store keeps it as one file, or as a key per
/// relation in etcd.
class CatalogStore {
 public:
  virtual ~CatalogStore() = default;
  /// The stored document, or nullopt when nothing is stored yet.
  virtual std::optional<nlohmann::json> load() = 0;
  /// Replaces the stored document, or fails leaving the stored one as it was.
  virtual void save(const nlohmann::json& document) = 0;
  /// Where the catalog is kept, for messages.
  virtual std::string describe() const = 0;
};

/// The catalog as one JSON file in the coordinator's data directory: each change is written to a new
/// file, synced and renamed over the old one, so a crash leaves either the old catalog or the new.
class FileCatalogStore final : public CatalogStore {
 public:
  explicit FileCatalogStore(std::filesystem::path file) : file_(std::move(file)) {}

  std::optional<nlohmann::json> load() override;
  void save(const nlohmann::json& document) override;
  std::string describe() const override { return "catalog file " + file_.string(); }

 private:
  const std::filesystem::path file_;
};

}  // namespace shoal::coordinator
