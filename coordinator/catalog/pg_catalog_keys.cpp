#include "coordinator/catalog/pg_catalog_keys.h"

#include "coordinator/catalog/postgres_types.h"
#include "engine/types/array_value.h"

namespace shoal::coordinator {

namespace type = system_type;
namespace value = system_value;
using engine::LogicalType;
using engine::Value;

namespace {

Value smallIntArray(const std::vector<Value>& elements) {
  return engine::makeArrayValue(elements, LogicalType::array(LogicalType::smallInt()));
}

Value nullArray(const LogicalType& element) {
  return Value::null(LogicalType::array(element));
}

}  // namespace

namespace {

/// PostgreSQL 15's default btree operator class of each type Shoal has (pg_opclass; varchar uses text's).
struct OperatorClass {
  int64_t oid;
  std::string_view name;
  int64_t family;
  int64_t inputType;
};
constexpr OperatorClass kOperatorClasses[] = {
    {1978, "int4_ops", 1976, 23},         {1979, "int2_ops", 1976, 21},       {3122, "date_ops", 434, 1082},
    {3123, "float8_ops", 1970, 701},      {3124, "int8_ops", 1976, 20},       {3125, "numeric_ops", 1988, 1700},
    {3126, "text_ops", 1994, 25},         {10003, "bool_ops", 424, 16},       {10004, "bpchar_ops", 426, 1042},
    {3127, "timestamptz_ops", 434, 1184}, {3128, "timestamp_ops", 434, 1114}, {10022, "interval_ops", 1982, 1186},
    {10065, "uuid_ops", 2968, 2950},      {10006, "bytea_ops", 428, 17},      {10038, "time_ops", 1996, 1083},
};

/// The OID of the default btree operator class of a column type.
int64_t btreeOperatorClass(const LogicalType& type) {
  const int64_t typeOid = type.id() == engine::TypeId::kVarchar ? engine::pg_oid::kText : type.postgresOid();
  for (const auto& operatorClass : kOperatorClasses) {
    if (operatorClass.inputType == typeOid) return operatorClass.oid;
  }
  return 0;
}

}  // namespace

std::string primaryKeyName(const CatalogRelation& table) {
  return table.name + "_pkey";
}

std::vector<RelationKey> relationKeys(const CatalogRelation& table) {
  std::vector<RelationKey> keys;
  if (!table.primaryKey.empty()) keys.push_back({primaryKeyName(table), table.primaryKey, 0});
  for (size_t k = 0; k < table.uniqueKeys.size(); ++k) {
    keys.push_back({table.uniqueKeys[k].name, table.uniqueKeys[k].columns, k + 1});
  }
  return keys;
}

CatalogRelation keyIndex(const CatalogRelation& table, const RelationKey& key) {
  CatalogRelation index;
  index.schema = table.schema;
  index.name = key.name;
  index.oid = sql::keyIndexOid(table.oid, key.ordinal);
  index.namespaceOid = table.namespaceOid;
  index.kind = 'i';
  index.isUserRelation = true;
  index.ownerOid = table.ownerOid;
  index.ownerName = table.ownerName;
  for (size_t column : key.columns) {
    CatalogColumn indexColumn = table.columns[column];
    indexColumn.notNull = false;  // as PostgreSQL's index attributes show it
    index.columns.push_back(std::move(indexColumn));
  }
  return index;
}

std::vector<sql::ColumnDescription> indexColumns() {
  std::vector<sql::ColumnDescription> columns = {{"indexrelid", type::oid()},
                                                 {"indrelid", type::oid()},
                                                 {"indnatts", type::smallInt()},
                                                 {"indnkeyatts", type::smallInt()}};
  for (const char* flag :
       {"indisunique", "indnullsnotdistinct", "indisprimary", "indisexclusion", "indimmediate", "indisclustered",
        "indisvalid", "indcheckxmin", "indisready", "indislive", "indisreplident"}) {
    columns.push_back({flag, type::boolean()});
  }
  columns.push_back({"indkey", LogicalType::int2Vector()});
  columns.push_back({"indcollation", LogicalType::oidVector()});
  columns.push_back({"indclass", LogicalType::oidVector()});
  columns.push_back({"indoption", LogicalType::int2Vector()});
  columns.push_back({"indexprs", type::text()});
  columns.push_back({"indpred", type::text()});
  return columns;
}

std::vector<sql::ColumnDescription> operatorClassColumns() {
  return {{"oid", type::oid()},          {"opcmethod", type::oid()},      {"opcname", type::name()},
          {"opcnamespace", type::oid()}, {"opcowner", type::oid()},       {"opcfamily", type::oid()},
          {"opcintype", type::oid()},    {"opcdefault", type::boolean()}, {"opckeytype", type::oid()}};
}

SystemRows operatorClassRows() {
  SystemRows rows;
  for (const auto& operatorClass : kOperatorClasses) {
    rows.push_back({value::oid(operatorClass.oid), value::oid(kBtreeAccessMethodOid), value::text(operatorClass.name),
                    value::oid(sql::kPgCatalogNamespaceOid), value::oid(sql::kOwnerRoleOid),
                    value::oid(operatorClass.family), value::oid(operatorClass.inputType), value::boolean(true),
                    value::oid(0)});
  }
  return rows;
}

namespace {

/// pg_index's row of one key.
std::vector<Value> indexRow(const CatalogRelation& relation, const RelationKey& key) {
  const auto keys = static_cast<int64_t>(key.columns.size());
  std::vector<Value> row = {value::oid(sql::keyIndexOid(relation.oid, key.ordinal)), value::oid(relation.oid),
                            value::integer(keys), value::integer(keys)};
  // unique, nulls distinct, primary or not, not exclusion, immediate, not clustered, valid, no xmin check,
  // ready, live, not the replica identity
  for (bool flag : {true, false, key.primary(), false, true, false, true, false, true, true, false}) {
    row.push_back(value::boolean(flag));
  }
  // Per key column: its number, its collation (text's default, else none), the btree operator class
  // PostgreSQL 15 would choose for its type, and no options (ascending, nulls last).
  std::vector<Value> numbers;
  std::vector<Value> collations;
  std::vector<Value> classes;
  std::vector<Value> options;
  for (size_t column : key.columns) {
    const LogicalType& columnType = relation.columns[column].type;
    numbers.push_back(Value::smallInt(static_cast<int16_t>(column + 1)));
    collations.push_back(Value::bigInt(columnType.isString() ? kDefaultCollationOid : 0));
    classes.push_back(Value::bigInt(btreeOperatorClass(columnType)));
    options.push_back(Value::smallInt(0));
  }
  row.push_back(engine::makeArrayValue(numbers, LogicalType::int2Vector()));
  row.push_back(engine::makeArrayValue(collations, LogicalType::oidVector()));
  row.push_back(engine::makeArrayValue(classes, LogicalType::oidVector()));
  row.push_back(engine::makeArrayValue(options, LogicalType::int2Vector()));
  row.push_back(value::nullText());
  row.push_back(value::nullText());
  return row;
}

/// pg_constraint's row of one key.
std::vector<Value> constraintRow(const CatalogRelation& relation, const RelationKey& key) {
  std::vector<Value> keys;
  for (size_t column : key.columns) keys.push_back(Value::integer(static_cast<int32_t>(column + 1)));
  // One value at a time: GCC 12 misreads a braced list of this many Values as reading uninitialized ones.
  std::vector<Value> row;
  row.push_back(value::oid(sql::keyConstraintOid(relation.oid, key.ordinal)));
  row.push_back(value::text(key.name));
  row.push_back(value::oid(relation.namespaceOid));
  row.push_back(value::character(key.primary() ? 'p' : 'u'));
  // not deferrable, not deferred, validated
  for (bool flag : {false, false, true}) row.push_back(value::boolean(flag));
  row.push_back(value::oid(relation.oid));
  row.push_back(value::oid(0));
  row.push_back(value::oid(sql::keyIndexOid(relation.oid, key.ordinal)));
  row.push_back(value::oid(0));
  row.push_back(value::oid(0));
  for (int i = 0; i < 3; ++i) row.push_back(value::character(' '));  // no foreign key actions or match type
  row.push_back(value::boolean(true));
  row.push_back(value::integer(0));
  row.push_back(value::boolean(true));
  row.push_back(smallIntArray(keys));
  row.push_back(nullArray(LogicalType::smallInt()));
  for (int i = 0; i < 3; ++i) row.push_back(nullArray(LogicalType::bigInt()));
  row.push_back(nullArray(LogicalType::smallInt()));
  row.push_back(nullArray(LogicalType::bigInt()));
  row.push_back(value::nullText());
  return row;
}

}  // namespace

SystemRows indexRows(const CatalogRelationLister& relations) {
  SystemRows rows;
  for (const auto& relation : relations()) {
    if (!relation.isUserRelation) continue;
    for (const RelationKey& key : relationKeys(relation)) rows.push_back(indexRow(relation, key));
  }
  return rows;
}

std::vector<sql::ColumnDescription> constraintColumns() {
  const LogicalType smallInts = LogicalType::array(LogicalType::smallInt());
  const LogicalType oids = LogicalType::array(LogicalType::bigInt());
  return {{"oid", type::oid()},
          {"conname", type::name()},
          {"connamespace", type::oid()},
          {"contype", type::text()},
          {"condeferrable", type::boolean()},
          {"condeferred", type::boolean()},
          {"convalidated", type::boolean()},
          {"conrelid", type::oid()},
          {"contypid", type::oid()},
          {"conindid", type::oid()},
          {"conparentid", type::oid()},
          {"confrelid", type::oid()},
          {"confupdtype", type::text()},
          {"confdeltype", type::text()},
          {"confmatchtype", type::text()},
          {"conislocal", type::boolean()},
          {"coninhcount", type::integer()},
          {"connoinherit", type::boolean()},
          {"conkey", smallInts},
          {"confkey", smallInts},
          {"conpfeqop", oids},
          {"conppeqop", oids},
          {"conffeqop", oids},
          {"confdelsetcols", smallInts},
          {"conexclop", oids},
          {"conbin", type::text()}};
}

SystemRows constraintRows(const CatalogRelationLister& relations) {
  SystemRows rows;
  for (const auto& relation : relations()) {
    if (!relation.isUserRelation) continue;
    for (const RelationKey& key : relationKeys(relation)) rows.push_back(constraintRow(relation, key));
  }
  return rows;
}

}  // namespace shoal::coordinator
