// The pipelined receive side, end to end on the dispatcher: a hash aggregation reads an exchange as its
// messages arrive, so its input is aggregated while the sender has not finished; a build that waits for
// another pipeline keeps what arrives on the heap, holding no receive buffer; and every message goes back
// to its pool.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "engine/aggregate/hash_aggregation.h"
#include "engine/pipeline/collect_sink.h"
#include "exchange/exchange_sink.h"
#include "exchange/exchange_source.h"
#include "scheduler/pipeline_runner.h"
#include "tests/unit/multiplexer/multiplexer_test_cluster.h"

namespace shoal::exchange {
namespace {

using engine::Chunk;
using engine::LogicalType;
using engine::Vector;
using multiplexer::testing::LocalCluster;
using namespace std::chrono_literals;

constexpr multiplexer::ExchangeId kExchange = 21;
constexpr int64_t kGroups = 10;

const RowLayout& layout() {
  static const RowLayout kLayout({LogicalType::bigInt(), LogicalType::bigInt()}, {false, false});
  return kLayout;
}

/// Rows (key, value) of one chunk: value runs on across chunks, key = value mod kGroups.
Chunk rowsOf(size_t chunk) {
  Vector keys(LogicalType::bigInt(), engine::kVectorSize);
  Vector values(LogicalType::bigInt(), engine::kVectorSize);
  for (size_t row = 0; row < engine::kVectorSize; ++row) {
    const auto value = static_cast<int64_t>(chunk * engine::kVectorSize + row);
    keys.data<int64_t>()[row] = value % kGroups;
    values.data<int64_t>()[row] = value;
  }
  std::vector<Vector> columns;
  columns.push_back(std::move(keys));
  columns.push_back(std::move(values));
  return Chunk(std::move(columns), engine::kVectorSize);
}

/// Passes every chunk on to `inner` and counts its rows as they come.
class CountingSink final : public engine::ChunkSink {
 public:
  explicit CountingSink(std::shared_ptr<engine::ChunkSink> inner) : inner_(std::move(inner)) {}
  std::unique_ptr<engine::LocalSinkState> makeLocalState() const override { return inner_->makeLocalState(); }
  void consume(Chunk& chunk, engine::LocalSinkState& state) const override {
    rows_ += chunk.size();
    inner_->consume(chunk, state);
  }
  void combine(engine::LocalSinkState& state) override { inner_->combine(state); }
  void finalize() override {
    finalized_ = true;
    inner_->finalize();
  }
  uint64_t rows() const { return rows_.load(); }
  bool finalized() const { return finalized_.load(); }

