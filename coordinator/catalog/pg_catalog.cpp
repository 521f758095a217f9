#include "coordinator/catalog/pg_catalog.h"

#include "sql/binder/description_functions.h"

#include "coordinator/catalog/pg_catalog_keys.h"
#include "coordinator/catalog/pg_catalog_routines.h"
#include "coordinator/catalog/postgres_types.h"
#include "sql/binder/search_path.h"
#include "sql/catalog/builtin_routines.h"

namespace shoal::coordinator {

namespace value = system_value;
namespace type = system_type;
using engine::Value;

namespace {

// PostgreSQL's heap access method, which every table of ours stands in for.
constexpr int64_t kHeapAccessMethodOid = 2;
constexpr int64_t kDefaultTablespaceOid = 1663;
// The OID PostgreSQL gives its database "postgres"; Shoal has one database, whatever the client names.
using sql::kDatabaseOid;
// UTF8's number in pg_database.encoding.
constexpr int64_t kUtf8Encoding = 6;

std::vector<sql::ColumnDescription> namespaceColumns() {
  return {{"oid", type::oid()}, {"nspname", type::name()}, {"nspowner", type::oid()}, {"nspacl", type::textArray()}};
}

SystemRows namespaceRows(const CatalogSchemaLister& schemas) {
  SystemRows rows;
  for (const auto& schema : schemas()) {
    rows.push_back(
        {value::oid(schema.oid), value::text(schema.name), value::oid(schema.ownerOid), value::textArray(schema.acl)});
  }
  return rows;
}

std::vector<sql::ColumnDescription> classColumns() {
  return {{"oid", type::oid()},
          {"relname", type::name()},
          {"relnamespace", type::oid()},
          {"reltype", type::oid()},
          {"reloftype", type::oid()},
          {"relowner", type::oid()},
          {"relam", type::oid()},
          {"relfilenode", type::oid()},
          {"reltablespace", type::oid()},
          {"relpages", type::integer()},
          {"reltuples", type::real()},
          {"relallvisible", type::integer()},
          {"reltoastrelid", type::oid()},
          {"relhasindex", type::boolean()},
          {"relisshared", type::boolean()},
          {"relpersistence", type::text()},
          {"relkind", type::text()},
          {"relnatts", type::smallInt()},
          {"relchecks", type::smallInt()},
          {"relhasrules", type::boolean()},
          {"relhastriggers", type::boolean()},
          {"relhassubclass", type::boolean()},
          {"relrowsecurity", type::boolean()},
          {"relforcerowsecurity", type::boolean()},
          {"relispopulated", type::boolean()},
          {"relreplident", type::text()},
          {"relispartition", type::boolean()},
          {"relrewrite", type::oid()},
          {"relfrozenxid", type::oid()},
          {"relminmxid", type::oid()},
          {"relacl", type::textArray()},
          {"reloptions", type::textArray()},
          {"relpartbound", type::text()}};
}

/// The relations and, after each user table, the indexes behind its keys.
std::vector<CatalogRelation> relationsWithIndexes(const CatalogRelationLister& relations) {
  std::vector<CatalogRelation> all;
  for (auto& relation : relations()) {
    std::vector<RelationKey> keys;
    if (relation.isUserRelation) keys = relationKeys(relation);
    all.push_back(std::move(relation));
    const CatalogRelation& table = all.back();
    std::vector<CatalogRelation> indexes;
    for (const auto& key : keys) indexes.push_back(keyIndex(table, key));
    for (auto& index : indexes) all.push_back(std::move(index));
  }
  return all;
}

SystemRows classRows(const CatalogRelationLister& relations) {
  SystemRows rows;
  for (const auto& relation : relationsWithIndexes(relations)) {
    const bool table = relation.kind == 'r';
    const bool index = relation.kind == 'i';
    // Shoal has no row-count estimate before a load: PostgreSQL's "never analyzed" is -1.
    const double tuples = relation.rowCount ? static_cast<double>(*relation.rowCount) : -1.0;
    rows.push_back({value::oid(relation.oid),
                    value::text(relation.name),
                    value::oid(relation.namespaceOid),
                    value::oid(0),
                    value::oid(0),
                    value::oid(relation.ownerOid),
                    value::oid(table   ? kHeapAccessMethodOid
                               : index ? kBtreeAccessMethodOid
                                       : 0),
                    value::oid(table || index ? relation.oid : 0),
                    value::oid(0),
                    value::integer(index ? 1 : 0),
                    Value::doublePrecision(index ? 0.0 : tuples),
                    value::integer(0),
                    value::oid(0),
                    value::boolean(table && (!relation.primaryKey.empty() || !relation.uniqueKeys.empty())),
                    value::boolean(false),
                    value::character(sql::isTemporarySchema(relation.schema) ? 't' : 'p'),
                    value::character(relation.kind),
                    value::integer(static_cast<int64_t>(relation.columns.size())),
                    value::integer(0),
                    value::boolean(relation.kind == 'v'),
                    value::boolean(false),
                    value::boolean(false),
                    value::boolean(false),
                    value::boolean(false),
                    value::boolean(true),
                    value::character(table ? 'd' : 'n'),
                    value::boolean(false),
                    value::oid(0),
                    value::oid(0),
                    value::oid(0),
                    value::textArray(relation.acl),
                    value::nullText(),
                    value::nullText()});
  }
  return rows;
}

std::vector<sql::ColumnDescription> attributeColumns() {
  return {{"attrelid", type::oid()},
          {"attname", type::name()},
          {"atttypid", type::oid()},
          {"attstattarget", type::integer()},
          {"attlen", type::smallInt()},
          {"attnum", type::smallInt()},
          {"attndims", type::integer()},
          {"attcacheoff", type::integer()},
          {"atttypmod", type::integer()},
          {"attbyval", type::boolean()},
          {"attalign", type::text()},
          {"attstorage", type::text()},
          {"attcompression", type::text()},
          {"attnotnull", type::boolean()},
          {"atthasdef", type::boolean()},
          {"atthasmissing", type::boolean()},
          {"attidentity", type::text()},
          {"attgenerated", type::text()},
          {"attisdropped", type::boolean()},
          {"attislocal", type::boolean()},
          {"attinhcount", type::integer()},
          {"attcollation", type::oid()},
          {"attacl", type::textArray()},
          {"attoptions", type::textArray()},
          {"attfdwoptions", type::textArray()},
          {"attmissingval", type::text()}};
}

SystemRows attributeRows(const CatalogRelationLister& relations) {
  SystemRows rows;
  for (const auto& relation : relationsWithIndexes(relations)) {
    for (size_t i = 0; i < relation.columns.size(); ++i) {
      const CatalogColumn& column = relation.columns[i];
      const PostgresTypeFacts& facts = postgresTypeFacts(column.type);
      rows.push_back({value::oid(relation.oid),
                      value::text(column.name),
                      value::oid(facts.oid),
                      value::integer(-1),
                      value::integer(facts.length),
                      value::integer(static_cast<int64_t>(i + 1)),
                      value::integer(column.type.isArray() ? 1 : 0),  // attndims (vectors too, as in PostgreSQL)
                      value::integer(-1),
                      value::integer(column.type.postgresTypmod()),
                      value::boolean(facts.byValue),
                      value::character(facts.align),
                      value::character(relation.kind == 'i' ? 'p' : facts.storage),
                      value::character(0),
                      value::boolean(column.notNull),
                      value::boolean(false),
                      value::boolean(false),
                      value::character(0),
                      value::character(0),
                      value::boolean(false),
                      value::boolean(true),
                      value::integer(0),
                      value::oid(facts.collatable ? kDefaultCollationOid : 0),
                      value::nullText(),
                      value::nullText(),
                      value::nullText(),
                      value::nullText()});
    }
  }
  return rows;
}

std::vector<sql::ColumnDescription> typeColumns() {
  return {{"oid", type::oid()},
          {"typname", type::name()},
          {"typnamespace", type::oid()},
          {"typowner", type::oid()},
          {"typlen", type::smallInt()},
          {"typbyval", type::boolean()},
          {"typtype", type::text()},
          {"typcategory", type::text()},
          {"typispreferred", type::boolean()},
          {"typisdefined", type::boolean()},
          {"typdelim", type::text()},
          {"typrelid", type::oid()},
          {"typsubscript", type::text()},
          {"typelem", type::oid()},
          {"typarray", type::oid()},
          {"typinput", type::oid()},
          {"typoutput", type::oid()},
          {"typreceive", type::oid()},
          {"typsend", type::oid()},
          {"typmodin", type::oid()},
          {"typmodout", type::oid()},
          {"typanalyze", type::text()},
          {"typalign", type::text()},
          {"typstorage", type::text()},
          {"typnotnull", type::boolean()},
          {"typbasetype", type::oid()},
          {"typtypmod", type::integer()},
          {"typndims", type::integer()},
          {"typcollation", type::oid()},
          {"typdefaultbin", type::text()},
          {"typdefault", type::text()},
          {"typacl", type::textArray()}};
}

/// A regproc column's value: the OID of the pg_catalog routine named `name`, 0 for "-".
int64_t routineOid(std::string_view name) {
  const std::vector<int64_t> oids = sql::builtinRoutineOidsNamed(name);
  return oids.empty() ? 0 : oids.front();
}

SystemRows typeRows() {
  SystemRows rows;
  std::vector<PostgresTypeFacts> all(postgresTypes().begin(), postgresTypes().end());
  all.insert(all.end(), postgresPseudoTypes().begin(), postgresPseudoTypes().end());
  for (const auto& facts : all) {
    rows.push_back({value::oid(facts.oid),
                    value::text(facts.name),
                    value::oid(kPgCatalogNamespaceOid),
                    value::oid(kOwnerRoleOid),
                    value::integer(facts.length),
                    value::boolean(facts.byValue),
                    value::character(facts.kind),
                    value::character(facts.category),
                    value::boolean(facts.preferred),
                    value::boolean(true),
                    value::character(','),
                    value::oid(0),
                    value::text(facts.elementOid != 0 ? "array_subscript_handler" : "-"),
                    value::oid(facts.elementOid),
                    value::oid(facts.arrayOid),
                    value::oid(routineOid(facts.input)),
                    value::oid(routineOid(facts.output)),
                    value::oid(routineOid(facts.receive)),
                    value::oid(routineOid(facts.send)),
                    value::oid(routineOid(facts.modifierInput)),
                    value::oid(routineOid(facts.modifierOutput)),
                    value::text("-"),
                    value::character(facts.align),
                    value::character(facts.storage),
                    value::boolean(false),
                    value::oid(0),
                    value::integer(-1),
                    value::integer(0),
                    value::oid(facts.collatable ? kDefaultCollationOid : 0),
                    value::nullText(),
                    value::nullText(),
                    value::nullText()});
  }
  return rows;
}

std::vector<sql::ColumnDescription> accessMethodColumns() {
  return {{"oid", type::oid()}, {"amname", type::name()}, {"amhandler", type::text()}, {"amtype", type::text()}};
}

std::vector<sql::ColumnDescription> databaseColumns() {
  return {{"oid", type::oid()},
          {"datname", type::name()},
          {"datdba", type::oid()},
          {"encoding", type::integer()},
          {"datlocprovider", type::text()},
          {"datistemplate", type::boolean()},
          {"datallowconn", type::boolean()},
          {"datconnlimit", type::integer()},
          {"datfrozenxid", type::oid()},
          {"datminmxid", type::oid()},
          {"dattablespace", type::oid()},
          {"datcollate", type::text()},
          {"datctype", type::text()},
          {"daticulocale", type::text()},
          {"datcollversion", type::text()},
          {"datacl", type::textArray()}};
}

SystemRows databaseRows(const SystemScanContext& context) {
  // Text compares by bytes (the C collation) everywhere in Shoal.
  return {{value::oid(kDatabaseOid), value::text(context.database), value::oid(kOwnerRoleOid),
           value::integer(kUtf8Encoding), value::character('c'), value::boolean(false), value::boolean(true),
           value::integer(-1), value::oid(0), value::oid(0), value::oid(kDefaultTablespaceOid), value::text("C"),
           value::text("C"), value::nullText(), value::nullText(), value::nullText()}};
}

std::vector<sql::ColumnDescription> tablesColumns() {
  return {{"schemaname", type::name()},     {"tablename", type::name()},     {"tableowner", type::name()},
          {"tablespace", type::name()},     {"hasindexes", type::boolean()}, {"hasrules", type::boolean()},
          {"hastriggers", type::boolean()}, {"rowsecurity", type::boolean()}};
}

SystemRows tablesRows(const CatalogRelationLister& relations) {
  SystemRows rows;
  for (const auto& relation : relations()) {
    if (relation.kind != 'r') continue;
    rows.push_back({value::text(relation.schema), value::text(relation.name), value::text(relation.ownerName),
                    value::nullText(), value::boolean(false), value::boolean(false), value::boolean(false),
                    value::boolean(false)});
  }
  return rows;
}

std::vector<sql::ColumnDescription> viewsColumns() {
  return {{"schemaname", type::name()},
          {"viewname", type::name()},
          {"viewowner", type::name()},
          {"definition", type::text()}};
}

SystemRows viewsRows(const CatalogRelationLister& relations) {
  SystemRows rows;
  for (const auto& relation : relations()) {
    if (relation.kind != 'v') continue;
    rows.push_back({value::text(relation.schema), value::text(relation.name), value::text(relation.ownerName),
                    relation.viewDefinition ? value::text(*relation.viewDefinition) : value::nullText()});
  }
  return rows;
}

std::vector<sql::ColumnDescription> rolesColumns() {
  return {{"rolname", type::name()},
          {"rolsuper", type::boolean()},
          {"rolinherit", type::boolean()},
          {"rolcreaterole", type::boolean()},
          {"rolcreatedb", type::boolean()},
          {"rolcanlogin", type::boolean()},
          {"rolreplication", type::boolean()},
          {"rolconnlimit", type::integer()},
          {"rolpassword", type::text()},
          {"rolvaliduntil", type::text()},
          {"rolbypassrls", type::boolean()},
          {"rolconfig", type::textArray()},
          {"oid", type::oid()}};
}

/// The roles: the bootstrap superuser (which, as PostgreSQL's, also replicates and bypasses row security),
/// those CREATE ROLE made, and PostgreSQL 15's predefined roles (pg_database_owner owns schema public).
SystemRows rolesRows(const std::vector<RoleEntry>& roles) {
  SystemRows rows;
  for (const auto& role : roles) {
    const bool bootstrap = role.oid == kOwnerRoleOid;
    rows.push_back({value::text(role.name), value::boolean(role.superuser), value::boolean(role.inherit),
                    value::boolean(role.createRole), value::boolean(role.createDb), value::boolean(role.login),
                    value::boolean(bootstrap), value::integer(-1), value::text("********"), value::nullText(),
                    value::boolean(bootstrap), value::nullText(), value::oid(role.oid)});
  }
  return rows;
}

std::vector<sql::ColumnDescription> authMembersColumns() {
  return {
      {"roleid", type::oid()}, {"member", type::oid()}, {"grantor", type::oid()}, {"admin_option", type::boolean()}};
}

/// pg_auth_members: who is a member of which role (GRANT role TO member).
SystemRows authMembersRows(const std::vector<RoleEntry>& roles) {
  SystemRows rows;
  for (const auto& role : roles) {
    for (const auto& membership : role.memberOf) {
      rows.push_back({value::oid(membership.role), value::oid(role.oid), value::oid(membership.grantor),
                      value::boolean(membership.adminOption)});
    }
  }
  return rows;
}

/// pg_user: the roles that can log in.
SystemRows userRows(const std::vector<RoleEntry>& roles) {
  SystemRows rows;
  for (const auto& role : roles) {
    if (!role.login) continue;
    const bool bootstrap = role.oid == kOwnerRoleOid;
    rows.push_back({value::text(role.name), value::oid(role.oid), value::boolean(role.createDb),
                    value::boolean(role.superuser), value::boolean(bootstrap), value::boolean(bootstrap),
                    value::text("********"), value::nullText(), value::nullText()});
  }
  return rows;
}

std::vector<sql::ColumnDescription> userColumns() {
  return {{"usename", type::name()},     {"usesysid", type::oid()},    {"usecreatedb", type::boolean()},
          {"usesuper", type::boolean()}, {"userepl", type::boolean()}, {"usebypassrls", type::boolean()},
          {"passwd", type::text()},      {"valuntil", type::text()},   {"useconfig", type::textArray()}};
}

struct PgRelationOid {
  std::string_view name;
  int64_t oid;
};

// Catalog tables: PostgreSQL 15's OIDs. Views: PostgreSQL 15's too where they are fixed, else our own.
constexpr PgRelationOid kRelationOids[] = {
    {"pg_type", 1247},
    {"pg_attribute", 1249},
    {"pg_class", 1259},
    {"pg_database", 1262},
    {"pg_namespace", 2615},
    {"pg_am", 2601},
    {"pg_views", 12028},
    {"pg_tables", 12033},
    {"pg_roles", 12000},
    {"pg_user", 12014},
    {"pg_description", 2609},
    {"pg_attrdef", 2604},
    {"pg_inherits", 2611},
    {"pg_tablespace", 1213},
    {"pg_matviews", 12038},
    {"pg_extension", 3079},
    {"pg_collation", 3456},
    {"pg_enum", 3501},
    {"pg_auth_members", 1261},
    {"pg_sequence", 2224},
    {"pg_settings", 12104},
    {"pg_index", 2610},
    {"pg_constraint", 2606},
    {"pg_opclass", 2616},
    {"pg_proc", 1255},
    {"pg_operator", 2617},
    {"pg_policy", 3256},
    {"pg_statistic_ext", 3381},
    {"pg_publication", 6104},
    {"pg_publication_rel", 6106},
    {"pg_publication_namespace", 6237},
    {"pg_trigger", 2620},
    {"pg_rewrite", 2618},
};

// Relations that hold what Shoal has none of (column defaults, inheritance, materialized views, extensions,
// enums, role memberships, row security policies, extended statistics, publications, triggers, rules,
// sequences): PostgreSQL 15's columns and no rows. Array columns are NULL text until
// the catalog types arrive.
struct EmptyRelation {
  std::string_view name;
  char kind;
  std::vector<sql::ColumnDescription> columns;
};

std::vector<EmptyRelation> emptyRelations() {
  return {
      {"pg_attrdef",
       'r',
       {{"oid", type::oid()}, {"adrelid", type::oid()}, {"adnum", type::smallInt()}, {"adbin", type::text()}}},
      {"pg_inherits",
       'r',
       {{"inhrelid", type::oid()},
        {"inhparent", type::oid()},
        {"inhseqno", type::integer()},
        {"inhdetachpending", type::boolean()}}},
      {"pg_matviews",
       'v',
       {{"schemaname", type::name()},
        {"matviewname", type::name()},
        {"matviewowner", type::name()},
        {"tablespace", type::name()},
        {"hasindexes", type::boolean()},
        {"ispopulated", type::boolean()},
        {"definition", type::text()}}},
      {"pg_extension",
       'r',
       {{"oid", type::oid()},
        {"extname", type::name()},
        {"extowner", type::oid()},
        {"extnamespace", type::oid()},
        {"extrelocatable", type::boolean()},
        {"extversion", type::text()},
        {"extconfig", type::text()},
        {"extcondition", type::text()}}},
      {"pg_enum",
       'r',
       {{"oid", type::oid()},
        {"enumtypid", type::oid()},
        {"enumsortorder", type::real()},
        {"enumlabel", type::name()}}},
      {"pg_policy",
       'r',
       {{"oid", type::oid()},
        {"polname", type::name()},
        {"polrelid", type::oid()},
        {"polcmd", type::text()},
        {"polpermissive", type::boolean()},
        {"polroles", engine::LogicalType::array(type::oid())},
        {"polqual", type::text()},
        {"polwithcheck", type::text()}}},
      {"pg_statistic_ext",
       'r',
       {{"oid", type::oid()},
        {"stxrelid", type::oid()},
        {"stxname", type::name()},
        {"stxnamespace", type::oid()},
        {"stxowner", type::oid()},
        {"stxstattarget", type::integer()},
        {"stxkeys", engine::LogicalType::int2Vector()},
        {"stxkind", type::textArray()},
        {"stxexprs", type::text()}}},
      {"pg_publication",
       'r',
       {{"oid", type::oid()},
        {"pubname", type::name()},
        {"pubowner", type::oid()},
        {"puballtables", type::boolean()},
        {"pubinsert", type::boolean()},
        {"pubupdate", type::boolean()},
        {"pubdelete", type::boolean()},
        {"pubtruncate", type::boolean()},
        {"pubviaroot", type::boolean()}}},
      {"pg_publication_rel",
       'r',
       {{"oid", type::oid()},
        {"prpubid", type::oid()},
        {"prrelid", type::oid()},
        {"prqual", type::text()},
        {"prattrs", engine::LogicalType::int2Vector()}}},
      {"pg_publication_namespace", 'r', {{"oid", type::oid()}, {"pnpubid", type::oid()}, {"pnnspid", type::oid()}}},
      {"pg_trigger",
       'r',
       {{"oid", type::oid()},
        {"tgrelid", type::oid()},
        {"tgparentid", type::oid()},
        {"tgname", type::name()},
        {"tgfoid", type::oid()},
        {"tgtype", type::smallInt()},
        {"tgenabled", type::text()},
        {"tgisinternal", type::boolean()},
        {"tgconstrrelid", type::oid()},
        {"tgconstrindid", type::oid()},
        {"tgconstraint", type::oid()},
        {"tgdeferrable", type::boolean()},
        {"tginitdeferred", type::boolean()},
        {"tgnargs", type::smallInt()},
        {"tgattr", engine::LogicalType::int2Vector()},
        {"tgargs", type::text()},
        {"tgqual", type::text()},
        {"tgoldtable", type::name()},
        {"tgnewtable", type::name()}}},
      {"pg_rewrite",
       'r',
       {{"oid", type::oid()},
        {"rulename", type::name()},
        {"ev_class", type::oid()},
        {"ev_type", type::text()},
        {"ev_enabled", type::text()},
        {"is_instead", type::boolean()},
        {"ev_qual", type::text()},
        {"ev_action", type::text()}}},
      {"pg_sequence",
       'r',
       {{"seqrelid", type::oid()},
        {"seqtypid", type::oid()},
        {"seqstart", engine::LogicalType::bigInt()},
        {"seqincrement", engine::LogicalType::bigInt()},
        {"seqmax", engine::LogicalType::bigInt()},
        {"seqmin", engine::LogicalType::bigInt()},
        {"seqcache", engine::LogicalType::bigInt()},
        {"seqcycle", type::boolean()}}},
  };
}

std::vector<sql::ColumnDescription> settingsColumns() {
  return {{"name", type::text()},          {"setting", type::text()},           {"unit", type::text()},
          {"category", type::text()},      {"short_desc", type::text()},        {"extra_desc", type::text()},
          {"context", type::text()},       {"vartype", type::text()},           {"source", type::text()},
          {"min_val", type::text()},       {"max_val", type::text()},           {"enumvals", type::text()},
          {"boot_val", type::text()},      {"reset_val", type::text()},         {"sourcefile", type::text()},
          {"sourceline", type::integer()}, {"pending_restart", type::boolean()}};
}

std::vector<sql::ColumnDescription> tablespaceColumns() {
  return {{"oid", type::oid()},
          {"spcname", type::name()},
          {"spcowner", type::oid()},
          {"spcacl", type::textArray()},
          {"spcoptions", type::textArray()}};
}

SystemRows tablespaceRows() {
  SystemRows rows;
  for (auto [oid, name] : {std::pair{1663, "pg_default"}, std::pair{1664, "pg_global"}}) {
    rows.push_back(
        {value::oid(oid), value::text(name), value::oid(kOwnerRoleOid), value::nullText(), value::nullText()});
  }
  return rows;
}

std::vector<sql::ColumnDescription> collationColumns() {
  return {{"oid", type::oid()},
          {"collname", type::name()},
          {"collnamespace", type::oid()},
          {"collowner", type::oid()},
          {"collprovider", type::text()},
          {"collisdeterministic", type::boolean()},
          {"collencoding", type::integer()},
          {"collcollate", type::text()},
          {"collctype", type::text()},
          {"colliculocale", type::text()},
          {"collversion", type::text()}};
}

/// The collations COLLATE accepts: those that compare byte by byte, as Shoal does (PostgreSQL 15's rows).
SystemRows collationRows() {
  struct Collation {
    int64_t oid;
    std::string_view name;
    char provider;
    int64_t encoding;
    std::optional<std::string_view> locale;
  };
  constexpr Collation kCollations[] = {{100, "default", 'd', -1, std::nullopt},
                                       {950, "C", 'c', -1, "C"},
                                       {951, "POSIX", 'c', -1, "POSIX"},
                                       {12340, "ucs_basic", 'c', 6, "C"}};
  SystemRows rows;
  for (const auto& collation : kCollations) {
    const Value locale = collation.locale ? value::text(*collation.locale) : value::nullText();
    rows.push_back({value::oid(collation.oid), value::text(collation.name), value::oid(kPgCatalogNamespaceOid),
                    value::oid(kOwnerRoleOid), value::character(collation.provider), value::boolean(true),
                    value::integer(collation.encoding), locale, locale, value::nullText(), value::nullText()});
  }
  return rows;
}

std::vector<sql::ColumnDescription> descriptionColumns() {
  return {
      {"objoid", type::oid()}, {"classoid", type::oid()}, {"objsubid", type::integer()}, {"description", type::text()}};
}

SystemRows descriptionRows(const CatalogCommentLister& comments, const CatalogSchemaLister& schemas) {
  SystemRows rows;
  for (const auto& comment : sql::schemaComments(schemas())) {
    rows.push_back({value::oid(comment.oid), value::oid(pgCatalogRelationOid("pg_namespace")), value::integer(0),
                    value::text(comment.text)});
  }
  for (const auto& comment : comments()) {
    rows.push_back({value::oid(comment.oid), value::oid(pgCatalogRelationOid("pg_class")),
                    value::integer(comment.column), value::text(comment.text)});
  }
  return rows;
}

}  // namespace

int64_t pgCatalogRelationOid(std::string_view name) {
  for (const auto& entry : kRelationOids) {
    if (entry.name == name) return entry.oid;
  }
  return 0;
}

std::vector<SystemRelation> pgCatalogRelations(const CatalogRelationLister& relations,
                                               const CatalogSchemaLister& schemas, const CatalogCommentLister& comments,
                                               const CatalogRoleLister& roles) {
  auto relation = [](std::string name, char kind, std::vector<sql::ColumnDescription> columns,
                     std::function<SystemRows(const SystemScanContext&)> rows) {
    const int64_t oid = pgCatalogRelationOid(name);
    return SystemRelation{
        std::string(kPgCatalogSchema), std::move(name), oid, kind, std::move(columns), std::move(rows)};
  };
  std::vector<SystemRelation> all = {
      relation("pg_namespace", 'r', namespaceColumns(),
               [schemas](const SystemScanContext&) { return namespaceRows(schemas); }),
      relation("pg_class", 'r', classColumns(), [relations](const SystemScanContext&) { return classRows(relations); }),
      relation("pg_attribute", 'r', attributeColumns(),
               [relations](const SystemScanContext&) { return attributeRows(relations); }),
      // Built from fixed facts alone: once, not at each of the scans drivers make of it (each row looks its six
      // routines up by name).
      relation("pg_type", 'r', typeColumns(),
               [](const SystemScanContext&) {
                 static const SystemRows kRows = typeRows();
                 return kRows;
               }),
      relation("pg_am", 'r', accessMethodColumns(),
               [](const SystemScanContext&) {
                 return SystemRows{{value::oid(kHeapAccessMethodOid), value::text("heap"),
                                    value::text("heap_tableam_handler"), value::character('t')},
                                   {value::oid(kBtreeAccessMethodOid), value::text("btree"), value::text("bthandler"),
                                    value::character('i')}};
               }),
      relation("pg_database", 'r', databaseColumns(), databaseRows),
      relation("pg_tables", 'v', tablesColumns(),
               [relations](const SystemScanContext&) { return tablesRows(relations); }),
      relation("pg_views", 'v', viewsColumns(), [relations](const SystemScanContext&) { return viewsRows(relations); }),
      relation("pg_roles", 'v', rolesColumns(), [roles](const SystemScanContext&) { return rolesRows(roles()); }),
      relation("pg_description", 'r', descriptionColumns(),
               [comments, schemas](const SystemScanContext&) { return descriptionRows(comments, schemas); }),
      relation("pg_user", 'v', userColumns(), [roles](const SystemScanContext&) { return userRows(roles()); }),
      relation("pg_auth_members", 'r', authMembersColumns(),
               [roles](const SystemScanContext&) { return authMembersRows(roles()); }),
      relation("pg_tablespace", 'r', tablespaceColumns(), [](const SystemScanContext&) { return tablespaceRows(); }),
      relation("pg_settings", 'v', settingsColumns(),
               [](const SystemScanContext& context) { return context.settings ? context.settings() : SystemRows{}; }),
      relation("pg_collation", 'r', collationColumns(), [](const SystemScanContext&) { return collationRows(); }),
      relation("pg_index", 'r', indexColumns(), [relations](const SystemScanContext&) { return indexRows(relations); }),
      relation("pg_opclass", 'r', operatorClassColumns(), [](const SystemScanContext&) { return operatorClassRows(); }),
      relation("pg_proc", 'r', routineColumns(), [](const SystemScanContext&) { return routineRows(); }),
      relation("pg_operator", 'r', operatorColumns(), [](const SystemScanContext&) { return operatorRows(); }),
      relation("pg_constraint", 'r', constraintColumns(),
               [relations](const SystemScanContext&) { return constraintRows(relations); }),
  };
  for (auto& empty : emptyRelations()) {
    all.push_back(relation(std::string(empty.name), empty.kind, std::move(empty.columns),
                           [](const SystemScanContext&) { return SystemRows{}; }));
  }
  return all;
}

}  // namespace shoal::coordinator
