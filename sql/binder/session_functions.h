#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/expression/expression.h"

namespace shoal::sql {

/// What a session tells the binder, for the functions that describe it.
struct SessionInfo {
  /// The user the client logged in as (current_user, session_user, user).
  std::string user;
  /// The database named in the startup packet (current_database(), current_catalog).
  std::string database;
  /// The backend process id the client was given (pg_backend_pid()).
  int32_t backendPid = 0;
  /// The current value of a setting, as SHOW shows it (current_setting()); fails with 42704 for a name
  /// Shoal does not know. Empty outside a session.
  std::function<std::string(std::string_view)> setting;
  /// When the current transaction and the current statement began, in microseconds since 1970-01-01 UTC
  /// (now() and statement_timestamp()). A statement that reads them is bound again at each execution.
  std::function<int64_t()> transactionStart;
  std::function<int64_t()> statementStart;
  /// setseed(): fixes the seed random() draws from in this session's next statements; nextRandomSeed() gives
  /// a statement's seed (0 when none was set) and moves the sequence on.
  std::function<void(uint64_t)> setRandomSeed;
  std::function<uint64_t()> nextRandomSeed;
};

/// What version() answers. Clients parse it (SQLAlchemy reads "PostgreSQL 15.0"), so it starts as
/// PostgreSQL's does and agrees with the server_version the session reports.
inline constexpr std::string_view kVersionText = "PostgreSQL 15.0 (Shoal 0.1.0) on x86_64-pc-linux-gnu, 64-bit";

class CatalogReader;

/// The value of a function that describes the server or the session: version(), current_database(),
/// current_schema(), pg_backend_pid(), the clock (now(), transaction_timestamp(), statement_timestamp(), and
/// the keywords current_timestamp, localtimestamp and current_date), and the SQL keywords current_user, session_user,
/// user, current_role, current_catalog and current_schema (`name` as spelled in lower case). Returns null when `name`
/// is none of them or takes arguments; `session` may be null outside a session (then only version() and current_schema
/// answer). current_schema is the first existing schema of the search path
/// (`catalog`'s; the default path without one), NULL when there is none.
engine::ExpressionPtr bindSessionFunction(std::string_view name, size_t numArguments, const SessionInfo* session,
                                          const CatalogReader* catalog);

/// current_schemas(include_implicit) -> text[]: the schemas on the search path that exist, pg_catalog first
/// when `includeImplicit` (a BOOLEAN expression) is true and the path does not place it.
engine::ExpressionPtr bindCurrentSchemas(engine::ExpressionPtr includeImplicit, const CatalogReader* catalog);

/// current_setting(name [, missing_ok]): the setting's value as the statement is bound, NULL for NULL
/// arguments, and for an unknown name 42704 (or NULL when missing_ok). The arguments must be constants
/// (0A000 otherwise).
engine::ExpressionPtr bindCurrentSetting(const std::vector<engine::ExpressionPtr>& arguments,
                                         const SessionInfo* session);

}  // namespace shoal::sql