 private:
  std::shared_ptr<engine::ChunkSink> inner_;
  mutable std::atomic<uint64_t> rows_{0};
  std::atomic<bool> finalized_{false};
};

struct Aggregation {
  std::unique_ptr<engine::HashAggregation> table;
  std::shared_ptr<CountingSink> input;
  std::shared_ptr<engine::CollectSink> output = std::make_shared<engine::CollectSink>();
};

/// SELECT key, count(value), max(value) FROM <exchange> GROUP BY key, as two pipelines on `source`.
std::vector<engine::Pipeline> aggregationOver(std::shared_ptr<engine::ChunkSource> source, Aggregation& aggregation) {
  std::vector<engine::GroupedAggregate> aggregates = {
      {engine::AggregateFunction::kCount, false, 1, LogicalType::bigInt(), LogicalType::bigInt()},
      {engine::AggregateFunction::kMax, false, 1, LogicalType::bigInt(), LogicalType::bigInt()},
  };
  aggregation.table =
      std::make_unique<engine::HashAggregation>(std::vector<LogicalType>{LogicalType::bigInt()}, std::move(aggregates));
  aggregation.input = std::make_shared<CountingSink>(aggregation.table->sink());
  std::vector<engine::Pipeline> pipelines(2);
  pipelines[0].source = std::move(source);
  pipelines[0].sink = aggregation.input;
  pipelines[1].source = aggregation.table->source();
  pipelines[1].sink = aggregation.output;
  pipelines[1].dependencies = {0};
  return pipelines;
}

using Groups = std::map<int64_t, std::pair<int64_t, int64_t>>;  // key -> (count, max)

Groups groupsOf(engine::CollectSink& sink) {
  Groups groups;
  for (auto& chunk : sink.chunks()) {
    for (size_t row = 0; row < chunk.size(); ++row) {
      groups[chunk.column(0).data<int64_t>()[row]] = {chunk.column(1).data<int64_t>()[row],
                                                      chunk.column(2).data<int64_t>()[row]};
    }
  }
  return groups;
}

Groups expectedGroups(size_t chunks) {
  Groups groups;
  for (int64_t value = 0; value < static_cast<int64_t>(chunks * engine::kVectorSize); ++value) {
    auto& [count, max] = groups[value % kGroups];
    ++count;
    max = value;
  }
  return groups;
}

/// Node 1's receive buffers held by messages: over RDMA the credit window's buffers stay posted, in use while
/// nothing is held, so they are counted from what was in use before (`idle`).
size_t heldReceiveBuffers(LocalCluster& cluster, size_t idle) {
  return cluster[1].receivePool().messagesInUse() - idle;
}

void waitForPoolsToEmpty(LocalCluster& cluster, size_t idle) {
  for (int i = 0; i < 300; ++i) {
    if (cluster[0].sendPool().messagesInUse() == 0 && heldReceiveBuffers(cluster, idle) == 0 &&
        cluster[1].sendPool().messagesInUse() == 0) {
      return;
    }
    std::this_thread::sleep_for(10ms);
  }
}

/// Node 0's end of the exchange: rows sent to node 1 as a pipeline's threads would, then the last message.
class Sender {
 public:
  explicit Sender(LocalCluster& cluster)
      : sink_(cluster[0], kExchange, layout(), ExchangeKind::kRepartition, {0}, {1}), state_(sink_.makeLocalState()) {}
  /// Sends chunks 0 .. count-1 (every row, flushed) without the last message.
  void send(size_t count) {
    for (size_t chunk = 0; chunk < count; ++chunk) {
      Chunk rows = rowsOf(chunk);
      sink_.consume(rows, *state_);
    }
    sink_.combine(*state_);
  }
  void finish() { sink_.finalize(); }

