#include "worker/storage/column_segment.h"

#include <cstring>

namespace shoal::worker {

using engine::LogicalType;
using engine::PhysicalType;
using engine::StringRef;
using engine::Vector;

ColumnSegment::ColumnSegment(const LogicalType& type, std::span<const Vector* const> sources, size_t numRows,
                             uint32_t numaNode, const NumaTopology& topology)
    : type_(type), numRows_(numRows), numaNode_(numaNode), topology_(topology), validity_(numRows) {
  const size_t width = engine::physicalTypeWidth(type.physicalType());
  valueBytes_ = numRows * width;
  values_ = topology_.allocate(valueBytes_, numaNode);
  const bool isString = type.physicalType() == PhysicalType::kString;
  size_t row = 0;
  for (const Vector* source : sources) {
    const size_t count = std::min(source->size(), numRows - row);
    if (isString) {
      const StringRef* strings = source->data<StringRef>();
      StringRef* target = static_cast<StringRef*>(values_) + row;
      for (size_t i = 0; i < count; ++i) {
        target[i] = heap_.add(strings[i].view());  // re-homes long strings in this segment's heap
      }
    } else {
      std::memcpy(static_cast<std::byte*>(values_) + row * width, source->data<std::byte>(), count * width);
    }
    for (size_t i = 0; i < count; ++i) {
      if (source->isNull(i)) validity_.setValid(row + i, false);
    }
    row += count;
  }
  SHOAL_CHECK(row == numRows, "segment of {} rows built from {} rows", numRows, row);
  computeZoneMap();
}

ColumnSegment::~ColumnSegment() {
  topology_.release(values_, valueBytes_);
}

void ColumnSegment::read(size_t start, size_t count, Vector& out) const {
  SHOAL_DCHECK(start + count <= numRows_);
  out.resize(count);
  const size_t width = engine::physicalTypeWidth(type_.physicalType());
  std::memcpy(out.data<std::byte>(), static_cast<const std::byte*>(values_) + start * width, count * width);
  engine::ValidityMask& validity = out.validity();
  if (zoneMap_.nullCount == 0) {
    validity.setAllValid();
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    validity.setValid(i, validity_.isValid(start + i));
  }
}

size_t ColumnSegment::memoryBytes() const {
  return valueBytes_ + validity_.numWords() * sizeof(uint64_t) + heap_.allocatedBytes();
}

namespace {

template <class T, class Less>
void minMax(const T* values, const engine::ValidityMask& validity, size_t numRows, size_t& nullCount,
            std::optional<T>& min, std::optional<T>& max, Less less) {
  for (size_t row = 0; row < numRows; ++row) {
    if (!validity.isValid(row)) {
      ++nullCount;
      continue;
    }
    if (!min || less(values[row], *min)) min = values[row];
    if (!max || less(*max, values[row])) max = values[row];
  }
}

}  // namespace

void ColumnSegment::computeZoneMap() {
  zoneMap_.min = engine::Value::null(type_);
  zoneMap_.max = engine::Value::null(type_);
  auto fill = [&](auto tag, auto less, auto toValue) {
    using T = decltype(tag);
    std::optional<T> min;
    std::optional<T> max;
    minMax(static_cast<const T*>(values_), validity_, numRows_, zoneMap_.nullCount, min, max, less);
    if (min) {
      zoneMap_.min = toValue(*min);
      zoneMap_.max = toValue(*max);
    }
  };
  auto less = [](const auto& a, const auto& b) { return a < b; };
  switch (type_.id()) {
    case engine::TypeId::kBoolean:
      fill(uint8_t{}, less, [](uint8_t v) { return engine::Value::boolean(v != 0); });
      break;
    case engine::TypeId::kInteger:
      fill(int32_t{}, less, [](int32_t v) { return engine::Value::integer(v); });
      break;
    case engine::TypeId::kDate:
      fill(int32_t{}, less, [](int32_t v) { return engine::Value::date(v); });
      break;
    case engine::TypeId::kBigInt:
      fill(int64_t{}, less, [](int64_t v) { return engine::Value::bigInt(v); });
      break;
    case engine::TypeId::kDecimal:
      if (type_.physicalType() == PhysicalType::kInt64) {
        fill(int64_t{}, less, [&](int64_t v) { return engine::Value::decimal(type_, v); });
      } else {
        fill(engine::int128_t{}, less, [&](engine::int128_t v) { return engine::Value::decimal(type_, v); });
      }
      break;
    case engine::TypeId::kDouble:
      // NaN sorts above every number, as in PostgreSQL.
      fill(
          double{}, [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; },
          [](double v) { return engine::Value::doublePrecision(v); });
      break;
    case engine::TypeId::kVarchar:
    case engine::TypeId::kChar:
    case engine::TypeId::kUnknown:
      fill(
          StringRef{}, [](const StringRef& a, const StringRef& b) { return compare(a, b) < 0; },
          [&](const StringRef& v) { return engine::Value::varchar(std::string(v.view()), type_); });
      break;
  }
}

}  // namespace shoal::worker
