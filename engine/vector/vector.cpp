#include "engine/vector/vector.h"

#include <cstring>

#include "engine/types/array_value.h"
#include "engine/types/bytea_text.h"
#include "engine/types/interval.h"
#include "engine/types/record_type.h"
#include "engine/types/text_format.h"
#include "engine/types/time_zone.h"
#include "engine/types/timestamp_text.h"
#include "engine/types/uuid_value.h"

namespace shoal::engine {

size_t physicalTypeWidth(PhysicalType type) {
  switch (type) {
    case PhysicalType::kBool:
      return sizeof(uint8_t);
    case PhysicalType::kInt32:
      return sizeof(int32_t);
    case PhysicalType::kInt64:
      return sizeof(int64_t);
    case PhysicalType::kInt128:
      return sizeof(int128_t);
    case PhysicalType::kDouble:
      return sizeof(double);
    case PhysicalType::kString:
      return sizeof(StringRef);
  }
  return 0;
}

Vector::Vector(LogicalType type, size_t capacity)
    : type_(type),
      size_(capacity),
      capacity_(capacity),
      data_(std::make_unique<std::byte[]>(std::max<size_t>(capacity, 1) * physicalTypeWidth(type.physicalType()))),
      validity_(capacity),
      heap_(std::make_shared<StringHeap>()) {}

Vector::Vector(LogicalType type, size_t capacity, UninitializedTag)
    : type_(type),
      size_(capacity),
      capacity_(capacity),
      data_(std::make_unique_for_overwrite<std::byte[]>(std::max<size_t>(capacity, 1) *
                                                        physicalTypeWidth(type.physicalType()))),
      validity_(capacity),
      heap_(std::make_shared<StringHeap>()) {}

Vector Vector::uninitialized(LogicalType type, size_t capacity) {
  return Vector(type, capacity, UninitializedTag{});
}

void Vector::resize(size_t numRows) {
  if (numRows > capacity_) {
    size_t width = physicalTypeWidth(type_.physicalType());
    auto grown = std::make_unique<std::byte[]>(numRows * width);
    std::memcpy(grown.get(), data_.get(), capacity_ * width);
    data_ = std::move(grown);
    validity_.resize(numRows);
    capacity_ = numRows;
  }
  size_ = numRows;
}

void Vector::setValue(size_t row, const Value& value) {
  if (value.isNull()) {
    setNull(row, true);
    return;
  }
  setNull(row, false);
  switch (type_.physicalType()) {
    case PhysicalType::kBool:
      data<uint8_t>()[row] = value.asBool();
      break;
    case PhysicalType::kInt32:
      data<int32_t>()[row] = value.asInt32();
      break;
    case PhysicalType::kInt64:
      data<int64_t>()[row] = type_.id() == TypeId::kDecimal ? static_cast<int64_t>(value.asDecimal()) : value.asInt64();
      break;
    case PhysicalType::kInt128:
      data<int128_t>()[row] = value.asDecimal();
      break;
    case PhysicalType::kDouble:
      data<double>()[row] = value.asDouble();
      break;
    case PhysicalType::kString:
      setString(row, value.asString());
      break;
  }
}

Value Vector::getValue(size_t row) const {
  if (isNull(row)) {
    return Value::null(type_);
  }
  switch (type_.id()) {
    case TypeId::kBoolean:
      return Value::boolean(data<uint8_t>()[row] != 0);
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kDate:
      return Value::ofInt32(type_, data<int32_t>()[row]);
    case TypeId::kBigInt:
      return Value::bigInt(data<int64_t>()[row]);
    case TypeId::kTimestamp:
      return Value::timestamp(data<int64_t>()[row]);
    case TypeId::kTimestampTz:
      return Value::timestampTz(data<int64_t>()[row]);
    case TypeId::kTime:
      return Value::time(data<int64_t>()[row]);
    case TypeId::kInterval:
      return Value::interval(data<int128_t>()[row]);
    case TypeId::kUuid:
      return Value::uuid(data<int128_t>()[row]);
    case TypeId::kBytea:
      return Value::bytea(std::string(data<StringRef>()[row].view()));
    case TypeId::kDecimal:
      return Value::decimal(
          type_, type_.physicalType() == PhysicalType::kInt64 ? data<int64_t>()[row] : data<int128_t>()[row]);
    case TypeId::kDouble:
      return Value::ofDouble(type_, data<double>()[row]);
    case TypeId::kUnknown:
      return Value::unknownLiteral(std::string(data<StringRef>()[row].view()));
    case TypeId::kVarchar:
    case TypeId::kChar:
    case TypeId::kRecord:
      return Value::varchar(std::string(data<StringRef>()[row].view()), type_);
    case TypeId::kArray:
      return Value::array(type_, std::string(data<StringRef>()[row].view()));
  }
  return Value::null(type_);
}

void Vector::appendText(size_t row, std::string& out, const TimeZone* zone) const {
  switch (type_.id()) {
    case TypeId::kBoolean:
      out += data<uint8_t>()[row] ? 't' : 'f';
      break;
    case TypeId::kSmallInt:
    case TypeId::kInteger:
      out += std::to_string(data<int32_t>()[row]);
      break;
    case TypeId::kBigInt:
      out += std::to_string(data<int64_t>()[row]);
      break;
    case TypeId::kDecimal:
      appendDecimalText(type_.physicalType() == PhysicalType::kInt64 ? data<int64_t>()[row] : data<int128_t>()[row],
                        type_.scale(), out);
      break;
    case TypeId::kDouble:
      if (type_.isReal()) {
        appendRealText(static_cast<float>(data<double>()[row]), out);
      } else {
        appendDoubleText(data<double>()[row], out);
      }
      break;
    case TypeId::kDate:
      appendDateText(data<int32_t>()[row], out);
      break;
    case TypeId::kTimestamp:
      appendTimestampText(data<int64_t>()[row], out);
      break;
    case TypeId::kTimestampTz:
      appendTimestampTzText(data<int64_t>()[row], zone ? *zone : TimeZone::utc(), out);
      break;
    case TypeId::kTime:
      appendTimeText(data<int64_t>()[row], out);
      break;
    case TypeId::kInterval:
      appendIntervalText(unpackInterval(data<int128_t>()[row]), out);
      break;
    case TypeId::kUuid:
      appendUuidText(data<int128_t>()[row], out);
      break;
    case TypeId::kBytea:
      appendByteaText(data<StringRef>()[row].view(), out);
      break;
    case TypeId::kUnknown:
    case TypeId::kVarchar:
      out += data<StringRef>()[row].view();
      break;
    case TypeId::kChar: {
      std::string_view text = data<StringRef>()[row].view();
      out += text;
      if (text.size() < type_.maxLength()) out.append(type_.maxLength() - text.size(), ' ');
      break;
    }
    case TypeId::kArray:
      appendArrayText(data<StringRef>()[row].view(), type_, out, zone);
      break;
    case TypeId::kRecord:
      appendRecordText(data<StringRef>()[row].view(), out);
      break;
  }
}

Vector Vector::select(std::span<const uint32_t> rows) const {
  Vector out = uninitialized(type_, rows.size());
  const size_t width = physicalTypeWidth(type_.physicalType());
  const std::byte* from = data_.get();
  std::byte* to = out.data_.get();
  for ([[maybe_unused]] uint32_t row : rows) SHOAL_DCHECK(row < size_);
  if (!validity_.allValid(size_)) {
    for (size_t i = 0; i < rows.size(); ++i) out.setNull(i, isNull(rows[i]));
  }
  gatherValues(to, from, width, rows.size(), [&](size_t i) { return rows[i]; });
  // The handles point into this vector's heaps (or storage that outlives the query): share them.
  if (type_.physicalType() == PhysicalType::kString) out.shareStringsOf(*this);
  return out;
}

size_t Vector::memoryBytes() const {
  return capacity_ * physicalTypeWidth(type_.physicalType()) + capacity_ / 8 + heap_->allocatedBytes();
}

void Vector::shareStringsOf(const Vector& other) {
  owners_.insert(owners_.end(), other.owners_.begin(), other.owners_.end());
  if (other.heap_->allocatedBytes() > 0) owners_.push_back(other.heap_);
}

std::string Vector::toString() const {
  constexpr size_t kRowsShown = 8;
  std::string text = fmt::format("Vector({}, size={}, capacity={}) [", type_.toString(), size_, capacity_);
  for (size_t row = 0; row < std::min(size_, kRowsShown); ++row) {
    text += row > 0 ? ", " : "";
    if (isNull(row)) {
      text += "NULL";
    } else {
      appendText(row, text);
    }
  }
  return text + (size_ > kRowsShown ? ", ...]" : "]");
}

void Vector::copyRow(size_t row, const Vector& from, size_t fromRow) {
  if (from.isNull(fromRow)) {
    setNull(row, true);
    return;
  }
  setNull(row, false);
  switch (type_.physicalType()) {
    case PhysicalType::kBool:
      data<uint8_t>()[row] = from.data<uint8_t>()[fromRow];
      break;
    case PhysicalType::kInt32:
      data<int32_t>()[row] = from.data<int32_t>()[fromRow];
      break;
    case PhysicalType::kInt64:
      data<int64_t>()[row] = from.data<int64_t>()[fromRow];
      break;
    case PhysicalType::kInt128:
      data<int128_t>()[row] = from.data<int128_t>()[fromRow];
      break;
    case PhysicalType::kDouble:
      data<double>()[row] = from.data<double>()[fromRow];
      break;
    case PhysicalType::kString:
      setString(row, from.data<StringRef>()[fromRow].view());
      break;
  }
}

}  // namespace shoal::engine
