#pragma once

#include <string_view>
#include <vector>

namespace shoal::coordinator {

/// What pg_settings says of a setting besides its value: PostgreSQL 15's unit, category, descriptions,
/// context, type, bounds and choices, for the settings Shoal has.
struct SettingFacts {
  std::string_view name;
  std::string_view unit;  // empty: none (NULL)
  std::string_view category;
  std::string_view extraDescription;  // empty: none (NULL)
  std::string_view context;           // user, internal, ...
  std::string_view type;              // bool, integer, real, string, enum
  std::string_view minValue;          // empty: none (NULL)
  std::string_view maxValue;
  std::vector<std::string_view> choices;  // an enum's values
};

/// The facts of setting `name` (its canonical spelling); null for a setting of Shoal's own without any.
const SettingFacts* settingFacts(std::string_view name);

}  // namespace shoal::coordinator
