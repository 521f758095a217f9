#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "engine/expression/expression.h"
#include "sql/plan/logical_operator.h"

namespace pg_query {
class ColumnRef;
}  // namespace pg_query

namespace shoal::sql {

class ExpressionBinder;

/// The names a query's expressions can see: the columns of its FROM items,
/// each under its relation's name or alias, and through `outer` those of the
/// queries it is nested in (correlated references).
class BindScope {
 public:
  struct Entry {
    std::string relation;
    /// The name the query reads it by; column.name is what plans print (alias-qualified for self-joins).
    std::string name;
    PlanColumn column;
    /// The right-hand copy of a JOIN ... USING column: reachable qualified, not by its bare name.
    bool hiddenUnqualified = false;
    /// The schema of a table or view named without an alias, which a reference may name too
    /// (pg_catalog.pg_class.relname); empty for an alias, a subquery or a WITH query.
    std::string schema;
  };

  explicit BindScope(const BindScope* outer = nullptr) : outer_(outer) {}

  void add(std::string relation, PlanColumn column, bool hiddenUnqualified = false) {
    std::string name = column.name;
    entries_.push_back({std::move(relation), std::move(name), std::move(column), hiddenUnqualified, {}});
  }
  void add(std::string relation, std::string name, PlanColumn column, std::string schema = {}) {
    entries_.push_back({std::move(relation), std::move(name), std::move(column), false, std::move(schema)});
  }
  void add(const Entry& entry, bool hiddenUnqualified) {
    entries_.push_back(entry);
    entries_.back().hiddenUnqualified = hiddenUnqualified;
  }
  void append(const BindScope& other) {
    for (const auto& entry : other.entries_) entries_.push_back(entry);
  }
  const std::vector<Entry>& entries() const { return entries_; }
  /// Records a FROM item's name; false when an item of this scope already has it.
  bool addRelation(const std::string& relation) {
    if (std::find(relations_.begin(), relations_.end(), relation) != relations_.end()) return false;
    relations_.push_back(relation);
    return true;
  }
  const std::vector<std::string>& relations() const { return relations_; }
  const BindScope* outer() const { return outer_; }
  /// Whether a FROM item of this scope is named `relation` (and lies in `schema`, when one is given).
  bool hasRelation(std::string_view relation, std::string_view schema = {}) const;

  /// Resolves a column reference here or in an enclosing scope. Fails with
  /// 42702 (ambiguous), 42P01 (unknown qualifier) or 42703 (with a "did you
  /// mean" hint when a close name exists), at the reference's position.
  /// `database` is the session's, which a four-part name (database.schema.relation.column) must name.
  engine::ExpressionPtr resolve(const pg_query::ColumnRef& ref, const ExpressionBinder& errors,
                                std::string_view database = {}) const;

 private:
  std::vector<const Entry*> matches(const std::string& schema, const std::string& relation,
                                    const std::string& name) const;

  const BindScope* outer_;
  std::vector<Entry> entries_;
  std::vector<std::string> relations_;
};

/// Levenshtein distance, for "did you mean" hints.
size_t editDistance(std::string_view a, std::string_view b);

}  // namespace shoal::sql
