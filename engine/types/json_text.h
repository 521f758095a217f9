#pragma once

#include <string>
#include <string_view>

namespace shoal::engine {

/// Fails with 22P02 "invalid input syntax for type json" unless `text` is one JSON value (RFC 8259, as
/// PostgreSQL's json input accepts it: any value at the top, surrounding whitespace allowed).
void requireValidJson(std::string_view text);

/// Appends `text` as a JSON string, quoted and escaped as PostgreSQL's escape_json does: \" \\ \b \f \n \r \t,
/// and \u00XX for the other control characters.
void appendJsonString(std::string_view text, std::string& out);

}  // namespace shoal::engine
