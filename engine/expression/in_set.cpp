#include "engine/expression/in_set.h"

#include <bit>
#include <cmath>
#include <limits>

#include "common/check.h"

namespace shoal::engine {

bool InSet::supports(const LogicalType& type) {
  return !type.isArray() && type.physicalType() != PhysicalType::kBool;
}

uint64_t InSet::doubleKey(double value) {
  if (std::isnan(value)) value = std::numeric_limits<double>::quiet_NaN();
  if (value == 0) value = 0;  // -0 is 0
  return std::bit_cast<uint64_t>(value);
}

InSet::InSet(const std::vector<Value>& elements, const LogicalType& type)
    : physical_(type.physicalType()), interval_(type.id() == TypeId::kInterval), elements_(type, elements.size()) {
  SHOAL_CHECK(supports(type), "IN list of {} as a set", type.toString());
  for (size_t row = 0; row < elements.size(); ++row) elements_.setValue(row, elements[row]);
  for (size_t row = 0; row < elements.size(); ++row) {
    if (elements_.isNull(row)) {
      holdsNull_ = true;
      continue;
    }
    switch (physical_) {
      case PhysicalType::kInt32:
        integers_.insert(elements_.data<int32_t>()[row]);
        break;
      case PhysicalType::kInt64:
        integers_.insert(elements_.data<int64_t>()[row]);
        break;
      case PhysicalType::kInt128:
        wideIntegers_.insert(wideKey(elements_.data<__int128>()[row]));
        break;
      case PhysicalType::kDouble:
        doubles_.insert(doubleKey(elements_.data<double>()[row]));
        break;
      case PhysicalType::kString:
        strings_.insert(elements_.data<StringRef>()[row].view());
        break;
      case PhysicalType::kBool:
        SHOAL_UNREACHABLE("boolean IN lists stay ORs");
    }
  }
}

Vector InSet::probe(const Vector& values) const {
  const size_t rows = values.size();
  Vector out(LogicalType::boolean(), rows);
  out.validity() = values.validity();
  uint8_t* result = out.data<uint8_t>();
  for (size_t row = 0; row < rows; ++row) {
    if (values.isNull(row)) continue;
    bool found = false;
    switch (physical_) {
      case PhysicalType::kInt32:
        found = integers_.contains(values.data<int32_t>()[row]);
        break;
      case PhysicalType::kInt64:
        found = integers_.contains(values.data<int64_t>()[row]);
        break;
      case PhysicalType::kInt128:
        found = wideIntegers_.contains(wideKey(values.data<__int128>()[row]));
        break;
      case PhysicalType::kDouble:
        found = doubles_.contains(doubleKey(values.data<double>()[row]));
        break;
      case PhysicalType::kString:
        found = strings_.contains(values.data<StringRef>()[row].view());
        break;
      case PhysicalType::kBool:
        SHOAL_UNREACHABLE("boolean IN lists stay ORs");
    }
    result[row] = found ? 1 : 0;
    // No match against a list with a NULL is unknown, as x = NULL is.
    if (!found && holdsNull_) out.setNull(row, true);
  }
  return out;
}

}  // namespace shoal::engine
