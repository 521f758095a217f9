// Transactional DDL's side of the catalog: the changes of transactions not yet committed, recorded in the
// catalog itself (so that a coordinator that dies mid-transaction reverts them when it restarts), reverted by
// ROLLBACK, kept by COMMIT.

#include <spdlog/spdlog.h>

#include <map>

#include "coordinator/catalog/table_catalog.h"

namespace shoal::coordinator {

using json = nlohmann::json;

namespace {

/// The sections of the catalog document that DDL changes, with the fields that name an entry of each.
const std::vector<std::pair<std::string, std::vector<std::string>>>& keyedSections() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kSections = {
      {"schemas", {"name"}},
      {"tables", {"schema", "name"}},
      {"views", {"schema", "name"}},
      {"comments", {"relation_id", "column"}}};
  return kSections;
}
/// Sections changed as a whole (by CREATE ROLE, GRANT ... ON DATABASE, ...).
const std::vector<std::string>& wholeSections() {
  static const std::vector<std::string> kSections = {"roles", "database"};
  return kSections;
}

std::map<std::string, json> entriesByKey(const json& document, const std::string& section,
                                         const std::vector<std::string>& fields) {
  std::map<std::string, json> entries;
  if (!document.contains(section)) return entries;
  for (const auto& entry : document.at(section)) {
    json key = json::array();
    for (const auto& field : fields) key.push_back(entry.contains(field) ? entry.at(field) : json());
    entries[key.dump()] = entry;
  }
  return entries;
}

/// An entry as a revert compares it: a table's without its statistics, which follow its row count. Its row
/// count stays: a table that another session committed rows to since (a table the block made, or rewrote) keeps
/// the block's change rather than lose those rows.
json definitionOf(const std::string& section, const json& entry) {
  if (section != "tables" || !entry.is_object()) return entry;
  json definition = entry;
  definition.erase("column_statistics");
  return definition;
}

/// `current` with what went from `before` to `after` undone, entry by entry, where nobody changed the entry since.
json reverted(const json& current, const json& before, const json& after) {
  json patched = current;
  for (const auto& [section, fields] : keyedSections()) {
    const auto was = entriesByKey(before, section, fields);
    const auto became = entriesByKey(after, section, fields);
    auto now = entriesByKey(current, section, fields);
    std::set<std::string> keys;
    for (const auto& [key, entry] : was) keys.insert(key);
    for (const auto& [key, entry] : became) keys.insert(key);
    for (const auto& key : keys) {
      const json wasEntry = was.contains(key) ? definitionOf(section, was.at(key)) : json();
      const json becameEntry = became.contains(key) ? definitionOf(section, became.at(key)) : json();
      if (wasEntry == becameEntry) continue;
      const json nowEntry = now.contains(key) ? definitionOf(section, now.at(key)) : json();
      if (nowEntry != becameEntry) {
        spdlog::warn("catalog: {} {} changed since a transaction's DDL changed it: its ROLLBACK leaves it", section,
                     key);
        continue;
      }
      if (was.contains(key)) {
        now[key] = was.at(key);
      } else {
        now.erase(key);
      }
    }
    json rebuilt = json::array();
    for (const auto& [key, entry] : now) rebuilt.push_back(entry);
    patched[section] = std::move(rebuilt);
  }
  for (const auto& section : wholeSections()) {
    const json wasSection = before.contains(section) ? before.at(section) : json();
    const json becameSection = after.contains(section) ? after.at(section) : json();
    const json nowSection = current.contains(section) ? current.at(section) : json();
    if (wasSection != becameSection && nowSection == becameSection && !wasSection.is_null()) {
      patched[section] = wasSection;
    }
  }
  return patched;
}

/// `before` and `after` cut down to what differs: the entries a statement changed (and the whole sections it
/// did), which is all a revert needs; the catalog keeps a record per statement until the block ends.
std::pair<json, json> changedOnly(const json& before, const json& after) {
  json was = json::object();
  json became = json::object();
  for (const auto& [section, fields] : keyedSections()) {
    const auto wasEntries = entriesByKey(before, section, fields);
    const auto becameEntries = entriesByKey(after, section, fields);
    json wasChanged = json::array();
    json becameChanged = json::array();
    for (const auto& [key, entry] : wasEntries) {
      auto other = becameEntries.find(key);
      if (other == becameEntries.end() || other->second != entry) wasChanged.push_back(entry);
    }
    for (const auto& [key, entry] : becameEntries) {
      auto other = wasEntries.find(key);
      if (other == wasEntries.end() || other->second != entry) becameChanged.push_back(entry);
    }
    was[section] = std::move(wasChanged);
    became[section] = std::move(becameChanged);
  }
  for (const auto& section : wholeSections()) {
    const json wasSection = before.contains(section) ? before.at(section) : json();
    const json becameSection = after.contains(section) ? after.at(section) : json();
    if (wasSection == becameSection) continue;
    was[section] = wasSection;
    became[section] = becameSection;
  }
  return {std::move(was), std::move(became)};
}

/// The storage ids the tables of `document` use, with their entries.
std::map<uint64_t, json> storagesOf(const json& document) {
  std::map<uint64_t, json> storages;
  if (!document.contains("tables")) return storages;
  for (const auto& table : document.at("tables")) storages[table.at("storage_id").get<uint64_t>()] = table;
  return storages;
}

}  // namespace

