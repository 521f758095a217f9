#include "coordinator/catalog/pg_stat_activity.h"

#include "coordinator/catalog/role_visibility.h"
#include "sql/binder/catalog_reader.h"

namespace shoal::coordinator {
namespace {

constexpr int64_t kPgStatActivityOid = 12222;  // PostgreSQL 15's

engine::Value timestampOrNull(std::optional<int64_t> micros) {
  return micros ? engine::Value::timestampTz(*micros) : engine::Value::null(engine::LogicalType::timestampTz());
}

}  // namespace

SystemRelation pgStatActivity(const SessionRegistry& sessions, const TableCatalog& tables) {
  namespace type = system_type;
  namespace value = system_value;
  const engine::LogicalType timestamp = engine::LogicalType::timestampTz();
  std::vector<sql::ColumnDescription> columns = {{"datid", type::oid()},
                                                 {"datname", type::name()},
                                                 {"pid", engine::LogicalType::integer()},
                                                 {"leader_pid", engine::LogicalType::integer()},
                                                 {"usesysid", type::oid()},
                                                 {"usename", type::name()},
                                                 {"application_name", type::text()},
                                                 {"client_addr", type::text()},
                                                 {"client_hostname", type::text()},
                                                 {"client_port", engine::LogicalType::integer()},
                                                 {"backend_start", timestamp},
                                                 {"xact_start", timestamp},
                                                 {"query_start", timestamp},
                                                 {"state_change", timestamp},
                                                 {"wait_event_type", type::text()},
                                                 {"wait_event", type::text()},
                                                 {"state", type::text()},
                                                 {"backend_xid", type::text()},
                                                 {"backend_xmin", type::text()},
                                                 {"query_id", engine::LogicalType::bigInt()},
                                                 {"query", type::text()},
                                                 {"backend_type", type::text()}};
  auto rows = [&sessions, &tables](const SystemScanContext& context) {
    const RoleVisibility visibility(tables, context.user);
    SystemRows rows;
    for (const SessionActivity& session : sessions.snapshot()) {
      const std::optional<int64_t> role = visibility.oidOf(session.user);
      const bool visible = visibility.sees(session.user);
      std::vector<engine::Value> row = {
          value::oid(sql::kDatabaseOid),
          value::text(session.database),
          value::integer(session.processId),
          value::nullInteger(),
          role ? value::oid(*role) : engine::Value::null(type::oid()),
          value::text(session.user),
          value::text(session.applicationName),
          session.clientAddress.empty() ? value::nullText() : value::text(session.clientAddress),
          value::nullText(),
          value::integer(session.clientPort),
          timestampOrNull(session.backendStart),
          timestampOrNull(session.transactionStart),
          timestampOrNull(session.queryStart),
          timestampOrNull(session.stateChange),
          value::nullText(),
          value::nullText(),
          value::text(session.state),
          value::nullText(),
          value::nullText(),
          engine::Value::null(engine::LogicalType::bigInt()),
          value::text(session.query),
          value::text("client backend")};
      if (!visible) {
        // PostgreSQL's answer to a role without the privileges: who and from which program, nothing more.
        constexpr size_t kFirstHidden = 7;  // client_addr
        constexpr size_t kQuery = 20;
        for (size_t column = kFirstHidden; column < kQuery; ++column)
          row[column] = engine::Value::null(row[column].type());
        row[kQuery] = value::text("<insufficient privilege>");
        row[kQuery + 1] = value::nullText();  // backend_type
      }
      rows.push_back(std::move(row));
    }
    return rows;
  };
  return SystemRelation{std::string(sql::kPgCatalogSchema),
                        "pg_stat_activity",
                        kPgStatActivityOid,
                        'v',
                        std::move(columns),
                        std::move(rows)};
}

}  // namespace shoal::coordinator
