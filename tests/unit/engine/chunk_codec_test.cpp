// Chunks travel between processes as bytes (row routing during loads, query results): every type and NULL
// comes back the same, the zero-copy decoding keeps its message alive, and malformed bytes fail with XX001.
#include "engine/vector/chunk_codec.h"

#include <gtest/gtest.h>

#include "common/status.h"

namespace shoal::engine {
namespace {

std::vector<LogicalType> types() {
  return {LogicalType::integer(), LogicalType::bigInt(),    LogicalType::decimal(15, 2), LogicalType::doublePrecision(),
          LogicalType::date(),    LogicalType::varchar(60), LogicalType::character(3)};
}

Chunk makeChunk(size_t count) {
  std::vector<Vector> columns;
  for (const auto& type : types()) columns.emplace_back(type, count);
  for (size_t i = 0; i < count; ++i) {
    columns[0].data<int32_t>()[i] = static_cast<int32_t>(i) - 5;
    columns[1].data<int64_t>()[i] = static_cast<int64_t>(i) * 1'000'000'007;
    columns[2].data<int64_t>()[i] = static_cast<int64_t>(i) * 125;
    columns[3].data<double>()[i] = static_cast<double>(i) / 3;
    columns[4].data<int32_t>()[i] = 9000 + static_cast<int32_t>(i);
    columns[5].setString(i, i % 2 ? "short" : "a string too long to sit inline in its handle " + std::to_string(i));
    columns[6].setString(i, "AB");
    if (i % 5 == 0) columns[i % types().size()].setNull(i, true);
  }
  Chunk chunk(count);
  for (auto& column : columns) chunk.addColumn(std::move(column));
  return chunk;
}

void expectSameChunks(const Chunk& expected, const Chunk& actual) {
  ASSERT_EQ(actual.size(), expected.size());
  ASSERT_EQ(actual.numColumns(), expected.numColumns());
  for (size_t c = 0; c < expected.numColumns(); ++c) {
    for (size_t row = 0; row < expected.size(); ++row) {
      EXPECT_EQ(actual.column(c).getValue(row).toString(), expected.column(c).getValue(row).toString())
          << "column " << c << " row " << row;
    }
  }
}

TEST(ChunkCodecTest, EveryTypeAndNullRoundTrips) {
  Chunk chunk = makeChunk(300);
  std::string bytes;
  encodeChunk(chunk, bytes);
  expectSameChunks(chunk, decodeChunk(bytes, types()));
}

TEST(ChunkCodecTest, SelectedRowsRoundTripInTheirOrder) {
  Chunk chunk = makeChunk(100);
  std::vector<uint32_t> rows = {99, 3, 50, 50, 0};
  std::string bytes;
  encodeChunkRows(chunk, rows, bytes);
  Chunk decoded = decodeChunk(bytes, types());
  ASSERT_EQ(decoded.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(decoded.column(5).getValue(i).toString(), chunk.column(5).getValue(rows[i]).toString());
  }
}

TEST(ChunkCodecTest, ZeroCopyStringsOutliveTheCallersBuffer) {
  Chunk chunk = makeChunk(64);
  auto bytes = std::make_shared<std::string>();
  encodeChunk(chunk, *bytes);
  const char* message = bytes->data();
  const size_t messageSize = bytes->size();
  Chunk decoded = decodeChunk(std::shared_ptr<const std::string>(std::move(bytes)), types());
  // The long strings point into the message, which the chunk alone now keeps.
  std::string_view longText = decoded.column(5).data<StringRef>()[0].view();
  EXPECT_TRUE(longText.data() >= message && longText.data() + longText.size() <= message + messageSize);
  expectSameChunks(chunk, decoded);
}

TEST(ChunkCodecTest, ChunksBackToBackDecodeInOrder) {
  // A load message carries several chunks appended one after the other, whole and as selected rows.
  Chunk first = makeChunk(64);
  Chunk second = makeChunk(10);
  const std::vector<uint32_t> rows = {9, 0, 4};
  auto bytes = std::make_shared<std::string>();
  encodeChunk(first, *bytes);
  encodeChunkRows(second, rows, *bytes);
  encodeChunk(second, *bytes);
  std::vector<Chunk> decoded = decodeChunks(std::shared_ptr<const std::string>(std::move(bytes)), types());
  ASSERT_EQ(decoded.size(), 3u);
  expectSameChunks(first, decoded[0]);
  ASSERT_EQ(decoded[1].size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(decoded[1].column(5).getValue(i).toString(), second.column(5).getValue(rows[i]).toString());
  }
  expectSameChunks(second, decoded[2]);
}

TEST(ChunkCodecTest, ChunksBackToBackCutShortFailAsCorrupted) {
  Chunk chunk = makeChunk(10);
  std::string bytes;
  encodeChunk(chunk, bytes);
  encodeChunk(chunk, bytes);
  try {
    decodeChunks(std::make_shared<const std::string>(bytes.substr(0, bytes.size() - 1)), types());
    ADD_FAILURE() << "a cut second chunk decoded";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kDataCorrupted) << error.what();
  }
}

TEST(ChunkCodecTest, MalformedBytesFailAsCorrupted) {
  Chunk chunk = makeChunk(10);
  std::string bytes;
  encodeChunk(chunk, bytes);
  for (size_t cut : {size_t{0}, size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    try {
      decodeChunk(std::string_view(bytes).substr(0, cut), types());
      ADD_FAILURE() << "a message cut to " << cut << " bytes decoded";
    } catch (const ShoalError& error) {
      EXPECT_EQ(error.status().sqlState(), SqlState::kDataCorrupted) << error.what();
    }
  }
  try {
    decodeChunk(bytes + "x", types());
    ADD_FAILURE() << "trailing bytes decoded";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kDataCorrupted);
  }
}

}  // namespace
}  // namespace shoal::engine
