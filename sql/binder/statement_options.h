#pragma once

#include <string>

namespace pg_query {
class DefElem;
}  // namespace pg_query

namespace shoal::sql {

/// The text of an option's argument (WITH (name = value) of CREATE TABLE, COPY's options): a string,
/// identifier or number as written; "" when the option has no argument.
std::string optionText(const pg_query::DefElem& option);

/// An option's argument read as a Boolean (no argument means true), as PostgreSQL's defGetBoolean reads it;
/// nullopt-free: anything else fails with 42601 naming the option.
bool optionBoolean(const pg_query::DefElem& option);

}  // namespace shoal::sql
