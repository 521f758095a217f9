// pgwire values and messages: the bytes clients read and send.
#include "coordinator/pgwire/value_codec.h"

#include <gtest/gtest.h>

#include "common/status.h"
#include "coordinator/pgwire/message_reader.h"
#include "engine/types/date.h"

namespace shoal::coordinator {
namespace {

using engine::LogicalType;
using engine::Value;

std::vector<uint8_t> fieldBytes(const Value& value, WireFormat format) {
  engine::Vector vector(value.type(), 1);
  vector.setValue(0, value);
  MessageWriter writer;
  writeField(vector, 0, format, writer);
  return writer.buffer();
}

TEST(ValueCodecTest, TextFieldsAreLengthPrefixed) {
  auto bytes = fieldBytes(Value::integer(-42), WireFormat::kText);
  EXPECT_EQ(bytes, (std::vector<uint8_t>{0, 0, 0, 3, '-', '4', '2'}));
  auto null = fieldBytes(Value::null(LogicalType::integer()), WireFormat::kText);
  EXPECT_EQ(null, (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff}));
}

TEST(ValueCodecTest, BinaryNumericMatchesPostgresLayout) {
  // 12345.678 as numeric(8,3): groups 1, 2345, 6780; weight 1; dscale 3.
  auto bytes = fieldBytes(Value::decimal(LogicalType::decimal(8, 3), 12345678), WireFormat::kBinary);
  std::vector<uint8_t> expected = {0, 0, 0, 14, 0, 3, 0, 1, 0, 0, 0, 3, 0, 1, 0x09, 0x29, 0x1a, 0x7c};
  EXPECT_EQ(bytes, expected);
}

TEST(ValueCodecTest, BinaryParametersRoundTrip) {
  for (const Value& value :
       {Value::decimal(LogicalType::decimal(12, 4), -123456789), Value::decimal(LogicalType::decimal(12, 4), 5),
        Value::integer(7), Value::bigInt(-9000000000), Value::doublePrecision(2.5), Value::date(19000),
        Value::boolean(true)}) {
    auto bytes = fieldBytes(value, WireFormat::kBinary);
    std::span<const uint8_t> payload(bytes.data() + 4, bytes.size() - 4);
    Value decoded = decodeParameter(payload, WireFormat::kBinary, value.type());
    EXPECT_EQ(decoded.toString(), value.toString());
  }
}

TEST(ValueCodecTest, InfiniteDatesTravelAsPostgresqlsInt32Extremes) {
  // date_send sends DATEVAL_NOEND and DATEVAL_NOBEGIN as they are, not shifted to the 2000 epoch.
  auto infinity = fieldBytes(Value::date(engine::kDateInfinity), WireFormat::kBinary);
  EXPECT_EQ(infinity, (std::vector<uint8_t>{0, 0, 0, 4, 0x7f, 0xff, 0xff, 0xff}));
  auto minusInfinity = fieldBytes(Value::date(engine::kDateMinusInfinity), WireFormat::kBinary);
  EXPECT_EQ(minusInfinity, (std::vector<uint8_t>{0, 0, 0, 4, 0x80, 0, 0, 0}));
  auto epoch2000 = fieldBytes(Value::date(10957), WireFormat::kBinary);
  EXPECT_EQ(epoch2000, (std::vector<uint8_t>{0, 0, 0, 4, 0, 0, 0, 0}));
  for (const auto& [bytes, text] : {std::pair{infinity, "infinity"}, std::pair{minusInfinity, "-infinity"}}) {
    std::span<const uint8_t> payload(bytes.data() + 4, bytes.size() - 4);
    EXPECT_EQ(decodeParameter(payload, WireFormat::kBinary, LogicalType::date()).toString(), text);
  }
}

TEST(ValueCodecTest, MalformedInputFailsCleanly) {
  std::vector<uint8_t> threeBytes = {1, 2, 3};
  EXPECT_THROW(decodeParameter(threeBytes, WireFormat::kBinary, LogicalType::integer()), ShoalError);
  MessageReader reader(threeBytes);
  EXPECT_THROW(reader.readInt32(), ShoalError);
  MessageReader unterminated(threeBytes);
  EXPECT_THROW(unterminated.readString(), ShoalError);
}

}  // namespace
}  // namespace shoal::coordinator
