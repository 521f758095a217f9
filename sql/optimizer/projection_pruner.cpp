#include "sql/optimizer/projection_pruner.h"
#include "common/status.h"

#include <algorithm>
#include <map>

#include "sql/optimizer/interrupts.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_walker.h"
#include "sql/plan/volatile_calls.h"

namespace shoal::sql {

namespace {

void prune(LogicalOperator& op, std::set<ColumnId> required) {
  switch (op.kind()) {
    case LogicalOperatorKind::kScan: {
      auto& scan = static_cast<LogicalScan&>(op);
      for (const auto& filter : scan.filters) collectColumns(*filter, required);
      std::vector<PlanColumn> columns;
      std::vector<size_t> tableColumns;
      for (size_t i = 0; i < scan.columns.size(); ++i) {
        if (!required.contains(scan.columns[i].id)) continue;
        columns.push_back(scan.columns[i]);
        tableColumns.push_back(scan.tableColumns[i]);
      }
      scan.columns = std::move(columns);
      scan.tableColumns = std::move(tableColumns);
      return;
    }
    case LogicalOperatorKind::kProject: {
      auto& project = static_cast<LogicalProject&>(op);
      LogicalProject kept;
      std::set<ColumnId> childRequired;
      for (size_t i = 0; i < project.ids.size(); ++i) {
        if (!required.contains(project.ids[i])) continue;
        collectColumns(*project.expressions[i], childRequired);
        kept.expressions.push_back(std::move(project.expressions[i]));
        kept.ids.push_back(project.ids[i]);
        kept.names.push_back(project.names[i]);
      }
      project.expressions = std::move(kept.expressions);
      project.ids = std::move(kept.ids);
      project.names = std::move(kept.names);
      prune(*project.children[0], std::move(childRequired));
      return;
    }
    case LogicalOperatorKind::kAggregate: {
      auto& aggregate = static_cast<LogicalAggregate&>(op);
      std::erase_if(aggregate.aggregates, [&](const AggregateCall& call) { return !required.contains(call.id); });
      std::set<ColumnId> childRequired;
      for (const auto& group : aggregate.groups) collectColumns(*group, childRequired);
      for (const auto& call : aggregate.aggregates) {
        forEachAggregateInput(call, [&](const engine::Expression& input) { collectColumns(input, childRequired); });
      }
      prune(*aggregate.children[0], std::move(childRequired));
      return;
    }
    case LogicalOperatorKind::kUnionAll: {
      for (auto& child : op.children) prune(*child, outputIds(*child));
      return;
    }
    case LogicalOperatorKind::kWindow:
      std::erase_if(static_cast<LogicalWindow&>(op).calls,
                    [&](const WindowCall& call) { return !required.contains(call.id); });
      [[fallthrough]];
    default: {
      // Filters, joins, sorts and limits pass columns through: add what they read themselves.
      forEachExpression(op, [&](const engine::Expression& expression) { collectColumns(expression, required); });
      for (auto& child : op.children) {
        std::set<ColumnId> childRequired;
        for (ColumnId id : outputIds(*child)) {
          if (required.contains(id)) childRequired.insert(id);
        }
        prune(*child, std::move(childRequired));
      }
      return;
    }
  }
}

}  // namespace

void pruneColumns(LogicalOperator& root) {
  prune(root, outputIds(root));
}

namespace {

bool onlyRenames(const LogicalProject& project) {
  return std::all_of(project.expressions.begin(), project.expressions.end(),
                     [](const engine::ExpressionPtr& e) { return e->kind() == engine::ExpressionKind::kColumnRef; });
}

/// Removes the redundant projections under `op` (not `op` itself), renaming what reads them. `readers` are
/// `op` and its ancestors, innermost last: after decorrelation a column flows only upwards, so they are the
/// only operators that can read a projection's columns. Each projection is looked at once and each removal
/// rewrites only its readers' expressions, so a plan with hundreds of projections is not copied whole once
/// for each (that took 27 s for one of sqlsmith's queries).
void removeUnder(LogicalOperator& op, std::vector<LogicalOperator*>& readers, const LogicalOperator* keep) {
  checkForInterrupts();
  readers.push_back(&op);
  for (auto& child : op.children) {
    while (child->kind() == LogicalOperatorKind::kProject && op.kind() != LogicalOperatorKind::kUnionAll &&
           child.get() != keep) {
      auto& project = static_cast<LogicalProject&>(*child);
      // A projection computing a volatile function stays: each of its readers would get a copy of the call,
      // and read different values of one column (PostgreSQL does not pull such a subquery up either).
      bool mergeIntoParent =
          op.kind() == LogicalOperatorKind::kProject &&
          std::none_of(project.expressions.begin(), project.expressions.end(),
                       [](const engine::ExpressionPtr& expression) { return callsVolatile(*expression); });
      if (!mergeIntoParent && !onlyRenames(project)) break;
      std::map<ColumnId, engine::ExpressionPtr> replacements;
      std::set<ColumnId> removed(project.ids.begin(), project.ids.end());
      for (size_t i = 0; i < project.ids.size(); ++i) replacements[project.ids[i]] = std::move(project.expressions[i]);
      LogicalOperatorPtr grandchild = std::move(project.children[0]);
      child = std::move(grandchild);
      // A projection that passes a column on under the same id (the one below window functions does) still
      // produces it: what reads that id above that projection reads the projection's column, not the removed
      // one. So the readers are rewritten innermost first, and each projection shields the ids it outputs
      // from the readers above it.
      std::set<ColumnId> replaced = removed;
      for (auto reader = readers.rbegin(); reader != readers.rend() && !replaced.empty(); ++reader) {
        forEachExpression(**reader, [&](engine::ExpressionPtr& expression) {
          if (!readsAnyOf(*expression, replaced)) return;
          expression = remapColumns(*expression, [&](ColumnId id) -> engine::ExpressionPtr {
            auto found = replaced.contains(id) ? replacements.find(id) : replacements.end();
            return found == replacements.end() ? nullptr : copyExpression(*found->second);
          });
        });
        if ((*reader)->kind() == LogicalOperatorKind::kProject) {
          for (ColumnId id : static_cast<const LogicalProject&>(**reader).ids) replaced.erase(id);
        }
      }
    }
    removeUnder(*child, readers, keep);
  }
  readers.pop_back();
}

}  // namespace

void removeRedundantProjections(LogicalPlan& plan) {
  // The projection under the root's sorts, limits and filters decides the client's column order.
  const LogicalOperator* keep = plan.root.get();
  while (keep->kind() == LogicalOperatorKind::kSort || keep->kind() == LogicalOperatorKind::kLimit ||
         keep->kind() == LogicalOperatorKind::kFilter) {
    keep = keep->children[0].get();
  }
  std::vector<LogicalOperator*> readers;
  removeUnder(*plan.root, readers, keep);
}

}  // namespace shoal::sql