json TableCatalog::changeableSectionsLocked() const {
  json document = documentLocked();
  json sections = json::object();
  for (const auto& [section, fields] : keyedSections()) {
    if (document.contains(section)) sections[section] = document.at(section);
  }
  for (const auto& section : wholeSections()) {
    if (document.contains(section)) sections[section] = document.at(section);
  }
  return sections;
}

void TableCatalog::beginUncommittedChange(uint64_t transactionId) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  uncommitted_.push_back(UncommittedChange{transactionId, changeableSectionsLocked(), std::nullopt});
  persistLocked(before);
}

void TableCatalog::endUncommittedChange(uint64_t transactionId) {
  std::lock_guard lock(mutex_);
  for (auto change = uncommitted_.rbegin(); change != uncommitted_.rend(); ++change) {
    if (change->transactionId != transactionId) continue;
    Snapshot before = snapshotLocked();
    auto [was, became] = changedOnly(change->before, changeableSectionsLocked());
    change->before = std::move(was);
    change->after = std::move(became);
    persistLocked(before);
    return;
  }
}

void TableCatalog::keepUncommittedChanges(uint64_t transactionId) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  const size_t erased =
      std::erase_if(uncommitted_, [&](const auto& change) { return change.transactionId == transactionId; });
  if (erased > 0) persistLocked(before);
}

std::vector<std::shared_ptr<const TableEntry>> TableCatalog::revertUncommittedChanges(uint64_t transactionId,
                                                                                      size_t keep) {
  std::lock_guard lock(mutex_);
  Snapshot before = snapshotLocked();
  std::vector<std::shared_ptr<const TableEntry>> freed = revertLocked(transactionId, keep);
  persistLocked(before);
  return freed;
}

std::vector<std::shared_ptr<const TableEntry>> TableCatalog::revertLocked(uint64_t transactionId, size_t keep) {
  std::vector<size_t> positions;
  for (size_t i = 0; i < uncommitted_.size(); ++i) {
    if (uncommitted_[i].transactionId == transactionId) positions.push_back(i);
  }
  std::vector<std::shared_ptr<const TableEntry>> freed;
  for (size_t n = positions.size(); n > keep; --n) {
    UncommittedChange& change = uncommitted_[positions[n - 1]];
    const json after = change.after ? *change.after : changeableSectionsLocked();
    const json patched = reverted(documentLocked(), change.before, after);
    // Storage the statement made (a new table's, ALTER TABLE's rewrite) that no table uses once it is undone.
    const auto had = storagesOf(change.before);
    const auto uses = storagesOf(patched);
    for (const auto& [storageId, table] : storagesOf(after)) {
      if (!had.contains(storageId) && !uses.contains(storageId)) {
        freed.push_back(std::make_shared<const TableEntry>(entryFromJson(table)));
      }
    }
    loadDocumentLocked(patched);
  }
  for (size_t n = positions.size(); n > keep; --n)
    uncommitted_.erase(uncommitted_.begin() + static_cast<ptrdiff_t>(positions[n - 1]));
  return freed;
}

size_t TableCatalog::uncommittedChanges(uint64_t transactionId) const {
  std::lock_guard lock(mutex_);
  return static_cast<size_t>(std::count_if(uncommitted_.begin(), uncommitted_.end(),
                                           [&](const auto& change) { return change.transactionId == transactionId; }));
}

void TableCatalog::recoverUncommittedChanges(const std::function<bool(uint64_t)>& committed) {
  std::lock_guard lock(mutex_);
  if (uncommitted_.empty()) return;
  Snapshot before = snapshotLocked();
  std::vector<uint64_t> transactions;
  for (auto change = uncommitted_.rbegin(); change != uncommitted_.rend(); ++change) {
    if (std::find(transactions.begin(), transactions.end(), change->transactionId) == transactions.end()) {
      transactions.push_back(change->transactionId);
    }
  }
  for (uint64_t transactionId : transactions) {
    if (committed(transactionId)) {
      spdlog::info("catalog: transaction {} committed before the restart: its DDL stays", transactionId);
      std::erase_if(uncommitted_, [&](const auto& change) { return change.transactionId == transactionId; });
      continue;
    }
    spdlog::info("catalog: transaction {} did not commit before the restart: its DDL is undone", transactionId);
    for (const auto& table : revertLocked(transactionId, 0)) {
      for (const auto& worker : table->placement) pendingDrops_[worker].push_back(table->storageId);
    }
  }
  persistLocked(before);
}

}  // namespace shoal::coordinator
