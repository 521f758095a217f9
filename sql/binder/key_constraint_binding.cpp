// CREATE TABLE's PRIMARY KEY and UNIQUE constraints: their columns, their names as PostgreSQL chooses them,
// and the default distribution that lets the workers check them locally.

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/table_statement_binder.h"

namespace shoal::sql {

namespace {

/// PostgreSQL's identifiers are at most NAMEDATALEN - 1 bytes.
constexpr size_t kMaxIdentifierBytes = 63;

/// The first `length` bytes of `text`, fewer if they would end inside a UTF-8 character (pg_mbcliplen).
std::string clipped(const std::string& text, size_t length) {
  length = std::min(length, text.size());
  while (length > 0 && length < text.size() && (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) --length;
  return text.substr(0, length);
}

/// PostgreSQL's makeObjectName: "name1_name2_label", the longer of the two names shortened until it fits.
std::string makeObjectName(const std::string& name1, const std::string& name2, const std::string& label) {
  const size_t overhead = label.size() + 1 + (name2.empty() ? 0 : 1);
  const size_t available = kMaxIdentifierBytes - overhead;
  size_t length1 = name1.size();
  size_t length2 = name2.size();
  while (length1 + length2 > available) {
    if (length1 > length2) {
      --length1;
    } else {
      --length2;
    }
  }
  std::string name = clipped(name1, length1);
  if (!name2.empty()) name += "_" + clipped(name2, length2);
  return name + "_" + label;
}

}  // namespace

TableStatementBinder::DeclaredKey TableStatementBinder::declaredKey(const pg_query::Constraint& constraint,
                                                                    std::vector<std::string> columns) const {
  const std::string_view kind = constraint.contype() == pg_query::CONSTR_PRIMARY ? "PRIMARY KEY" : "UNIQUE";
  if (constraint.deferrable() || constraint.initdeferred()) {
    fail(SqlState::kFeatureNotSupported, constraint.location(),
         fmt::format("DEFERRABLE {} constraints are not supported: keys are checked at each statement's end", kind));
  }
  if (constraint.nulls_not_distinct()) {
    fail(SqlState::kFeatureNotSupported, constraint.location(), "UNIQUE NULLS NOT DISTINCT is not supported");
  }
  if (constraint.including_size() > 0) {
    fail(SqlState::kFeatureNotSupported, constraint.location(), fmt::format("{} ... INCLUDE is not supported", kind));
  }
  return DeclaredKey{constraint.contype() == pg_query::CONSTR_PRIMARY, constraint.conname(), std::move(columns),
                     constraint.location()};
}

void TableStatementBinder::bindKeys(const std::vector<DeclaredKey>& keys, CreateTable& bound) const {
  auto columnIndex = [&](const std::string& name, int location) -> size_t {
    for (size_t i = 0; i < bound.columns.size(); ++i) {
      if (bound.columns[i].name == name) return i;
    }
    fail(SqlState::kUndefinedColumn, location, fmt::format("column \"{}\" named in key does not exist", name));
  };
  auto columnsOf = [&](const DeclaredKey& key) {
    std::vector<size_t> columns;
    for (const auto& name : key.columns) columns.push_back(columnIndex(name, key.location));
    return columns;
  };
  const DeclaredKey* primary = nullptr;
  for (const auto& key : keys) {
    if (!key.primary) continue;
    if (primary != nullptr) {
      fail(SqlState::kInvalidTableDefinition, key.location,
           fmt::format("multiple primary keys for table \"{}\" are not allowed", bound.name.name));
    }
    primary = &key;
  }
  if (primary != nullptr) {
    bound.primaryKey = columnsOf(*primary);
    for (size_t column : bound.primaryKey) bound.notNull[column] = true;
  }

  // A UNIQUE constraint over the columns of an earlier key (in the same order) is that key, as in PostgreSQL;
  // an unnamed earlier one takes its name.
  std::vector<std::pair<std::vector<size_t>, const DeclaredKey*>> unique;
  for (const auto& key : keys) {
    if (key.primary) continue;
    std::vector<size_t> columns = columnsOf(key);
    if (columns == bound.primaryKey) continue;
    auto prior = std::find_if(unique.begin(), unique.end(), [&](const auto& entry) { return entry.first == columns; });
    if (prior == unique.end()) {
      unique.emplace_back(std::move(columns), &key);
    } else if (prior->second->name.empty()) {
      prior->second = &key;
    }
  }
  if (unique.size() > kMaxUniqueConstraints) {
    fail(SqlState::kFeatureNotSupported, unique[kMaxUniqueConstraints].second->location,
         fmt::format("a table can have at most {} UNIQUE constraints", kMaxUniqueConstraints));
  }

  // Names are relation names of the schema: an unnamed key takes <table>_<columns>_key, numbered when taken.
  // CREATE TABLE IF NOT EXISTS of a table that exists skips (with a NOTICE): its own keys' names are no clash.
  const bool skipped = bound.ifNotExists && catalog_.findTable(bound.name).has_value();
  std::set<std::string> taken = {bound.name.name};
  for (const auto& relation : catalog_.relationVisibility()) {
    if (relation.schema == bound.name.schema) taken.insert(relation.name);
  }
  if (!bound.primaryKey.empty()) taken.insert(bound.name.name + "_pkey");
  for (auto& [columns, key] : unique) {
    std::string name = key->name;
    if (!name.empty()) {
      if (taken.contains(name) && !skipped) {
        fail(SqlState::kDuplicateTable, key->location, fmt::format("relation \"{}\" already exists", name));
      }
    } else {
      std::string columnPart;
      for (size_t column : columns) {
        columnPart += (columnPart.empty() ? "" : "_") + bound.columns[column].name;
      }
      columnPart = clipped(columnPart, kMaxIdentifierBytes);
      for (int pass = 0; name.empty() || taken.contains(name); ++pass) {
        name = makeObjectName(bound.name.name, columnPart, pass == 0 ? "key" : fmt::format("key{}", pass));
      }
    }
    taken.insert(name);
    bound.uniqueKeys.push_back(UniqueConstraint{name, columns});
  }

  // Hash distribution on the columns all keys share lets each worker check every key on its own rows.
  std::vector<std::vector<size_t>> all;
  if (!bound.primaryKey.empty()) all.push_back(bound.primaryKey);
  for (const auto& key : bound.uniqueKeys) all.push_back(key.columns);
  if (all.empty()) return;
  std::vector<size_t> shared;
  for (size_t column : all[0]) {
    if (std::all_of(all.begin(), all.end(),
                    [&](const auto& key) { return std::find(key.begin(), key.end(), column) != key.end(); })) {
      shared.push_back(column);
    }
  }
  bound.distribution = DistributionSpec{DistributionSpec::Kind::kHash, shared.empty() ? all[0] : shared};
}

}  // namespace shoal::sql
