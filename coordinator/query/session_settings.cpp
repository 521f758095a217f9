#include "coordinator/query/session_settings.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "common/status.h"
#include "coordinator/query/setting_facts.h"
#include "engine/types/time_zone.h"

namespace shoal::coordinator {
namespace {

std::string lowerCase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower;
}

// Units of a time setting kept in milliseconds, largest first, as PostgreSQL shows them.
constexpr std::pair<std::string_view, int64_t> kTimeUnits[] = {
    {"d", 86'400'000}, {"h", 3'600'000}, {"min", 60'000}, {"s", 1'000}, {"ms", 1}};

/// A time setting's value ("1500", "1.5s", "2min") in milliseconds, or nullopt when it is not one.
std::optional<double> millisecondsOf(std::string_view text) {
  std::string trimmed(text);
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.pop_back();
  size_t end = 0;
  double number = 0;
  try {
    number = std::stod(trimmed, &end);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string_view unit = std::string_view(trimmed).substr(end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (unit.empty()) return number;
  for (const auto& [name, scale] : kTimeUnits) {
    if (unit == name) return number * static_cast<double>(scale);
  }
  return std::nullopt;
}

std::chrono::milliseconds parseMilliseconds(std::string_view text) {
  return std::chrono::milliseconds(static_cast<int64_t>(millisecondsOf(text).value_or(0)));
}

constexpr uint64_t kMaxInt32 = 2147483647;

/// Checks a whole-number setting (`min` .. `max`) and spells it plainly.
std::string canonicalCount(std::string_view name, const std::string& text, uint64_t min, uint64_t max) {
  size_t end = 0;
  unsigned long long count = 0;
  try {
    count = std::stoull(text, &end);
  } catch (const std::exception&) {
    end = 0;
  }
  if (end == 0 || end != text.size() || text[0] == '-' || count < min || count > max) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid value for parameter \"{}\": \"{}\"", name, text);
  }
  return std::to_string(count);
}

/// Checks a time setting (0 .. INT32_MAX ms, as PostgreSQL's) and spells it as PostgreSQL shows it: "1s",
/// "1500ms", "2min", "0".
std::string canonicalMilliseconds(std::string_view name, std::string_view text) {
  auto milliseconds = millisecondsOf(text);
  if (!milliseconds) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid value for parameter \"{}\": \"{}\"", name, text);
  }
  auto rounded = static_cast<int64_t>(std::llround(*milliseconds));
  if (rounded < 0 || rounded > std::numeric_limits<int32_t>::max()) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue,
                    "{} ms is outside the valid range for parameter \"{}\" (0 .. 2147483647)", rounded, name);
  }
  if (rounded == 0) return "0";
  for (const auto& [unit, scale] : kTimeUnits) {
    if (rounded % scale == 0) return fmt::format("{}{}", rounded / scale, unit);
  }
  return fmt::format("{}ms", rounded);
}

/// PostgreSQL's reading of a DateStyle value: an output style and a field order, each optional (what is left
/// out keeps its `current` value), spelled as SHOW shows it ("ISO, DMY"). Shoal prints dates in ISO only:
/// the other styles are refused (22023) rather than ignored.
std::string canonicalDateStyle(std::string_view text, std::string_view current) {
  std::string style(current.substr(0, current.find(',')));
  std::string order(current.size() > style.size() + 2 ? current.substr(style.size() + 2) : "MDY");
  std::string word;
  auto take = [&]() {
    if (word.empty()) return;
    const std::string lower = lowerCase(word);
    if (lower == "iso") {
      style = "ISO";
    } else if (lower == "sql" || lower == "postgres" || lower == "german") {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "DateStyle \"{}\" is not supported: Shoal uses ISO", text);
    } else if (lower == "dmy" || lower == "euro" || lower == "european") {
      order = "DMY";
    } else if (lower == "mdy" || lower == "us" || lower == "noneuro" || lower == "noneuropean") {
      order = "MDY";
    } else if (lower == "ymd") {
      order = "YMD";
    } else {
      throw ShoalError(Status(SqlState::kInvalidParameterValue,
                              fmt::format("invalid value for parameter \"DateStyle\": \"{}\"", text))
                           .withDetail(fmt::format("Unrecognized key word: \"{}\".", word)));
    }
    word.clear();
  };
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '\t') {
      take();
    } else {
      word += c;
    }
  }
  take();
  return style + ", " + order;
}

}  // namespace

