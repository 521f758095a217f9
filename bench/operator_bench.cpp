// Throughput of the engine's pipeline breakers on one thread: hash aggregation
// into few and into many groups (TPC-H Q1's 4 groups, Q17's 200k partkeys),
// and a hash join build plus probe. Run with `make bench`; items are input rows.
#include <benchmark/benchmark.h>

#include "engine/aggregate/hash_aggregation.h"
#include "engine/join/hash_join.h"

namespace {

using namespace shoal::engine;

constexpr size_t kChunks = 256;  // 512k rows per iteration

/// Chunks of (BIGINT key in [0, distinct), DECIMAL(15,2) value).
std::vector<Chunk> keyValueChunks(size_t distinct) {
  std::vector<Chunk> chunks;
  uint64_t state = 12345;
  for (size_t c = 0; c < kChunks; ++c) {
    Vector keys(LogicalType::bigInt(), kVectorSize);
    Vector values(LogicalType::decimal(15, 2), kVectorSize);
    for (size_t row = 0; row < kVectorSize; ++row) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      keys.data<int64_t>()[row] = static_cast<int64_t>((state >> 33) % distinct);
      values.data<int64_t>()[row] = static_cast<int64_t>(row * 37 % 10000);
    }
    std::vector<Vector> columns;
    columns.push_back(std::move(keys));
    columns.push_back(std::move(values));
    chunks.emplace_back(std::move(columns), kVectorSize);
  }
  return chunks;
}

Chunk copyOf(const Chunk& chunk) {
  std::vector<uint32_t> all(chunk.size());
  for (uint32_t row = 0; row < all.size(); ++row) all[row] = row;
  std::vector<Vector> columns;
  for (size_t c = 0; c < chunk.numColumns(); ++c) columns.push_back(chunk.column(c).select(all));
  return Chunk(std::move(columns), chunk.size());
}

void groupBy(benchmark::State& state) {
  auto distinct = static_cast<size_t>(state.range(0));
  std::vector<Chunk> input = keyValueChunks(distinct);
  for (auto _ : state) {
    HashAggregation aggregation(
        {LogicalType::bigInt()},
        {GroupedAggregate{AggregateFunction::kSum, false, 1, LogicalType::decimal(15, 2), LogicalType::decimal(38, 2)},
         GroupedAggregate{AggregateFunction::kCountStar, false, std::nullopt, LogicalType::bigInt(),
                          LogicalType::bigInt()}});
    auto sink = aggregation.sink();
    auto local = sink->makeLocalState();
    for (auto& chunk : input) {
      Chunk copy = copyOf(chunk);
      sink->consume(copy, *local);
    }
    sink->combine(*local);
    sink->finalize();
    auto source = aggregation.source();
    size_t groups = 0;
    for (size_t morsel = 0; morsel < source->numMorsels(); ++morsel) {
      source->produce(morsel, [&](Chunk& chunk) { groups += chunk.size(); });
    }
    benchmark::DoNotOptimize(groups);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kChunks * kVectorSize));
}
BENCHMARK(groupBy)->Arg(4)->Arg(200'000)->Unit(benchmark::kMillisecond);

void joinBuildAndProbe(benchmark::State& state) {
  std::vector<Chunk> build = keyValueChunks(1'000'000);
  std::vector<Chunk> probe = keyValueChunks(1'000'000);
  for (auto _ : state) {
    HashJoin::Options options;
    options.type = HashJoinType::kInner;
    options.buildTypes = {LogicalType::bigInt(), LogicalType::decimal(15, 2)};
    options.numKeys = 1;
    options.probeKeys = {0};
    HashJoin join(std::move(options));
    auto sink = join.buildSink();
    auto local = sink->makeLocalState();
    for (auto& chunk : build) {
      Chunk copy = copyOf(chunk);
      sink->consume(copy, *local);
    }
    sink->combine(*local);
    sink->finalize();
    auto insert = join.insertSource();
    for (size_t morsel = 0; morsel < insert->numMorsels(); ++morsel) insert->produce(morsel, [](Chunk&) {});
    auto probeOperator = join.probe();
    size_t matches = 0;
    for (auto& chunk : probe) {
      Chunk copy = copyOf(chunk);
      probeOperator->execute(copy);
      matches += copy.size();
    }
    benchmark::DoNotOptimize(matches);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kChunks * kVectorSize * 2));
}
BENCHMARK(joinBuildAndProbe)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
