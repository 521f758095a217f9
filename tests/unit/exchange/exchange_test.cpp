// Decoupled exchanges between three nodes (in-process multiplexers over TCP
// loopback), each node producing from two threads: a hash repartition delivers
// every row exactly once, to the node its key's CRC32 names; a broadcast
// delivers every row to every node, sending each message once per remote node
// from one refcounted buffer; and every message goes back to its pool.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "exchange/exchange_reader.h"
#include "exchange/exchange_sink.h"
#include "exchange/exchange_source.h"
#include "exchange/partition_hash.h"
#include "scheduler/memory_tracker.h"
#include "tests/unit/multiplexer/multiplexer_test_cluster.h"

namespace shoal::exchange {
namespace {

using engine::Chunk;
using engine::LogicalType;
using engine::Vector;
using multiplexer::NodeId;
using multiplexer::testing::LocalCluster;
using namespace std::chrono_literals;

constexpr NodeId kNodes = 3;
constexpr size_t kThreads = 2;
constexpr size_t kChunksPerThread = 20;

const RowLayout& layout() {
  static const RowLayout kLayout({LogicalType::bigInt(), LogicalType::text()}, {false, true});
  return kLayout;
}

/// Rows (id, label) with ids unique across nodes and threads; every seventh label is NULL.
Chunk rowsOf(NodeId node, size_t thread, size_t chunk) {
  Vector ids(LogicalType::bigInt(), engine::kVectorSize);
  Vector labels(LogicalType::text(), engine::kVectorSize);
  for (size_t row = 0; row < engine::kVectorSize; ++row) {
    const int64_t id =
        static_cast<int64_t>(((node * kThreads + thread) * kChunksPerThread + chunk) * engine::kVectorSize + row);
    ids.data<int64_t>()[row] = id;
    labels.setString(row, "label-" + std::to_string(id * 31));
    labels.setNull(row, id % 7 == 0);
  }
  std::vector<Vector> columns;
  columns.push_back(std::move(ids));
  columns.push_back(std::move(labels));
  return Chunk(std::move(columns), engine::kVectorSize);
}

/// Runs the sink on every node with kThreads producing threads, as a pipeline would (consume from
/// many threads, combine each thread's state, finalize once), while one consumer per node reads.
/// Returns, per node, every id it received with how often, and checks each label.
std::vector<std::map<int64_t, int>> runExchange(LocalCluster& cluster, ExchangeKind kind,
                                                std::vector<std::unique_ptr<ExchangeSink>>& sinks) {
  constexpr multiplexer::ExchangeId kExchange = 42;
  std::vector<std::map<int64_t, int>> received(kNodes);
  std::vector<std::thread> consumers;
  for (NodeId node = 0; node < kNodes; ++node) {
    consumers.emplace_back([&, node] {
      ExchangeReader reader(cluster[node].openExchange(kExchange), layout(), 0);
      while (auto chunk = reader.next(30s)) {
        for (size_t row = 0; row < chunk->size(); ++row) {
          const int64_t id = chunk->column(0).data<int64_t>()[row];
          ++received[node][id];
          const bool labelled = !chunk->column(1).isNull(row);
          EXPECT_EQ(labelled, id % 7 != 0);
          if (labelled) {
            EXPECT_EQ(chunk->column(1).data<engine::StringRef>()[row].view(), "label-" + std::to_string(id * 31));
          }
        }
      }
    });
  }
  std::vector<NodeId> everyNode = {0, 1, 2};
  for (NodeId node = 0; node < kNodes; ++node) {
    sinks.push_back(
        std::make_unique<ExchangeSink>(cluster[node], kExchange, layout(), kind, std::vector<size_t>{0}, everyNode));
  }
  std::vector<std::thread> producers;
  for (NodeId node = 0; node < kNodes; ++node) {
    producers.emplace_back([&, node] {
      ExchangeSink& sink = *sinks[node];
      std::vector<std::unique_ptr<engine::LocalSinkState>> states(kThreads);
      std::vector<std::thread> threads;
      for (size_t thread = 0; thread < kThreads; ++thread) {
        threads.emplace_back([&, thread] {
          states[thread] = sink.makeLocalState();
          for (size_t chunk = 0; chunk < kChunksPerThread; ++chunk) {
            Chunk rows = rowsOf(node, thread, chunk);
            sink.consume(rows, *states[thread]);
          }
        });
      }
      for (auto& thread : threads) thread.join();
      for (auto& state : states) sink.combine(*state);
      sink.finalize();
    });
  }
  for (auto& producer : producers) producer.join();
  for (auto& consumer : consumers) consumer.join();
  return received;
}

constexpr size_t kRowsPerNode = kThreads * kChunksPerThread * engine::kVectorSize;

TEST(ExchangeTest, RepartitionDeliversEveryRowOnceToTheNodeItsKeyHashesTo) {
  LocalCluster cluster(kNodes, [](multiplexer::MultiplexerOptions& options) {
    options.receiveWindow = 4;  // small windows and pools: flow control takes part
    options.sendMessagesPerNumaNode = 8;
    options.messageBytes = 16 * 1024;
  });
  std::vector<std::unique_ptr<ExchangeSink>> sinks;
  auto received = runExchange(cluster, ExchangeKind::kRepartition, sinks);
  size_t total = 0;
  for (NodeId node = 0; node < kNodes; ++node) {
    for (const auto& [id, count] : received[node]) {
      ASSERT_EQ(count, 1) << "id " << id << " at node " << node;
      // The node its key hashes to: the CRC32 partitioning of one row.
      Vector key(LogicalType::bigInt(), 1);
      key.data<int64_t>()[0] = id;
      std::vector<Vector> columns;
      columns.push_back(std::move(key));
      Chunk one(std::move(columns), 1);
      std::vector<size_t> keys = {0};
      ASSERT_EQ(partitionRows(one, keys, kNodes)[0], node) << "id " << id;
    }
    total += received[node].size();
  }
  EXPECT_EQ(total, kNodes * kRowsPerNode);
  for (NodeId node = 0; node < kNodes; ++node) {
    EXPECT_GT(sinks[node]->messagesSent(), 0u);
    EXPECT_EQ(cluster[node].sendPool().messagesInUse(), 0u);
  }
}

TEST(ExchangeTest, BroadcastSendsEachMessageOncePerRemoteNodeAndReachesEveryNode) {
  LocalCluster cluster(kNodes, [](multiplexer::MultiplexerOptions& options) {
    options.receiveWindow = 4;
    options.sendMessagesPerNumaNode = 8;
    options.messageBytes = 64 * 1024;
  });
  std::vector<std::unique_ptr<ExchangeSink>> sinks;
  auto received = runExchange(cluster, ExchangeKind::kBroadcast, sinks);
  for (NodeId node = 0; node < kNodes; ++node) {
    ASSERT_EQ(received[node].size(), kNodes * kRowsPerNode) << "node " << node;
    for (const auto& [id, count] : received[node]) ASSERT_EQ(count, 1) << "id " << id << " at node " << node;
  }
  for (NodeId node = 0; node < kNodes; ++node) {
    // One buffer per message: the multiplexer sent it to each of the two other nodes.
    const auto stats = cluster[node].stats();
    EXPECT_EQ(sinks[node]->messagesSent() % (kNodes - 1), 0u);
    EXPECT_GE(stats.messagesSent, sinks[node]->messagesSent());
    EXPECT_EQ(cluster[node].sendPool().messagesInUse(), 0u);
  }
}

TEST(ExchangeTest, AnAbandonedProducerReturnsItsMessagesToThePool) {
  // A failed or cancelled query never combines its sink's local states: dropping them must still give
  // every open message back, or the pool runs dry and later exchanges wait forever.
  LocalCluster cluster(2, [](multiplexer::MultiplexerOptions& options) { options.messageBytes = 16 * 1024; });
  ExchangeSink sink(cluster[0], 7, layout(), ExchangeKind::kRepartition, {0}, {0, 1});
  {
    auto state = sink.makeLocalState();
    Chunk rows = rowsOf(0, 0, 0);
    sink.consume(rows, *state);
    EXPECT_GT(cluster[0].sendPool().messagesInUse(), 0u);
  }
  // Full messages already handed over are the multiplexer's: those to node 1 drain as they are sent,
  // those to node 0 itself wait in its inbox, which nobody reads, until the exchange is closed.
  cluster[0].closeExchange(7);
  for (int i = 0; i < 200 && cluster[0].sendPool().messagesInUse() > 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(cluster[0].sendPool().messagesInUse(), 0u);
}

/// Produces `chunks` chunks of node 0's rows into exchange `id`, from one thread, to `destinations`.
void produce(LocalCluster& cluster, multiplexer::ExchangeId id, std::vector<NodeId> destinations, size_t chunks) {
  ExchangeSink sink(cluster[0], id, layout(), ExchangeKind::kRepartition, {0}, std::move(destinations));
  auto state = sink.makeLocalState();
  for (size_t chunk = 0; chunk < chunks; ++chunk) {
    Chunk rows = rowsOf(0, 0, chunk);
    sink.consume(rows, *state);
  }
  sink.combine(*state);
  sink.finalize();
}

/// Takes and produces every message the source has now; returns the rows.
size_t drainAvailable(ExchangeSource& source) {
  size_t rows = 0;
  while (auto morsel = source.tryTake(0, true)) {
    source.produce(*morsel, [&](Chunk& chunk) {
      EXPECT_LE(chunk.size(), engine::kVectorSize);
      rows += chunk.size();
    });
  }
  return rows;
}

/// Node 1's receive buffers held by messages: over RDMA the credit window's buffers stay posted, in use while
/// nothing is held, so they are counted from what was in use before (`idle`).
size_t heldReceiveBuffers(LocalCluster& cluster, size_t idle) {
  return cluster[1].receivePool().messagesInUse() - idle;
}

void waitForPoolsToEmpty(LocalCluster& cluster, size_t idle) {
  for (int i = 0; i < 300; ++i) {
    if (cluster[0].sendPool().messagesInUse() == 0 && heldReceiveBuffers(cluster, idle) == 0) return;
    std::this_thread::sleep_for(10ms);
  }
}

TEST(ExchangeTest, AStreamedSourceYieldsMessagesWhileItsSendersStillSend) {
  LocalCluster cluster(2, [](multiplexer::MultiplexerOptions& options) { options.messageBytes = 16 * 1024; });
  const size_t idle = cluster[1].receivePool().messagesInUse();
  auto inbox = cluster[1].openExchange(9);
  inbox->expectSendersOnly({0, 1});  // node 1's own part never comes until the end
  ExchangeSource source(inbox, layout());
  source.start();
  ASSERT_TRUE(source.streams());
  EXPECT_EQ(source.gate(), nullptr);
  std::atomic<int> wakes{0};
  source.onArrival([&] { ++wakes; });
  source.startConsuming();
  produce(cluster, 9, {1}, 10);
  size_t rows = 0;
  for (int i = 0; i < 500 && rows < 10 * engine::kVectorSize; ++i) {
    rows += drainAvailable(source);
    if (rows < 10 * engine::kVectorSize) std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(rows, 10 * engine::kVectorSize) << "every row is here before the stream ends";
  EXPECT_FALSE(source.exhausted()) << "node 1 has not finished";
  EXPECT_GT(wakes.load(), 1);
  EXPECT_GT(source.messagesReceived(), 1u);
  // Each message went back as its morsel ran: no receive buffer is held, and the sender's credits returned.
  waitForPoolsToEmpty(cluster, idle);
  EXPECT_EQ(heldReceiveBuffers(cluster, idle), 0u);
  EXPECT_EQ(cluster[0].sendPool().messagesInUse(), 0u);
  EXPECT_EQ(cluster[1].stats().heapCopies, 0u) << "a ready consumer reads messages in their buffers";
  inbox->deliver([&] {
    multiplexer::Message* last = cluster[1].acquire(0);
    last->setSender(1);
    last->setExchangeId(9);
    last->setPayloadSize(0);
    last->setLast(true);
    return last;
  }());
  EXPECT_TRUE(source.exhausted());
}

TEST(ExchangeTest, WhatArrivesBeforeTheConsumerIsReadyWaitsOnTheHeapChargedToTheQuery) {
  // 40 chunks of node 0's rows are about 900 KB in messages: past a 512 KB query limit.
  LocalCluster cluster(2, [](multiplexer::MultiplexerOptions& options) { options.messageBytes = 16 * 1024; });
  const size_t idle = cluster[1].receivePool().messagesInUse();
  auto inbox = cluster[1].openExchange(11);
  inbox->expectSendersOnly({0});
  auto memory = std::make_shared<scheduler::MemoryTracker>(512 << 10);
  ExchangeSource source(inbox, layout());
  source.start();
  source.chargeTo(memory);
  produce(cluster, 11, {1}, 40);  // the sender is not held back by a consumer that is not ready
  for (int i = 0; i < 300 && cluster[1].stats().messagesReceived < cluster[0].stats().messagesSent; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  for (int i = 0; i < 300 && heldReceiveBuffers(cluster, idle) > 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_GT(cluster[1].stats().heapCopies, 0u);
  EXPECT_EQ(heldReceiveBuffers(cluster, idle), 0u) << "copies hold no receive buffer";
  try {
    source.startConsuming();
    drainAvailable(source);
    FAIL() << "the exchange held more than the query's memory limit: " << cluster[1].stats().heapCopyBytes
           << " bytes copied, " << cluster[1].stats().messagesReceived << " of " << cluster[0].stats().messagesSent;
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), "53200");
  }
  EXPECT_LE(memory->usedBytes(), 512u << 10);
  source.stopCharging();
  EXPECT_EQ(memory->usedBytes(), 0u);
}

TEST(ExchangeTest, ProducersWaitingForSendBuffersMoveWaitingInputToTheHeap) {
  // Node 1 is both a consumer that takes nothing and a producer whose send pool runs dry: its inbox's
  // buffers go to the heap, so node 0 (which waits for node 1's credits) is never stuck behind it.
  LocalCluster cluster(2, [](multiplexer::MultiplexerOptions& options) {
    options.messageBytes = 16 * 1024;
    options.receiveWindow = 4;
    options.sendMessagesPerNumaNode = 4;
  });
  const size_t idle = cluster[1].receivePool().messagesInUse();
  auto inbox = cluster[1].openExchange(12);
  inbox->expectSendersOnly({0});
  std::thread sender([&] { produce(cluster, 12, {1}, 40); });
  // A ready but slow consumer holds its sender back: the credit window's 4 messages arrive, no more.
  for (int i = 0; i < 300 && cluster[1].stats().messagesReceived < 4; ++i) std::this_thread::sleep_for(10ms);
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(cluster[1].stats().messagesReceived, 4u) << "a ready but slow consumer holds its sender back";
  EXPECT_EQ(cluster[1].stats().heapCopies, 0u);
  std::vector<multiplexer::Message*> held;
  for (int i = 0; i < 4; ++i) held.push_back(cluster[1].acquire(0));  // node 1's send pool is now empty
  std::thread waiter([&] { cluster[1].acquire(0, 5s)->release(); });
  sender.join();  // node 0 finished sending: what node 1 received went to the heap
  EXPECT_GT(cluster[1].stats().heapCopies, 0u);
  held.back()->release();
  held.pop_back();
  waiter.join();
  for (auto* message : held) message->release();
  size_t rows = 0;
  ExchangeReader reader(inbox, layout(), 0);
  while (auto chunk = reader.next(5s)) rows += chunk->size();
  EXPECT_EQ(rows, 40 * engine::kVectorSize);
  waitForPoolsToEmpty(cluster, idle);
  EXPECT_EQ(heldReceiveBuffers(cluster, idle), 0u);
  EXPECT_EQ(cluster[0].sendPool().messagesInUse(), 0u);
}

}  // namespace
}  // namespace shoal::exchange
