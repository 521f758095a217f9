#include "coordinator/query/setting_facts.h"

#include <algorithm>

namespace shoal::coordinator {

namespace {

constexpr std::string_view kLocale = "Client Connection Defaults / Locale and Formatting";
constexpr std::string_view kStatement = "Client Connection Defaults / Statement Behavior";
constexpr std::string_view kPreset = "Preset Options";
constexpr std::string_view kTimeoutOff = "A value of 0 turns off the timeout.";
constexpr std::string_view kMaxInt = "2147483647";

const std::vector<SettingFacts>& allFacts() {
  static const std::vector<std::string_view> kIsolations = {"serializable", "repeatable read", "read committed",
                                                            "read uncommitted"};
  static const std::vector<SettingFacts> facts = {
      {"DateStyle",
       "",
       kLocale,
       "Also controls interpretation of ambiguous date inputs.",
       "user",
       "string",
       "",
       "",
       {}},
      {"IntervalStyle",
       "",
       kLocale,
       "",
       "user",
       "enum",
       "",
       "",
       {"postgres", "postgres_verbose", "sql_standard", "iso_8601"}},
      {"TimeZone", "", kLocale, "", "user", "string", "", "", {}},
      {"application_name", "", "Reporting and Logging / What to Log", "", "user", "string", "", "", {}},
      {"bytea_output", "", kStatement, "", "user", "enum", "", "", {"escape", "hex"}},
      {"client_encoding", "", kLocale, "", "user", "string", "", "", {}},
      {"client_min_messages",
       "",
       kStatement,
       "Each level includes all the levels that follow it. The later the level, the fewer messages are sent.",
       "user",
       "enum",
       "",
       "",
       {"debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error"}},
      {"default_transaction_isolation", "", kStatement, "", "user", "enum", "", "", kIsolations},
      {"extra_float_digits",
       "",
       kLocale,
       "This affects real, double precision, and geometric data types. A zero or negative parameter value is "
       "added to the standard number of digits (FLT_DIG or DBL_DIG as appropriate). Any value greater than zero "
       "selects precise output mode.",
       "user",
       "integer",
       "-15",
       "3",
       {}},
      {"geqo",
       "",
       "Query Tuning / Genetic Query Optimizer",
       "This algorithm attempts to do planning without exhaustive searching.",
       "user",
       "bool",
       "",
       "",
       {}},
      {"idle_in_transaction_session_timeout", "ms", kStatement, kTimeoutOff, "user", "integer", "0", kMaxInt, {}},
      {"integer_datetimes", "", kPreset, "", "internal", "bool", "", "", {}},
      {"jit", "", "Query Tuning / Other Planner Options", "", "user", "bool", "", "", {}},
      {"lock_timeout", "ms", kStatement, kTimeoutOff, "user", "integer", "0", kMaxInt, {}},
      {"max_identifier_length", "", kPreset, "", "internal", "integer", "63", "63", {}},
      {"search_path", "", kStatement, "", "user", "string", "", "", {}},
      {"server_encoding", "", kPreset, "", "internal", "string", "", "", {}},
      {"server_version", "", kPreset, "", "internal", "string", "", "", {}},
      {"server_version_num", "", kPreset, "", "internal", "integer", "150000", "150000", {}},
      {"standard_conforming_strings",
       "",
       "Version and Platform Compatibility / Previous PostgreSQL Versions",
       "",
       "user",
       "bool",
       "",
       "",
       {}},
      {"statement_timeout", "ms", kStatement, kTimeoutOff, "user", "integer", "0", kMaxInt, {}},
      {"transaction_isolation", "", kStatement, "", "user", "enum", "", "", kIsolations},
      {"transaction_read_only", "", kStatement, "", "user", "bool", "", "", {}},
      // Shoal's own.
      {"query_memory_limit_mb", "MB", "Resource Usage / Memory", "", "user", "integer", "0", "1099511627776", {}},
      {"max_recursive_iterations", "", "Query Tuning / Other Planner Options", "", "user", "integer", "1", kMaxInt, {}},
  };
  return facts;
}

}  // namespace

const SettingFacts* settingFacts(std::string_view name) {
  const auto& facts = allFacts();
  auto found = std::find_if(facts.begin(), facts.end(), [&](const SettingFacts& each) { return each.name == name; });
  return found == facts.end() ? nullptr : &*found;
}

}  // namespace shoal::coordinator
