#pragma once

#include <string>
#include <string_view>

namespace shoal::engine {

/// jsonb keeps the text PostgreSQL 15 prints for a jsonb value, so that output, ->, ->> and equal values
/// need no second parse: object keys once each (the last wins) and ordered shorter first, then by their
/// bytes; ", " and ": " between items; strings with their escapes decoded and re-escaped as escape_json
/// does; numbers as numeric prints them ('1e2' is 100, '1.50' stays 1.50, '-0' is 0).
/// Fails as jsonb input does: 22P02 for invalid JSON or an unpaired surrogate, 22P05 for \u0000.
std::string jsonbFromText(std::string_view text);

}  // namespace shoal::engine
