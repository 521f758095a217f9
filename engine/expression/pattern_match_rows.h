#pragma once

#include <string>
#include <string_view>

#include "common/check.h"
#include "engine/types/string_ref.h"
#include "engine/types/utf8.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// The row loop of the pattern matches (LIKE, ~): NULL in, NULL out; `matches(text, row)` decides each row
/// whose text and pattern are both non-NULL, and `negate` flips its answer (NOT LIKE, !~). A CHAR(n) text is
/// padded to n, as PostgreSQL's bpchar operators see it (Shoal stores it unpadded).
template <typename Matches>
Vector matchPatternRows(bool negate, const Vector& text, const Vector& pattern, Matches&& matches) {
  SHOAL_CHECK_EQ(text.size(), pattern.size());
  const size_t numRows = text.size();
  Vector out(LogicalType::boolean(), numRows);
  out.validity() = text.validity();
  out.validity().intersect(pattern.validity());
  const StringRef* texts = text.data<StringRef>();
  uint8_t* result = out.data<uint8_t>();
  const uint32_t padTo = text.type().id() == TypeId::kChar ? text.type().maxLength() : 0;
  std::string padded;
  for (size_t row = 0; row < numRows; ++row) {
    if (!out.validity().isValid(row)) continue;
    std::string_view value = texts[row].view();
    if (padTo != 0) value = padCharacter(value, padTo, padded);
    result[row] = matches(value, row) != negate;
  }
  return out;
}

}  // namespace shoal::engine
