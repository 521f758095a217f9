#include "coordinator/catalog/etcd_catalog_store.h"

#include <map>

#include "common/status.h"
#include "etcd/etcd_client.h"

namespace shoal::coordinator {
namespace {

using nlohmann::json;

// etcd refuses transactions of more than 128 operations by default.
constexpr size_t kMaxOperationsPerTransaction = 100;

/// A key part that cannot run into the next: '/' and '%' escaped as %2F and %25.
std::string keyPart(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '/') {
      escaped += "%2F";
    } else if (c == '%') {
      escaped += "%25";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

/// "<schema>/<name>" of a table's or view's document (catalogs before schemas had tables in public).
std::string relationKey(const json& relation) {
  return keyPart(relation.value("schema", std::string("public"))) + "/" + keyPart(relation.at("name"));
}

}  // namespace

EtcdCatalogStore::EtcdCatalogStore(etcd::EtcdClient& client, std::string prefix)
    : client_(client), prefix_(std::move(prefix) + "catalog/") {}

std::string EtcdCatalogStore::describe() const {
  return "etcd at " + client_.endpoints() + " under " + prefix_;
}

std::optional<json> EtcdCatalogStore::load() {
  auto kvs = client_.getPrefix(prefix_);
  std::optional<json> meta;
  json tables = json::array();
  json views = json::array();
  try {
    for (const auto& kv : kvs) {
      std::string_view name = std::string_view(kv.key).substr(prefix_.size());
      if (name == "meta") {
        meta = json::parse(kv.value);
      } else if (name.starts_with("tables/")) {
        tables.push_back(json::parse(kv.value));
      } else if (name.starts_with("views/")) {
        views.push_back(json::parse(kv.value));
      }
    }
  } catch (const json::exception& error) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "{} is corrupted: {}", describe(), error.what());
  }
  if (!meta) {
    if (!tables.empty() || !views.empty()) {
      SHOAL_USER_FAIL(SqlState::kDataCorrupted, "{} is corrupted: relations without the meta key", describe());
    }
    return std::nullopt;
  }
  json document = *meta;
  document["tables"] = std::move(tables);
  document["views"] = std::move(views);
  return document;
}

void EtcdCatalogStore::save(const json& document) {
  std::map<std::string, std::string> wanted;
  // Everything but the tables and views, which take a key each, is in meta.
  json meta = document;
  meta.erase("tables");
  meta.erase("views");
  wanted[prefix_ + "meta"] = meta.dump();
  for (const auto& table : document.at("tables")) wanted[prefix_ + "tables/" + relationKey(table)] = table.dump();
  for (const auto& view : document.at("views")) wanted[prefix_ + "views/" + relationKey(view)] = view.dump();
  // Compared with what etcd holds now rather than what this process last wrote, so that a catalog
  // republished after etcd lost its data is written whole.
  std::map<std::string, std::string> stored;
  for (auto& kv : client_.getPrefix(prefix_)) stored[kv.key] = std::move(kv.value);
  std::vector<std::pair<std::string, std::string>> puts;
  std::vector<std::string> removals;
  for (const auto& [key, value] : wanted) {
    auto it = stored.find(key);
    if (it == stored.end() || it->second != value) puts.emplace_back(key, value);
  }
  for (const auto& [key, value] : stored) {
    if (!wanted.contains(key)) removals.push_back(key);
  }
  // One transaction for any ordinary change; only a republish of a big catalog takes several.
  while (puts.size() + removals.size() > kMaxOperationsPerTransaction) {
    std::vector<std::pair<std::string, std::string>> putBatch;
    std::vector<std::string> removalBatch;
    while (putBatch.size() + removalBatch.size() < kMaxOperationsPerTransaction) {
      if (!puts.empty()) {
        putBatch.push_back(std::move(puts.back()));
        puts.pop_back();
      } else {
        removalBatch.push_back(std::move(removals.back()));
        removals.pop_back();
      }
    }
    client_.commit(putBatch, removalBatch);
  }
  client_.commit(puts, removals);
}

}  // namespace shoal::coordinator
