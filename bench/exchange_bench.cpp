// Throughput of the exchange row format on one thread: lineitem-like rows (two
// keys, a price, a date, a nullable discount and a short string) written into
// 512 KB messages and read back into chunks. Run with `make bench`; items are rows.
#include <benchmark/benchmark.h>

#include "exchange/row_format.h"

namespace {

using namespace shoal;
using namespace shoal::engine;

constexpr size_t kChunks = 64;  // 128k rows per iteration
constexpr size_t kMessageBytes = 512 * 1024;

const std::vector<LogicalType> kTypes = {LogicalType::bigInt(),       LogicalType::integer(),
                                         LogicalType::decimal(15, 2), LogicalType::date(),
                                         LogicalType::decimal(15, 2), LogicalType::varchar(10)};
const std::vector<bool> kNullable = {false, false, false, false, true, false};

std::vector<Chunk> rows() {
  std::vector<Chunk> chunks;
  static const char* kModes[] = {"AIR", "MAIL", "SHIP", "TRUCK", "REG AIR", "RAIL", "FOB"};
  for (size_t c = 0; c < kChunks; ++c) {
    std::vector<Vector> columns;
    for (const auto& type : kTypes) columns.emplace_back(type, kVectorSize);
    for (size_t row = 0; row < kVectorSize; ++row) {
      const auto n = static_cast<int64_t>(c * kVectorSize + row);
      columns[0].data<int64_t>()[row] = n / 4;
      columns[1].data<int32_t>()[row] = static_cast<int32_t>(n % 200000);
      columns[2].data<int64_t>()[row] = n * 37 % 10000000;
      columns[3].data<int32_t>()[row] = static_cast<int32_t>(8000 + n % 2500);
      columns[4].data<int64_t>()[row] = n % 11;
      columns[4].setNull(row, n % 17 == 0);
      columns[5].setString(row, kModes[n % 7]);
    }
    chunks.emplace_back(std::move(columns), kVectorSize);
  }
  return chunks;
}

void encodeAndDecode(benchmark::State& state) {
  exchange::RowLayout layout(kTypes, kNullable);
  std::vector<Chunk> input = rows();
  std::vector<std::byte> message(kMessageBytes);
  size_t decodedRows = 0;
  for (auto _ : state) {
    exchange::RowWriter writer(layout, message);
    auto flush = [&] {
      exchange::decodeRows(layout, std::span<const std::byte>(message.data(), writer.finish()),
                           [&](Chunk& decoded) { decodedRows += decoded.size(); });
      writer.reset(message);
    };
    for (const Chunk& chunk : input) {
      for (size_t row = 0; row < chunk.size(); ++row) {
        if (!writer.append(chunk, row)) {
          flush();
          (void)writer.append(chunk, row);
        }
      }
    }
    flush();
  }
  benchmark::DoNotOptimize(decodedRows);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kChunks * kVectorSize));
}
BENCHMARK(encodeAndDecode)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
