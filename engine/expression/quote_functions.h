#pragma once

#include <span>

#include "engine/expression/scalar_function.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// quote_ident(text), quote_literal(text) and quote_nullable(text) as PostgreSQL 15 quotes: identifiers
/// unless plain lower case and no reserved keyword; literals in single quotes, as E'...' when they hold a
/// backslash; quote_nullable gives NULL as the word NULL (quote_ident and quote_literal: NULL in, NULL out).
Vector evaluateQuote(ScalarFunction function, const Vector& input);

/// format(formatstr, args...) with its arguments' text (NULL: NULL): %s, %I and %L, each with an optional
/// position (%2$s), '-' flag and width (also '*' and '*n$'); %% is one '%'. NULL for a NULL format string.
/// 22023 for an unknown conversion, too few arguments or a malformed specifier; 22004 for %I of NULL.
Vector evaluateFormat(std::span<const Vector* const> arguments);

}  // namespace shoal::engine