 private:
  ExchangeSink sink_;
  std::unique_ptr<engine::LocalSinkState> state_;
};

/// Node 1's end: a started source over the exchange, expecting node 0 only.
std::shared_ptr<ExchangeSource> receiverOn(LocalCluster& cluster) {
  auto inbox = cluster[1].openExchange(kExchange);
  inbox->expectSendersOnly({0});
  auto source = std::make_shared<ExchangeSource>(inbox, layout());
  source->start();
  return source;
}

TEST(PipelinedExchangeTest, AHashAggregationConsumesMessagesBeforeItsLastSenderFinished) {
  LocalCluster cluster(2, [](multiplexer::MultiplexerOptions& options) {
    options.messageBytes = 16 * 1024;
    options.fakeNumaNodes = 2;
  });
  const size_t idle = cluster[1].receivePool().messagesInUse();
  scheduler::Dispatcher dispatcher(2, NumaTopology::fake(2));
  auto source = receiverOn(cluster);
  Aggregation aggregation;
  auto query = scheduler::PipelineRunner(dispatcher).start(aggregationOver(source, aggregation));

  constexpr size_t kChunks = 30;
  Sender sender(cluster);
  sender.send(kChunks);  // every row is sent; the last message is not
  const uint64_t total = kChunks * engine::kVectorSize;
  for (int i = 0; i < 1000 && aggregation.input->rows() < total; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(aggregation.input->rows(), total) << "the aggregation took every row while its sender still ran";
  EXPECT_FALSE(aggregation.input->finalized());
  EXPECT_FALSE(query->done());
  EXPECT_EQ(cluster[1].stats().heapCopies, 0u) << "a ready consumer read every message in its receive buffer";

  sender.finish();
  query->wait();
  EXPECT_TRUE(aggregation.input->finalized());
  EXPECT_EQ(groupsOf(*aggregation.output), expectedGroups(kChunks));
  const auto consumed = source->inbox().consumed();
  ASSERT_EQ(consumed.locally.size(), 2u);
  EXPECT_EQ(consumed.locally[0] + consumed.locally[1] + consumed.stolen[0] + consumed.stolen[1],
            source->messagesReceived());
  waitForPoolsToEmpty(cluster, idle);
  EXPECT_EQ(heldReceiveBuffers(cluster, idle), 0u);
  EXPECT_EQ(cluster[0].sendPool().messagesInUse(), 0u);
}

TEST(PipelinedExchangeTest, InputForAPipelineThatWaitsForAnotherWaitsOnTheHeap) {
  // The aggregation's input pipeline depends on a pipeline that does not finish before every row was sent
  // (a join build would): its messages may not hold the sender's credits meanwhile.
  LocalCluster cluster(2, [](multiplexer::MultiplexerOptions& options) {
    options.messageBytes = 16 * 1024;
    options.receiveWindow = 4;
  });
  const size_t idle = cluster[1].receivePool().messagesInUse();
  scheduler::Dispatcher dispatcher(2, NumaTopology::fake(1));
  auto source = receiverOn(cluster);
  Aggregation aggregation;
  auto pipelines = aggregationOver(source, aggregation);
  // The pipeline it waits for reads a gate that opens once the sender is done.
  auto gate = std::make_shared<engine::SourceGate>();
  class GatedSource final : public engine::ChunkSource {
   public:
    explicit GatedSource(std::shared_ptr<engine::SourceGate> gate) : gate_(std::move(gate)) {}
    size_t numMorsels() const override { return 0; }
    void produce(size_t, const std::function<void(Chunk&)>&) const override {}
    std::shared_ptr<engine::SourceGate> gate() const override { return gate_; }

   private:
    std::shared_ptr<engine::SourceGate> gate_;
  };
  engine::Pipeline build;
  build.source = std::make_shared<GatedSource>(gate);
  build.sink = std::make_shared<engine::CollectSink>();
  pipelines.push_back(std::move(build));
  pipelines[0].dependencies = {2};
  auto query = scheduler::PipelineRunner(dispatcher).start(std::move(pipelines));

  constexpr size_t kChunks = 40;  // over 20 messages, far past the window of 4
  Sender sender(cluster);
  sender.send(kChunks);
  sender.finish();
  for (int i = 0; i < 300 && cluster[1].stats().messagesReceived < cluster[0].stats().messagesSent; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(aggregation.input->rows(), 0u) << "the input pipeline waits for the build";
  EXPECT_GT(cluster[1].stats().heapCopies, 4u) << "past the credit window: the sender was not held back";
  // (A released buffer returns to its pool through the network thread, a moment later.)
  for (int i = 0; i < 300 && heldReceiveBuffers(cluster, idle) > 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(heldReceiveBuffers(cluster, idle), 0u) << "what waits holds no receive buffer";
  gate->open();
  query->wait();
  EXPECT_EQ(groupsOf(*aggregation.output), expectedGroups(kChunks));
  waitForPoolsToEmpty(cluster, idle);
  EXPECT_EQ(heldReceiveBuffers(cluster, idle), 0u);
  EXPECT_EQ(cluster[0].sendPool().messagesInUse(), 0u);
}

TEST(PipelinedExchangeTest, ALostSenderFailsTheQueryAndEveryMessageGoesBack) {
  LocalCluster cluster(2, [](multiplexer::MultiplexerOptions& options) { options.messageBytes = 16 * 1024; });
  const size_t idle = cluster[1].receivePool().messagesInUse();
  scheduler::Dispatcher dispatcher(2, NumaTopology::fake(2));
  auto source = receiverOn(cluster);
  Aggregation aggregation;
  auto query = scheduler::PipelineRunner(dispatcher).start(aggregationOver(source, aggregation));
  Sender sender(cluster);
  sender.send(10);
  cluster[1].openExchange(kExchange)->failSender(0, Status(SqlState::kConnectionFailure, "node 0 is lost"));
  try {
    query->wait();
    FAIL() << "the query outlived its lost sender";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kConnectionFailure);
  }
  EXPECT_FALSE(aggregation.input->finalized());
  waitForPoolsToEmpty(cluster, idle);
  EXPECT_EQ(heldReceiveBuffers(cluster, idle), 0u);
  EXPECT_EQ(cluster[0].sendPool().messagesInUse(), 0u);
}

}  // namespace
}  // namespace shoal::exchange
