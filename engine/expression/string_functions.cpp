#include "engine/expression/string_functions.h"

#include <cctype>

#include "engine/expression/vector_loops.h"

namespace shoal::engine {

Vector evaluateConcat(const Vector& left, const Vector& right) {
  SHOAL_CHECK_EQ(left.size(), right.size());
  Vector out(LogicalType::text(), left.size());
  out.validity() = left.validity();
  out.validity().intersect(right.validity());
  const StringRef* leftData = left.data<StringRef>();
  const StringRef* rightData = right.data<StringRef>();
  std::string joined;
  for (size_t row = 0; row < left.size(); ++row) {
    if (out.isNull(row)) continue;
    joined.assign(leftData[row].view());
    joined.append(rightData[row].view());
    out.setString(row, joined);
  }
  return out;
}

Vector evaluateStringFunction(ScalarFunction function, const Vector& input) {
  const StringRef* strings = input.data<StringRef>();
  if (function == ScalarFunction::kCharLength) {
    Vector out(LogicalType::integer(), input.size());
    unaryLoop<StringRef, int32_t>(input, out, [](const StringRef& text) {
      int32_t characters = 0;
      for (char c : text.view()) {
        characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
      }
      return characters;
    });
    return out;
  }
  SHOAL_CHECK(function == ScalarFunction::kLower || function == ScalarFunction::kUpper, "string function {}",
              scalarFunctionName(function));
  Vector out(LogicalType::text(), input.size());
  out.validity() = input.validity();
  std::string converted;
  for (size_t row = 0; row < input.size(); ++row) {
    if (input.isNull(row)) continue;
    converted.assign(strings[row].view());
    for (char& c : converted) {
      c = static_cast<char>(function == ScalarFunction::kLower ? std::tolower(static_cast<unsigned char>(c))
                                                               : std::toupper(static_cast<unsigned char>(c)));
    }
    out.setString(row, converted);
  }
  return out;
}

}  // namespace shoal::engine
