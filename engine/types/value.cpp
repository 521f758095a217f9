#include "engine/types/value.h"

#include "engine/vector/vector.h"

namespace shoal::engine {

Value Value::decimal(LogicalType type, int128_t unscaled) {
  if (type.physicalType() == PhysicalType::kInt64) {
    return Value(type, static_cast<int64_t>(unscaled));
  }
  return Value(type, unscaled);
}

int128_t Value::asDecimal() const {
  if (auto* narrow = std::get_if<int64_t>(&storage_)) {
    return *narrow;
  }
  return std::get<int128_t>(storage_);
}

std::string Value::toString() const {
  if (isNull()) {
    return "NULL";
  }
  Vector vector(type_, 1);
  vector.setValue(0, *this);
  std::string text;
  vector.appendText(0, text);
  return text;
}

}  // namespace shoal::engine
