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

/// Orders two jsonb texts as PostgreSQL's compareJsonbContainers does: by kind first (null < string <
/// number < boolean < array < object), arrays by their length and objects by their number of keys before
/// their contents, keys in stored order; numbers by value ('1.0' equals '1'), strings byte-wise (the C
/// collation). A top-level scalar is an array of one that sorts before real arrays of one element, and
/// after the empty array. Negative, zero or positive.
int compareJsonb(std::string_view left, std::string_view right);

/// Bytes whose byte-wise order is compareJsonb's order, so that ORDER BY can sort jsonb as any bytea.
std::string jsonbSortKey(std::string_view jsonb);

}  // namespace shoal::engine
