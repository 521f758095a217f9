// ExpressionBinder::columnNameOf: the name PostgreSQL gives a select-list item written without an alias
// (its FigureColname), so that clients see the same column names.

#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"

namespace shoal::sql {

namespace {

/// PostgreSQL's FigureColnameInternal: a name and how strongly it names the column (0: none; 1: a type's
/// name, which an outer cast's replaces; 2: a column's or function's).
int columnNameWithStrength(const pg_query::Node& node, std::string& name) {
  switch (node.node_case()) {
    case pg_query::Node::kColumnRef: {
      const auto& fields = node.column_ref().fields();
      if (fields.empty() || !fields.rbegin()->has_string()) return 0;
      name = fields.rbegin()->string().sval();
      return 2;
    }
    case pg_query::Node::kFuncCall:
      name = lastName(node.func_call().funcname());
      return 2;
    case pg_query::Node::kTypeCast: {
      const int strength = columnNameWithStrength(node.type_cast().arg(), name);
      if (strength > 1) return strength;
      name = lastName(node.type_cast().type_name().names());
      return 1;
    }
    case pg_query::Node::kAConst:  // true and false are casts to bool in PostgreSQL's grammar
      if (!node.a_const().has_boolval()) return 0;
      name = "bool";
      return 1;
    case pg_query::Node::kSqlvalueFunction:
      name = std::string(sqlValueFunctionName(node.sqlvalue_function().op()));
      return 2;
    case pg_query::Node::kAArrayExpr:
      name = "array";
      return 2;
    case pg_query::Node::kCoalesceExpr:
      name = "coalesce";
      return 2;
    case pg_query::Node::kMinMaxExpr:
      name = node.min_max_expr().op() == pg_query::IS_GREATEST ? "greatest" : "least";
      return 2;
    case pg_query::Node::kCaseExpr: {
      // Named as its ELSE result is, when that names it strongly.
      const auto& expression = node.case_expr();
      if (expression.has_defresult() && columnNameWithStrength(expression.defresult(), name) > 1) return 2;
      name = "case";
      return 1;
    }
    case pg_query::Node::kAIndirection:  // x[i] is named as x is
      return columnNameWithStrength(node.a_indirection().arg(), name);
    case pg_query::Node::kSubLink: {
      const auto& link = node.sub_link();
      if (link.sub_link_type() == pg_query::EXISTS_SUBLINK || link.sub_link_type() == pg_query::ARRAY_SUBLINK) {
        name = link.sub_link_type() == pg_query::EXISTS_SUBLINK ? "exists" : "array";
        return 2;
      }
      // A scalar subquery is named as its one column is (when that column has a name of its own).
      if (link.sub_link_type() != pg_query::EXPR_SUBLINK || !link.subselect().has_select_stmt()) return 0;
      const auto& select = link.subselect().select_stmt();
      if (select.target_list_size() == 0 || !select.target_list(0).has_res_target()) return 0;
      const auto& target = select.target_list(0).res_target();
      if (!target.name().empty()) {
        name = target.name();
        return 2;
      }
      return target.has_val() && columnNameWithStrength(target.val(), name) > 0 ? 2 : 0;
    }
    default:
      return 0;
  }
}

}  // namespace

std::string ExpressionBinder::columnNameOf(const pg_query::Node& node) {
  std::string name;
  return columnNameWithStrength(node, name) > 0 ? name : std::string("?column?");
}

}  // namespace shoal::sql