SessionSettings::SessionSettings() {
  struct Default {
    const char* name;
    const char* value;
    bool reported;
    /// PostgreSQL's short description, shown by SHOW ALL; none for the settings it hides there too.
    const char* description;
  };
  // Reported ones are the ParameterStatus set a PostgreSQL 15 server sends.
  static const Default kDefaults[] = {
      {"server_version", "15.0 (Shoal 0.1.0)", true, "Shows the server version."},
      {"server_version_num", "150000", false, "Shows the server version as an integer."},
      {"server_encoding", "UTF8", true, "Shows the server (database) character set encoding."},
      {"client_encoding", "UTF8", true, "Sets the client's character set encoding."},
      {"DateStyle", "ISO, MDY", true, "Sets the display format for date and time values."},
      {"IntervalStyle", "postgres", true, "Sets the display format for interval values."},
      {"TimeZone", "UTC", true, "Sets the time zone for displaying and interpreting time stamps."},
      {"integer_datetimes", "on", true, "Shows whether datetimes are integer based."},
      {"standard_conforming_strings", "on", true, "Causes '...' strings to treat backslashes literally."},
      {"application_name", "", true, "Sets the application name to be reported in statistics and logs."},
      {"is_superuser", "off", true, ""},
      {"session_authorization", "shoal", true, ""},
      {"extra_float_digits", "1", false, "Sets the number of digits displayed for floating-point values."},
      {"search_path", "\"$user\", public", false,
       "Sets the schema search order for names that are not schema-qualified."},
      {"statement_timeout", "0", false, "Sets the maximum allowed duration of any statement."},
      {"lock_timeout", "0", false, "Sets the maximum allowed duration of any wait for a lock."},
      {"idle_in_transaction_session_timeout", "0", false,
       "Sets the maximum allowed idle time between queries, when in a transaction."},
      {"client_min_messages", "notice", false, "Sets the message levels that are sent to the client."},
      {"transaction_isolation", "read committed", false, "Sets the current transaction's isolation level."},
      {"default_transaction_isolation", "read committed", false,
       "Sets the transaction isolation level of each new transaction."},
      {"transaction_read_only", "off", false, "Sets the current transaction's read-only status."},
      {"max_identifier_length", "63", false, "Shows the maximum identifier length."},
      {"bytea_output", "hex", false, "Sets the output format for bytea."},
      {"geqo", "on", false, "Enables genetic query optimization."},
      {"jit", "on", false, "Allow JIT compilation."},
      // Shoal's own: the per-query memory limit on each node; 0 takes the worker's --query-memory-limit-mb.
      {"query_memory_limit_mb", "0", false,
       "Sets the memory one query may hold on each worker, in megabytes (0: the worker's own limit)."},
      // Shoal's own: how many steps a WITH RECURSIVE query may take before it fails (54001).
      {"max_recursive_iterations", "10000", false,
       "Sets how many iterations a WITH RECURSIVE query may run before it fails."},
  };
  for (const auto& entry : kDefaults) {
    settings_[lowerCase(entry.name)] =
        Setting{entry.name, entry.value, entry.value, entry.reported, entry.description, entry.value};
  }
}

SessionSettings::Setting& SessionSettings::find(std::string_view name) {
  return const_cast<Setting&>(static_cast<const SessionSettings*>(this)->find(name));
}

const SessionSettings::Setting& SessionSettings::find(std::string_view name) const {
  auto it = settings_.find(lowerCase(name));
  if (it == settings_.end()) {
    SHOAL_USER_FAIL(SqlState::kUndefinedObject, "unrecognized configuration parameter \"{}\"", name);
  }
  return it->second;
}

std::optional<std::string> SessionSettings::set(std::string_view name, std::optional<std::string> value,
                                                Source source) {
  Setting& setting = find(name);
  std::string lower = lowerCase(setting.canonicalName);
  std::string newValue = value.value_or(setting.defaultValue);
  // Shoal always speaks UTF-8 and ISO dates; refuse what it cannot honour rather than ignore it.
  if (lower == "client_encoding") {
    std::string encoding = lowerCase(newValue);
    if (encoding != "utf8" && encoding != "utf-8" && encoding != "unicode") {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "client encoding \"{}\" is not supported: Shoal speaks UTF8",
                      newValue);
    }
    newValue = "UTF8";
  } else if (lower == "timezone") {
    // A zone tzdata knows, or a fixed offset; kept in the spelling SHOW gives back.
    newValue = engine::TimeZone::named(newValue).name();
  } else if (lower == "datestyle") {
    newValue = canonicalDateStyle(newValue, value ? std::string_view(setting.value) : std::string_view("ISO, MDY"));
  } else if (lower == "server_version" || lower == "server_encoding" || lower == "integer_datetimes" ||
             lower == "is_superuser" || lower == "max_identifier_length" || lower == "server_version_num") {
    SHOAL_USER_FAIL(SqlState::kCantChangeRuntimeParam, "parameter \"{}\" cannot be changed", setting.canonicalName);
  }
  if (lower == "query_memory_limit_mb") newValue = canonicalCount(setting.canonicalName, newValue, 0, 1ULL << 40);
  if (lower == "max_recursive_iterations") newValue = canonicalCount(setting.canonicalName, newValue, 1, kMaxInt32);
  if (lower == "statement_timeout") newValue = canonicalMilliseconds(setting.canonicalName, newValue);
  setting.value = newValue;
  if (!value) {
    setting.source = setting.resetSource;
  } else if (source == Source::kClient) {
    setting.defaultValue = newValue;
    setting.source = setting.resetSource = "client";
  } else {
    setting.source = "session";
  }
  return setting.reported ? std::optional<std::string>(setting.canonicalName) : std::nullopt;
}

