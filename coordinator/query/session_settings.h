#pragma once

#include <array>
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types/time_zone.h"
#include "engine/types/value.h"

namespace shoal::coordinator {

/// Run-time settings of one client session (SET, SHOW, RESET), with
/// PostgreSQL's defaults for the ones drivers and BI tools ask about.
class SessionSettings {
 public:
  SessionSettings();

  /// Where a setting's value came from, as pg_settings.source says.
  enum class Source { kSession, kClient };

  /// Sets (or with nullopt resets) a setting; fails with 42704 for unknown
  /// names and 22023 for values Shoal cannot honour. Returns the canonical
  /// name when clients must be told of the change (a ParameterStatus).
  /// kClient: the client's startup packet set it, which makes it the value RESET returns to.
  std::optional<std::string> set(std::string_view name, std::optional<std::string> value,
                                 Source source = Source::kSession);
  void resetAll();
  /// The value of a setting; fails with 42704 for unknown names.
  std::string show(std::string_view name) const;

  /// SET query_memory_limit_mb in bytes (0: each node's own default).
  uint64_t queryMemoryLimitBytes() const;
  /// SET max_recursive_iterations: the steps a WITH RECURSIVE query may take.
  uint64_t maxRecursiveIterations() const;
  /// SET statement_timeout (0: none).
  std::chrono::milliseconds statementTimeout() const;
  /// The TimeZone setting's zone: timestamptz values are shown and read in it.
  const engine::TimeZone& timeZone() const;

  /// SHOW ALL: (name, setting, description) of every setting it shows, in PostgreSQL's order.
  std::vector<std::array<std::string, 3>> showAll() const;
  /// A setting's name as PostgreSQL spells it (datestyle: DateStyle), which names SHOW's column; 42704 for none.
  const std::string& canonicalName(std::string_view name) const { return find(name).canonicalName; }

  /// pg_settings' rows: every setting SHOW ALL shows, with PostgreSQL 15's facts (setting_facts.h).
  std::vector<std::vector<engine::Value>> pgSettingsRows() const;

  /// The settings reported to a client right after startup, as (name, value).
  std::vector<std::pair<std::string, std::string>> startupReport() const;

 private:
  struct Setting {
    std::string canonicalName;
    std::string defaultValue;  // what RESET returns to: Shoal's default, or the client's at startup
    std::string value;
    bool reported;            // sent to clients as ParameterStatus
    std::string description;  // SHOW ALL's; empty: hidden from it
    std::string bootValue;    // Shoal's default
    std::string source = "default";
    std::string resetSource = "default";
  };

  Setting& find(std::string_view name);
  const Setting& find(std::string_view name) const;

  std::map<std::string, Setting, std::less<>> settings_;  // keyed by lower-case name
};

}  // namespace shoal::coordinator
