#include "sql/plan/plan_printer.h"
#include "common/status.h"

#include <cmath>

#include "common/check.h"
#include "sql/plan/expression_rewriting.h"

namespace shoal::sql {

using engine::Expression;

namespace {

std::string joinList(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

template <class Range>
std::string expressionList(const Range& expressions) {
  std::vector<std::string> items;
  for (const auto& expression : expressions) items.push_back(expression->toString());
  return joinList(items);
}

std::string aggregateText(const AggregateCall& call) {
  std::string name(engine::aggregateFunctionName(call.function));
  if (call.function == engine::AggregateFunction::kCountStar) return "count(*)";
  std::string text = name + "(" + (call.distinct ? "DISTINCT " : "") + (call.combinesPartials ? "PARTIALS " : "") +
                     call.argument->toString();
  if (call.secondArgument) text += ", " + call.secondArgument->toString();
  for (size_t i = 0; i < call.orderBy.size(); ++i) {
    const SortKey& key = call.orderBy[i];
    text += (i == 0 ? " ORDER BY " : ", ") + key.expression->toString() + (key.ascending ? "" : " DESC");
    if (key.nullsFirst == key.ascending) text += key.nullsFirst ? " NULLS FIRST" : " NULLS LAST";
  }
  return text + ")";
}

class Printer {
 public:
  Printer(bool verbose, const std::map<const LogicalOperator*, uint64_t>* actualRows)
      : verbose_(verbose), actualRows_(actualRows) {}

  void print(const LogicalOperator& op, size_t depth) {
    std::string indent = depth == 0 ? "" : std::string(depth * 6 - 4, ' ') + "->  ";
    std::string detailIndent(depth == 0 ? 2 : depth * 6 + 2, ' ');
    std::string rows = op.estimatedRows < 0 ? "rows=?" : fmt::format("rows={:.0f}", std::round(op.estimatedRows));
    if (actualRows_ != nullptr) {
      auto actual = actualRows_->find(&op);
      if (actual != actualRows_->end()) rows += fmt::format(" actual={}", actual->second);
    }
    lines_.push_back(indent + title(op) + "  (" + rows + ")");
    for (const auto& detail : details(op)) lines_.push_back(detailIndent + detail);
    if (verbose_) {
      std::vector<std::string> names;
      for (const auto& column : op.outputColumns()) names.push_back(column.name);
      lines_.push_back(detailIndent + "output: " + joinList(names));
    }
    for (const auto& child : op.children) print(*child, depth + 1);
    if (op.kind() == LogicalOperatorKind::kMaterialized) {
      // A recursive WITH query's terms run before the plan, each step a query of its own (not estimated).
      if (const auto& query = static_cast<const LogicalMaterialized&>(op).query) {
        print(*query->nonRecursiveTerm.root, depth + 1);
        print(*query->recursiveTerm.root, depth + 1);
      }
    }
  }

  std::vector<std::string> take() { return std::move(lines_); }

 private:
  static std::string title(const LogicalOperator& op) {
    switch (op.kind()) {
      case LogicalOperatorKind::kScan: {
        const auto& scan = static_cast<const LogicalScan&>(op);
        if (scan.exchangeInput) return "Exchange Input " + scan.table.name;
        return "Scan " + scan.table.name + (scan.alias != scan.table.name ? " " + scan.alias : "");
      }
      case LogicalOperatorKind::kSingleRow:
        return "Result";
      case LogicalOperatorKind::kFilter:
        return "Filter";
      case LogicalOperatorKind::kProject:
        return "Project";
      case LogicalOperatorKind::kJoin: {
        const auto& join = static_cast<const LogicalJoin&>(op);
        if (join.dependent) return std::string("DependentJoin ") + std::string(joinTypeName(join.type));
        if (join.type == JoinType::kInner && join.conditions.empty()) return "CrossProduct";
        std::string name = hasEquiCondition(join) ? "HashJoin " : "NestedLoopJoin ";
        name += joinTypeName(join.type);
        if (join.nullAwareCondition) name += " (null-aware)";
        return name;
      }
      case LogicalOperatorKind::kAggregate:
        return static_cast<const LogicalAggregate&>(op).groups.empty() ? "Aggregate" : "HashAggregate";
      case LogicalOperatorKind::kSort:
        return "Sort";
      case LogicalOperatorKind::kLimit:
        return "Limit";
      case LogicalOperatorKind::kUnionAll:
        return "UnionAll";
      case LogicalOperatorKind::kTableFunction:
        return "Function Scan " +
               std::string(engine::tableFunctionName(static_cast<const LogicalTableFunction&>(op).function));
      case LogicalOperatorKind::kProjectSet:
        return "ProjectSet";
      case LogicalOperatorKind::kWindow:
        return "WindowAgg";
      case LogicalOperatorKind::kMaterialized: {
        const auto& materialized = static_cast<const LogicalMaterialized&>(op);
        switch (materialized.role) {
          case LogicalMaterialized::Role::kResult:
            return "Recursive CTE Scan " + materialized.name;
          case LogicalMaterialized::Role::kWorkingTable:
            return "WorkTable Scan " + materialized.name;
          case LogicalMaterialized::Role::kRowsSoFar:
            return "Rows So Far " + materialized.name;
        }
      }
    }
    return "?";
  }

  static std::string sortKeysText(const std::vector<SortKey>& sortKeys) {
    std::vector<std::string> keys;
    for (const auto& key : sortKeys) {
      std::string text = key.expression->toString() + (key.ascending ? "" : " DESC");
      if (key.nullsFirst == key.ascending) text += key.nullsFirst ? " NULLS FIRST" : " NULLS LAST";
      keys.push_back(text);
    }
    return joinList(keys);
  }

  std::vector<std::string> details(const LogicalOperator& op) const {
    std::vector<std::string> lines;
    switch (op.kind()) {
      case LogicalOperatorKind::kProjectSet:
        for (const auto& function : static_cast<const LogicalProjectSet&>(op).functions) {
          std::string arguments;
          for (const auto& argument : function.arguments) {
            arguments += (arguments.empty() ? "" : ", ") + argument->toString();
          }
          lines.push_back("function: " + std::string(engine::tableFunctionName(function.function)) + "(" + arguments +
                          ")" + (function.ordinality ? " WITH ORDINALITY" : ""));
        }
        break;
      case LogicalOperatorKind::kScan: {
        const auto& scan = static_cast<const LogicalScan&>(op);
        for (const auto& filter : scan.filters) lines.push_back("filter: " + filter->toString());
        break;
      }
      case LogicalOperatorKind::kFilter:
        for (const auto& condition : static_cast<const LogicalFilter&>(op).conditions) {
          lines.push_back("filter: " + condition->toString());
        }
        break;
      case LogicalOperatorKind::kProject:
        if (verbose_) {
          const auto& project = static_cast<const LogicalProject&>(op);
          for (size_t i = 0; i < project.expressions.size(); ++i) {
            lines.push_back(project.names[i] + " := " + project.expressions[i]->toString());
          }
        }
        break;
      case LogicalOperatorKind::kJoin: {
        const auto& join = static_cast<const LogicalJoin&>(op);
        if (join.nullAwareCondition) lines.push_back("null-aware on: " + join.nullAwareCondition->toString());
        if (!join.conditions.empty()) lines.push_back("on: " + expressionList(join.conditions));
        if (!(join.type == JoinType::kInner && join.conditions.empty())) {
          lines.push_back(std::string("build: ") + (join.buildLeft ? "left" : "right"));
        }
        break;
      }
      case LogicalOperatorKind::kAggregate: {
        const auto& aggregate = static_cast<const LogicalAggregate&>(op);
        if (!aggregate.groups.empty()) lines.push_back("group by: " + expressionList(aggregate.groups));
        std::vector<std::string> calls;
        for (const auto& call : aggregate.aggregates) calls.push_back(aggregateText(call));
        if (!calls.empty()) lines.push_back("aggregates: " + joinList(calls));
        break;
      }
      case LogicalOperatorKind::kSort:
        lines.push_back("keys: " + sortKeysText(static_cast<const LogicalSort&>(op).keys));
        break;
      case LogicalOperatorKind::kWindow: {
        const auto& window = static_cast<const LogicalWindow&>(op);
        if (!window.partitionBy.empty()) lines.push_back("partition by: " + expressionList(window.partitionBy));
        if (!window.orderBy.empty()) lines.push_back("order by: " + sortKeysText(window.orderBy));
        std::vector<std::string> calls;
        for (const auto& call : window.calls) {
          if (call.function == engine::WindowFunction::kAggregate) {
            calls.push_back(aggregateText(call.aggregate));
            continue;
          }
          std::string arguments;
          for (const auto& argument : call.arguments) {
            arguments += (arguments.empty() ? "" : ", ") + argument->toString();
          }
          calls.push_back(std::string(engine::windowFunctionName(call.function)) + "(" + arguments + ")");
        }
        lines.push_back("functions: " + joinList(calls));
        break;
      }
      case LogicalOperatorKind::kLimit: {
        const auto& limit = static_cast<const LogicalLimit&>(op);
        if (limit.limit) lines.push_back(fmt::format("limit: {}", *limit.limit));
        if (limit.offset > 0) lines.push_back(fmt::format("offset: {}", limit.offset));
        break;
      }
      default:
        break;
    }
    return lines;
  }

  bool verbose_;
  const std::map<const LogicalOperator*, uint64_t>* actualRows_;
  std::vector<std::string> lines_;
};

}  // namespace

bool hasEquiCondition(const LogicalJoin& join) {
  std::set<ColumnId> left = outputIds(*join.children[0]);
  std::set<ColumnId> right = outputIds(*join.children[1]);
  auto within = [](const Expression& e, const std::set<ColumnId>& ids) {
    std::set<ColumnId> columns = columnsOf(e);
    if (columns.empty()) return false;
    for (ColumnId id : columns) {
      if (!ids.contains(id)) return false;
    }
    return true;
  };
  std::vector<const Expression*> conditions;
  for (const auto& condition : join.conditions) conditions.push_back(condition.get());
  if (join.nullAwareCondition) conditions.push_back(join.nullAwareCondition.get());
  for (const Expression* condition : conditions) {
    if (condition->kind() != engine::ExpressionKind::kFunction) continue;
    const auto& function = static_cast<const engine::FunctionExpression&>(*condition);
    if (function.function() != engine::ScalarFunction::kEqual) continue;
    const Expression& a = *function.arguments()[0];
    const Expression& b = *function.arguments()[1];
    if ((within(a, left) && within(b, right)) || (within(a, right) && within(b, left))) return true;
  }
  return false;
}

std::vector<std::string> explainPlan(const LogicalOperator& root, bool verbose,
                                     const std::map<const LogicalOperator*, uint64_t>* actualRows) {
  Printer printer(verbose, actualRows);
  printer.print(root, 0);
  return printer.take();
}

}  // namespace shoal::sql
