#include "sql/binder/bind_scope.h"

#include <algorithm>

#include "common/status.h"

#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> previous(b.size() + 1);
  std::vector<size_t> current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

bool BindScope::hasRelation(std::string_view relation, std::string_view schema) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& entry) {
    return entry.relation == relation && (schema.empty() || entry.schema == schema);
  });
}

std::vector<const BindScope::Entry*> BindScope::matches(const std::string& schema, const std::string& relation,
                                                        const std::string& name) const {
  std::vector<const Entry*> found;
  for (const auto& entry : entries_) {
    if (entry.name != name) continue;
    if (relation.empty() ? entry.hiddenUnqualified : entry.relation != relation) continue;
    if (!schema.empty() && entry.schema != schema) continue;
    found.push_back(&entry);
  }
  return found;
}

engine::ExpressionPtr BindScope::resolve(const pg_query::ColumnRef& ref, const ExpressionBinder& errors,
                                         std::string_view database) const {
  const auto& fields = ref.fields();
  std::string name = fields.rbegin()->string().sval();
  std::string relation;
  std::string schema;  // schema.relation.column names the relation's schema too
  if (fields.size() >= 2) relation = fields[fields.size() - 2].string().sval();
  if (fields.size() >= 3) schema = fields[fields.size() - 3].string().sval();
  if (fields.size() == 4 && fields[0].string().sval() != database) {  // database.schema.relation.column
    errors.fail(SqlState::kFeatureNotSupported, ref.location(),
                fmt::format("cross-database references are not implemented: {}.{}.{}.{}", fields[0].string().sval(),
                            schema, relation, name));
  }
  if (fields.size() > 4) {
    errors.fail(SqlState::kSyntaxError, ref.location(), "improper qualified name (too many dotted names)");
  }
  std::string qualified = relation.empty() ? name : relation + "." + name;
  bool relationSeen = relation.empty();
  for (const BindScope* scope = this; scope != nullptr; scope = scope->outer_) {
    auto found = scope->matches(schema, relation, name);
    if (found.size() > 1) {
      errors.fail(SqlState::kAmbiguousColumn, ref.location(),
                  fmt::format("column reference \"{}\" is ambiguous", qualified));
    }
    if (found.size() == 1) return columnRef(found[0]->column);
    relationSeen = relationSeen || scope->hasRelation(relation, schema);
  }
  if (!relationSeen) {
    errors.fail(
        SqlState::kUndefinedTable, ref.location(),
        fmt::format("missing FROM-clause entry for table \"{}\"", schema.empty() ? relation : schema + "." + relation));
  }
  // Suggest the closest visible column, as PostgreSQL does.
  const Entry* closest = nullptr;
  size_t bestDistance = std::max<size_t>(2, name.size() / 3) + 1;
  for (const BindScope* scope = this; scope != nullptr; scope = scope->outer_) {
    for (const auto& entry : scope->entries_) {
      if (!relation.empty() && entry.relation != relation) continue;
      size_t distance = editDistance(name, entry.name);
      if (distance < bestDistance) {
        bestDistance = distance;
        closest = &entry;
      }
    }
  }
  std::string hint;
  if (closest != nullptr) {
    hint = fmt::format("Perhaps you meant to reference the column \"{}.{}\".", closest->relation, closest->name);
  }
  errors.fail(SqlState::kUndefinedColumn, ref.location(), fmt::format("column \"{}\" does not exist", qualified), hint);
}

}  // namespace shoal::sql
