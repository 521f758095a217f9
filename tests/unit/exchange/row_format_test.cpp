// Rows travel between nodes in exchange messages: every type, NULLs and long
// strings come back exactly, messages fill to the byte and no further, and a
// damaged message fails cleanly (XX001) instead of being read past its end.
#include "exchange/row_format.h"

#include <gtest/gtest.h>

#include <random>

#include "common/status.h"

namespace shoal::exchange {
namespace {

using engine::Chunk;
using engine::LogicalType;
using engine::StringRef;
using engine::Vector;

const std::vector<LogicalType> kTypes = {
    LogicalType::integer(),      LogicalType::bigInt(),          LogicalType::decimal(15, 2),
    LogicalType::decimal(38, 4), LogicalType::doublePrecision(), LogicalType::date(),
    LogicalType::varchar(25),    LogicalType::boolean(),         LogicalType::text(),
};

/// Rows of every type; the columns marked nullable have NULLs in about a fifth of their rows.
Chunk randomRows(size_t numRows, const std::vector<bool>& nullable, uint32_t seed) {
  std::mt19937_64 random(seed);
  std::vector<Vector> columns;
  for (size_t column = 0; column < kTypes.size(); ++column) {
    Vector values(kTypes[column], numRows);
    for (size_t row = 0; row < numRows; ++row) {
      switch (kTypes[column].physicalType()) {
        case engine::PhysicalType::kBool:
          values.data<uint8_t>()[row] = random() % 2;
          break;
        case engine::PhysicalType::kInt32:
          values.data<int32_t>()[row] = static_cast<int32_t>(random());
          break;
        case engine::PhysicalType::kInt64:
          values.data<int64_t>()[row] = static_cast<int64_t>(random());
          break;
        case engine::PhysicalType::kInt128:
          values.data<engine::int128_t>()[row] = static_cast<engine::int128_t>(static_cast<int64_t>(random())) << 40;
          break;
        case engine::PhysicalType::kDouble:
          values.data<double>()[row] = static_cast<double>(random()) / 7.0;
          break;
        case engine::PhysicalType::kString:
          // Short (inline in the handle), empty and long (in the heap) strings.
          values.setString(row, std::string(random() % 40, static_cast<char>('a' + random() % 26)));
          break;
      }
      if (nullable[column] && random() % 5 == 0) values.setNull(row, true);
    }
    columns.push_back(std::move(values));
  }
  return Chunk(std::move(columns), numRows);
}

void expectSameRow(const Chunk& expected, size_t expectedRow, const Chunk& got, size_t gotRow) {
  for (size_t column = 0; column < kTypes.size(); ++column) {
    const Vector& a = expected.column(column);
    const Vector& b = got.column(column);
    ASSERT_EQ(a.isNull(expectedRow), b.isNull(gotRow)) << "column " << column << " row " << expectedRow;
    if (a.isNull(expectedRow)) continue;
    ASSERT_EQ(a.getValue(expectedRow).toString(), b.getValue(gotRow).toString())
        << "column " << column << " row " << expectedRow;
  }
}

TEST(RowFormatTest, EveryTypeAndNullRoundTripsAcrossMessages) {
  std::vector<bool> nullable = {false, true, false, true, true, false, true, true, false};
  RowLayout layout(kTypes, nullable);
  Chunk input = randomRows(5000, nullable, 11);
  std::vector<std::byte> buffer(16 * 1024);  // small messages: the rows span many
  RowWriter writer(layout, buffer);
  size_t next = 0;
  size_t messages = 0;
  while (next < input.size()) {
    writer.reset(buffer);
    const size_t first = next;
    while (next < input.size() && writer.append(input, next)) ++next;
    ASSERT_GT(next, first) << "no row fitted an empty message";
    const size_t used = writer.finish();
    ASSERT_LE(used, buffer.size());
    // A message is full: the next row would not have fitted.
    if (next < input.size()) {
      EXPECT_GT(used + layout.rowBytes(input, next), buffer.size());
    }
    Chunk decoded = decodeRows(layout, std::span<const std::byte>(buffer.data(), used));
    ASSERT_EQ(decoded.size(), next - first);
    for (size_t i = 0; i < decoded.size(); ++i) expectSameRow(input, first + i, decoded, i);
    ++messages;
  }
  EXPECT_GT(messages, 10u);
}

TEST(RowFormatTest, RowsAreDenseAndOnlyUsedBytesCount) {
  // A NOT NULL integer and a nullable bigint: 4 bytes, a bitmap byte, and 8 bytes only when not NULL.
  RowLayout layout({LogicalType::integer(), LogicalType::bigInt()}, {false, true});
  Vector ids(LogicalType::integer(), 2);
  Vector amounts(LogicalType::bigInt(), 2);
  ids.data<int32_t>()[0] = 1;
  ids.data<int32_t>()[1] = 2;
  amounts.data<int64_t>()[0] = 10;
  amounts.setNull(1, true);
  std::vector<Vector> columns;
  columns.push_back(std::move(ids));
  columns.push_back(std::move(amounts));
  Chunk chunk(std::move(columns), 2);
  EXPECT_EQ(layout.rowBytes(chunk, 0), 4u + 1 + 8);
  EXPECT_EQ(layout.rowBytes(chunk, 1), 4u + 1);
  std::vector<std::byte> buffer(512 * 1024);
  RowWriter writer(layout, buffer);
  ASSERT_TRUE(writer.append(chunk, 0));
  ASSERT_TRUE(writer.append(chunk, 1));
  EXPECT_EQ(writer.finish(), RowWriter::kHeaderBytes + 13 + 5);
}

TEST(RowFormatTest, ARowLargerThanAMessageFailsClearly) {
  RowLayout layout({LogicalType::text()}, {false});
  Vector text(LogicalType::text(), 1);
  text.setString(0, std::string(2000, 'x'));
  std::vector<Vector> columns;
  columns.push_back(std::move(text));
  Chunk chunk(std::move(columns), 1);
  std::vector<std::byte> buffer(1024);
  RowWriter writer(layout, buffer);
  try {
    (void)writer.append(chunk, 0);
    FAIL() << "a 2000-byte row fitted a 1024-byte message";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kProgramLimitExceeded);
  }
}

TEST(RowFormatTest, DamagedMessagesFailWithXX001) {
  std::vector<bool> nullable(kTypes.size(), true);
  RowLayout layout(kTypes, nullable);
  Chunk input = randomRows(50, nullable, 5);
  std::vector<std::byte> buffer(64 * 1024);
  RowWriter writer(layout, buffer);
  for (size_t row = 0; row < input.size(); ++row) ASSERT_TRUE(writer.append(input, row));
  const size_t used = writer.finish();
  auto expectCorrupted = [&](std::span<const std::byte> bytes) {
    try {
      (void)decodeRows(layout, bytes);
      FAIL() << "a damaged message decoded";
    } catch (const ShoalError& error) {
      EXPECT_EQ(error.status().sqlState(), SqlState::kDataCorrupted);
    }
  };
  expectCorrupted(std::span<const std::byte>(buffer.data(), used - 1));  // truncated
  expectCorrupted(std::span<const std::byte>(buffer.data(), used + 3));  // trailing bytes
  std::vector<std::byte> huge(buffer.begin(), buffer.begin() + used);
  const uint32_t impossible = 1u << 30;
  std::memcpy(huge.data(), &impossible, sizeof(impossible));  // a row count the bytes cannot hold
  expectCorrupted(huge);
}

}  // namespace
}  // namespace shoal::exchange
