#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "engine/types/logical_type.h"

namespace shoal::sql {

// PostgreSQL's implicit conversion rules for the types Shoal has, in one place.

/// The type both numeric operands are converted to before arithmetic or
/// comparison: integer < bigint < numeric < double precision. For two
/// DECIMALs: the larger scale, and integer digits enough for both.
engine::LogicalType commonNumericType(const engine::LogicalType& left, const engine::LogicalType& right);

/// The type of a DECIMAL + - * / % result from operands already converted to DECIMAL.
engine::LogicalType decimalResultType(char op, const engine::LogicalType& left, const engine::LogicalType& right);

/// An integer type seen as the DECIMAL that holds all its values.
engine::LogicalType asDecimal(const engine::LogicalType& type);

/// Whether PostgreSQL converts a `from` value to `to` in an assignment (an INSERT's value, an EXECUTE's
/// argument): between numeric types, from anything to a string type, and from an untyped literal; not, for
/// example, from boolean to integer or from a string to a date (those need an explicit cast).
bool assignmentCastExists(const engine::LogicalType& from, const engine::LogicalType& to);

/// The common type for comparing two operands, or nullopt when PostgreSQL has no such operator.
/// Why values of `type` cannot be grouped (or, with `ordering`, sorted), as a SQLSTATE and a message; nullopt
/// when they can. json has no equality or ordering (42883, as in PostgreSQL); jsonb has both there, compared
/// by its structure, which Shoal does not do yet (0A000 rather than an order of its text).
std::optional<std::pair<std::string_view, std::string>> uncomparableReason(const engine::LogicalType& type,
                                                                           bool ordering);

std::optional<engine::LogicalType> comparisonType(const engine::LogicalType& left, const engine::LogicalType& right);

}  // namespace shoal::sql
