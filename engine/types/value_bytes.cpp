#include "engine/types/value_bytes.h"

#include "common/varint.h"

namespace shoal::engine {
void appendValueBytes(std::string& out, const LogicalType& type, const Value& value) {
  switch (type.physicalType()) {
    case PhysicalType::kBool:
      out.push_back(value.asBool() ? 1 : 0);
      break;
    case PhysicalType::kInt32:
      appendFixedBytes(out, value.asInt32());
      break;
    case PhysicalType::kInt64:
      appendFixedBytes(out, static_cast<int64_t>(type.id() == TypeId::kDecimal ? value.asDecimal() : value.asInt64()));
      break;
    case PhysicalType::kInt128:
      appendFixedBytes(out, value.asDecimal());
      break;
    case PhysicalType::kDouble:
      appendFixedBytes(out, value.asDouble());
      break;
    case PhysicalType::kString:
      appendVarint(out, value.asString().size());
      out.append(value.asString());
      break;
  }
}

Value readValueBytes(ByteReader& reader, const LogicalType& type) {
  switch (type.id()) {
    case TypeId::kBoolean: {
      const uint8_t byte = reader.read<uint8_t>();
      if (byte > 1) reader.fail("a boolean byte that is neither 0 nor 1");
      return Value::boolean(byte == 1);
    }
    case TypeId::kSmallInt:
    case TypeId::kInteger:
    case TypeId::kDate:
      return Value::ofInt32(type, reader.read<int32_t>());
    case TypeId::kBigInt:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTime:
      return Value::ofInt64(type, reader.read<int64_t>());
    case TypeId::kInterval:
      return Value::interval(reader.read<int128_t>());
    case TypeId::kUuid:
      return Value::uuid(reader.read<int128_t>());
    case TypeId::kDecimal:
      if (type.physicalType() == PhysicalType::kInt64) return Value::decimal(type, reader.read<int64_t>());
      return Value::decimal(type, reader.read<int128_t>());
    case TypeId::kDouble:
      return Value::ofDouble(type, reader.read<double>());
    case TypeId::kVarchar:
    case TypeId::kChar:
    case TypeId::kRecord:
    case TypeId::kUnknown: {
      const uint64_t length = reader.readVarint();
      return Value::varchar(std::string(reader.take(length)), type);
    }
    case TypeId::kArray: {
      const uint64_t length = reader.readVarint();
      return Value::array(type, std::string(reader.take(length)));
    }
    case TypeId::kBytea: {
      const uint64_t length = reader.readVarint();
      return Value::bytea(std::string(reader.take(length)));
    }
  }
  reader.fail("a value of no known type");
}

}  // namespace shoal::engine
