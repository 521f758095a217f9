// Integer columns whose segment spans a narrow range are held as 1-, 2- or
// 4-byte offsets from the segment's minimum: every read, gather and
// round trip through the file format gives back the exact values.
#include "worker/storage/column_segment.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "common/byte_reader.h"

namespace shoal::worker {
namespace {

using engine::LogicalType;
using engine::Vector;

constexpr size_t kRows = 5000;

/// A column of `kRows` values drawn from [low, high], every 13th row NULL.
template <class T>
Vector randomColumn(LogicalType type, T low, T high, uint32_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<T> draw(low, high);
  Vector column(type, kRows);
  for (size_t row = 0; row < kRows; ++row) {
    column.data<T>()[row] = draw(random);
    column.setNull(row, row % 13 == 5);
  }
  // The extremes appear, so the span is the whole range.
  column.data<T>()[0] = low;
  column.data<T>()[1] = high;
  return column;
}

template <class T>
void expectSameValues(const Vector& expected, const Vector& got, const std::vector<uint32_t>& rows) {
  ASSERT_EQ(got.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(got.isNull(i), expected.isNull(rows[i])) << "row " << rows[i];
    if (!got.isNull(i)) {
      ASSERT_EQ(got.data<T>()[i], expected.data<T>()[rows[i]]) << "row " << rows[i];
    }
  }
}

template <class T>
void checkColumn(LogicalType type, T low, T high, ColumnEncoding expectedEncoding) {
  SCOPED_TRACE(type.toString() + " from " + std::to_string(low) + " to " + std::to_string(high));
  SegmentMemory memory(NumaTopology::fake(1));
  Vector source = randomColumn<T>(type, low, high, 7);
  const Vector* sources[] = {&source};
  ColumnSegment segment(type, sources, kRows, 0, memory);
  EXPECT_EQ(segment.encoding(), expectedEncoding);

  std::vector<uint32_t> all(kRows);
  for (uint32_t row = 0; row < kRows; ++row) all[row] = row;
  Vector whole(type, 0);
  segment.read(0, kRows, whole);
  expectSameValues<T>(source, whole, all);

  // A window in the middle, and a sparse gather relative to it.
  Vector window(type, 0);
  segment.read(2048, 1000, window);
  expectSameValues<T>(source, window, std::vector<uint32_t>(all.begin() + 2048, all.begin() + 3048));
  std::vector<uint32_t> picked = {0, 3, 4, 500, 999};
  Vector gathered(type, 0);
  segment.gather(2048, picked, gathered);
  for (auto& row : picked) row += 2048;
  expectSameValues<T>(source, gathered, picked);

  // Files hold the column plain; reading it back encodes it again.
  AlignedBuffer bytes;
  segment.serialize(bytes);
  EXPECT_EQ(static_cast<uint8_t>(bytes.data()[0]), static_cast<uint8_t>(ColumnEncoding::kPlain));
  ByteReader reader(std::string_view(bytes.data(), bytes.size()), "test column");
  auto reloaded = ColumnSegment::deserialize(type, kRows, reader, 0, memory);
  EXPECT_EQ(reloaded->encoding(), expectedEncoding);
  Vector again(type, 0);
  reloaded->read(0, kRows, again);
  expectSameValues<T>(source, again, all);
}

TEST(ColumnSegmentTest, NarrowIntegerRangesAreHeldAsOffsets) {
  checkColumn<int32_t>(LogicalType::integer(), -100, 100, ColumnEncoding::kOffset8);
  checkColumn<int32_t>(LogicalType::date(), 8000, 10500, ColumnEncoding::kOffset16);
  checkColumn<int64_t>(LogicalType::bigInt(), 1, 6000000, ColumnEncoding::kOffset32);
  checkColumn<int64_t>(LogicalType::decimal(15, 2), 90000, 10494950, ColumnEncoding::kOffset32);
  checkColumn<int64_t>(LogicalType::decimal(15, 2), 0, 10, ColumnEncoding::kOffset8);
}

TEST(ColumnSegmentTest, WideRangesStayPlain) {
  // A 32-bit column spanning more than 16 bits gains nothing from 4-byte offsets.
  checkColumn<int32_t>(LogicalType::integer(), std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(),
                       ColumnEncoding::kPlain);
  checkColumn<int32_t>(LogicalType::integer(), 0, 100000, ColumnEncoding::kPlain);
  checkColumn<int64_t>(LogicalType::bigInt(), std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(),
                       ColumnEncoding::kPlain);
  checkColumn<int64_t>(LogicalType::bigInt(), -1, int64_t{1} << 33, ColumnEncoding::kPlain);
  // The widest span that still fits: every 64-bit offset arithmetic edge.
  checkColumn<int64_t>(LogicalType::bigInt(), std::numeric_limits<int64_t>::max() - UINT32_MAX,
                       std::numeric_limits<int64_t>::max(), ColumnEncoding::kOffset32);
  checkColumn<int64_t>(LogicalType::bigInt(), std::numeric_limits<int64_t>::min(),
                       std::numeric_limits<int64_t>::min() + 255, ColumnEncoding::kOffset8);
}

}  // namespace
}  // namespace shoal::worker
