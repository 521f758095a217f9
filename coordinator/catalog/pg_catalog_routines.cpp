#include "coordinator/catalog/pg_catalog_routines.h"

#include "engine/types/array_value.h"
#include "sql/catalog/builtin_routines.h"

namespace shoal::coordinator {

namespace type = system_type;
namespace value = system_value;
using engine::LogicalType;
using engine::Value;

std::vector<sql::ColumnDescription> routineColumns() {
  return {{"oid", type::oid()},
          {"proname", type::name()},
          {"pronamespace", type::oid()},
          {"proowner", type::oid()},
          {"prolang", type::oid()},
          {"procost", type::real()},
          {"prorows", type::real()},
          {"provariadic", type::oid()},
          {"prosupport", type::oid()},
          {"prokind", type::text()},
          {"prosecdef", type::boolean()},
          {"proleakproof", type::boolean()},
          {"proisstrict", type::boolean()},
          {"proretset", type::boolean()},
          {"provolatile", type::text()},
          {"proparallel", type::text()},
          {"pronargs", type::smallInt()},
          {"pronargdefaults", type::smallInt()},
          {"prorettype", type::oid()},
          {"proargtypes", LogicalType::oidVector()},
          {"proallargtypes", LogicalType::array(type::oid())},
          {"proargmodes", type::textArray()},
          {"proargnames", type::textArray()},
          {"proargdefaults", type::text()},
          {"protrftypes", LogicalType::array(type::oid())},
          {"prosrc", type::text()},
          {"probin", type::text()},
          {"prosqlbody", type::text()},
          {"proconfig", type::textArray()},
          {"proacl", type::textArray()}};
}

SystemRows routineRows() {
  SystemRows rows;
  const Value nullOids = Value::null(LogicalType::array(type::oid()));
  for (const auto& routine : sql::builtinRoutines()) {
    std::vector<Value> argumentTypes;
    for (int64_t each : routine.argumentTypes) argumentTypes.push_back(value::oid(each));
    rows.push_back({value::oid(routine.oid),
                    value::text(routine.name),
                    value::oid(sql::kPgCatalogNamespaceOid),
                    value::oid(sql::kOwnerRoleOid),
                    value::oid(routine.language),
                    Value::doublePrecision(routine.cost),
                    Value::doublePrecision(routine.rows),
                    value::oid(routine.variadicType),
                    value::oid(0),
                    value::character(routine.kind),
                    value::boolean(false),
                    value::boolean(false),
                    value::boolean(routine.strict),
                    value::boolean(routine.returnsSet),
                    value::character(routine.volatility),
                    value::character(routine.parallel),
                    value::integer(static_cast<int64_t>(routine.argumentTypes.size())),
                    value::integer(routine.defaults),
                    value::oid(routine.resultType),
                    engine::makeArrayValue(argumentTypes, LogicalType::oidVector()),
                    nullOids,
                    value::nullText(),
                    value::nullText(),
                    value::nullText(),
                    nullOids,
                    value::text(routine.source),
                    value::nullText(),
                    value::nullText(),
                    value::nullText(),
                    value::nullText()});
  }
  return rows;
}

std::vector<sql::ColumnDescription> operatorColumns() {
  return {{"oid", type::oid()},
          {"oprname", type::name()},
          {"oprnamespace", type::oid()},
          {"oprowner", type::oid()},
          {"oprkind", type::text()},
          {"oprcanmerge", type::boolean()},
          {"oprcanhash", type::boolean()},
          {"oprleft", type::oid()},
          {"oprright", type::oid()},
          {"oprresult", type::oid()},
          {"oprcom", type::oid()},
          {"oprnegate", type::oid()},
          {"oprcode", type::oid()},
          {"oprrest", type::oid()},
          {"oprjoin", type::oid()}};
}

SystemRows operatorRows() {
  SystemRows rows;
  for (const auto& op : sql::builtinOperators()) {
    rows.push_back({value::oid(op.oid), value::text(op.name), value::oid(sql::kPgCatalogNamespaceOid),
                    value::oid(sql::kOwnerRoleOid), value::character(op.kind), value::boolean(op.canMerge),
                    value::boolean(op.canHash), value::oid(op.left), value::oid(op.right), value::oid(op.result),
                    value::oid(op.commutator), value::oid(op.negator), value::oid(op.code), value::oid(0),
                    value::oid(0)});
  }
  return rows;
}

}  // namespace shoal::coordinator