void SessionSettings::resetAll() {
  for (auto& [name, setting] : settings_) {
    setting.value = setting.defaultValue;
    setting.source = setting.resetSource;
  }
}

std::string SessionSettings::show(std::string_view name) const {
  return find(name).value;
}

const engine::TimeZone& SessionSettings::timeZone() const {
  return engine::TimeZone::named(show("TimeZone"));
}

std::chrono::milliseconds SessionSettings::statementTimeout() const {
  return parseMilliseconds(find("statement_timeout").value);
}

uint64_t SessionSettings::queryMemoryLimitBytes() const {
  return std::stoull(find("query_memory_limit_mb").value) << 20;
}

uint64_t SessionSettings::maxRecursiveIterations() const {
  return std::stoull(find("max_recursive_iterations").value);
}

std::vector<std::array<std::string, 3>> SessionSettings::showAll() const {
  std::vector<std::array<std::string, 3>> rows;
  for (const auto& [name, setting] : settings_) {  // keyed by lower-case name: PostgreSQL's order
    if (!setting.description.empty()) rows.push_back({setting.canonicalName, setting.value, setting.description});
  }
  return rows;
}

std::vector<std::vector<engine::Value>> SessionSettings::pgSettingsRows() const {
  using engine::LogicalType;
  using engine::Value;
  auto text = [](std::string_view value) { return Value::varchar(std::string(value)); };
  auto textOrNull = [&](std::string_view value) {
    return value.empty() ? Value::null(LogicalType::text()) : text(value);
  };
  std::vector<std::vector<Value>> rows;
  for (const auto& [name, setting] : settings_) {
    if (setting.description.empty()) continue;  // hidden, as from SHOW ALL
    const SettingFacts* facts = settingFacts(setting.canonicalName);
    // A time setting is shown in its unit (milliseconds), not as SHOW spells it ("5s").
    auto raw = [&](const std::string& value) {
      if (facts == nullptr || facts->unit != "ms") return value;
      return std::to_string(static_cast<int64_t>(std::llround(millisecondsOf(value).value_or(0))));
    };
    std::string choices;
    if (facts != nullptr && !facts->choices.empty()) {
      for (std::string_view choice : facts->choices) {
        const bool quote = choice.find(' ') != std::string_view::npos;
        choices +=
            std::string(choices.empty() ? "{" : ",") + (quote ? "\"" : "") + std::string(choice) + (quote ? "\"" : "");
      }
      choices += "}";
    }
    rows.push_back({text(setting.canonicalName), text(raw(setting.value)), textOrNull(facts ? facts->unit : ""),
                    textOrNull(facts ? facts->category : ""), text(setting.description),
                    textOrNull(facts ? facts->extraDescription : ""), text(facts ? facts->context : "user"),
                    text(facts ? facts->type : "string"), text(setting.source),
                    textOrNull(facts ? facts->minValue : ""), textOrNull(facts ? facts->maxValue : ""),
                    textOrNull(choices), text(raw(setting.bootValue)), text(raw(setting.defaultValue)),
                    Value::null(LogicalType::text()), Value::null(LogicalType::integer()), Value::boolean(false)});
  }
  return rows;
}

std::vector<std::pair<std::string, std::string>> SessionSettings::startupReport() const {
  std::vector<std::pair<std::string, std::string>> report;
  for (const auto& [name, setting] : settings_) {
    if (setting.reported) {
      report.emplace_back(setting.canonicalName, setting.value);
    }
  }
  return report;
}

}  // namespace shoal::coordinator
