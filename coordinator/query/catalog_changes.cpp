#include "coordinator/query/catalog_changes.h"

#include <mutex>
#include <shared_mutex>

#include "coordinator/query/table_commands.h"

namespace shoal::coordinator {

namespace {

thread_local DeferredStorageDrops* innermost = nullptr;

/// A block's DDL statement holds it alone while it is recorded, other DDL statements together (record()).
std::shared_mutex& ddlMutex() {
  static std::shared_mutex mutex;
  return mutex;
}

}  // namespace

DeferredStorageDrops::DeferredStorageDrops() : outer_(innermost) {
  innermost = this;
}

DeferredStorageDrops::~DeferredStorageDrops() {
  innermost = outer_;
}

DeferredStorageDrops* DeferredStorageDrops::current() {
  return innermost;
}

void BlockCatalogChanges::record(const std::function<void()>& statement) {
  std::lock_guard lock(ddlMutex());
  cluster_.tables.beginUncommittedChange(transactionId_);
  DeferredStorageDrops deferred;
  struct Ending {
    BlockCatalogChanges& changes;
    DeferredStorageDrops& deferred;
    ~Ending() {
      try {
        changes.cluster_.tables.endUncommittedChange(changes.transactionId_);
      } catch (const std::exception&) {
        // The record stays without its "after": a revert then compares with the catalog as it is.
      }
      changes.freed_.push_back(deferred.take());
    }
  } ending{*this, deferred};
  statement();
}

void BlockCatalogChanges::revertFrom(size_t first) {
  if (first >= freed_.size()) return;
  std::lock_guard lock(ddlMutex());
  // What those statements made and no table uses once they are undone (a new table's storage) goes now.
  for (const auto& table : cluster_.tables.revertUncommittedChanges(transactionId_, first)) {
    dropStorageOnWorkers(cluster_, *table, table->storageId);
  }
  freed_.resize(first);  // what they freed is in use again
}

void BlockCatalogChanges::keep() {
  if (freed_.empty()) return;
  cluster_.tables.keepUncommittedChanges(transactionId_);
  for (const auto& statement : freed_) {
    for (const auto& [table, storageId] : statement) dropStorageOnWorkers(cluster_, *table, storageId);
  }
  freed_.clear();
}

std::shared_lock<std::shared_mutex> lockDdlOutsideBlocks() {
  return std::shared_lock(ddlMutex());
}

bool changesCatalog(const sql::BoundStatement& statement) {
  return std::visit(
      [](const auto& command) {
        using Command = std::decay_t<decltype(command)>;
        return std::is_same_v<Command, sql::CreateView> || std::is_same_v<Command, sql::DropView> ||
               std::is_same_v<Command, sql::CreateTable> || std::is_same_v<Command, sql::DropTable> ||
               std::is_same_v<Command, sql::RenameTable> || std::is_same_v<Command, sql::AlterTableColumns> ||
               std::is_same_v<Command, sql::CreateTableAs> || std::is_same_v<Command, sql::TpchLoad> ||
               std::is_same_v<Command, sql::CommentOn> || std::is_same_v<Command, sql::CreateSchema> ||
               std::is_same_v<Command, sql::DropSchema> || std::is_same_v<Command, sql::CreateRole> ||
               std::is_same_v<Command, sql::AlterRole> || std::is_same_v<Command, sql::DropRole> ||
               std::is_same_v<Command, sql::GrantPrivileges> || std::is_same_v<Command, sql::GrantRoles> ||
               std::is_same_v<Command, sql::TruncateTable>;  // outside a block it gives a table new storage
      },
      statement.command);
}

}  // namespace shoal::coordinator
