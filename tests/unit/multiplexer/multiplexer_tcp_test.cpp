#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "multiplexer/multiplexer.h"
#include "tests/unit/multiplexer/multiplexer_test_cluster.h"

namespace shoal::multiplexer {
namespace {

using namespace std::chrono_literals;
using testing::LocalCluster;

/// What every test message carries in front of its filler bytes.
struct Stamp {
  uint32_t sender;
  uint32_t sequence;
  uint64_t exchange;
  uint32_t bytes;
};

uint8_t fillerByte(const Stamp& stamp, size_t i) {
  return static_cast<uint8_t>(stamp.sequence * 31 + i * 7 + stamp.sender);
}

void fill(Message* message, const Stamp& stamp) {
  std::memcpy(message->payload(), &stamp, sizeof(stamp));
  auto* bytes = reinterpret_cast<uint8_t*>(message->payload());
  for (size_t i = sizeof(stamp); i < stamp.bytes; ++i) bytes[i] = fillerByte(stamp, i);
  message->setPayloadSize(stamp.bytes);
}

bool intact(const Message* message, Stamp* stamp) {
  if (message->payloadSize() < sizeof(Stamp)) return false;
  std::memcpy(stamp, message->payload(), sizeof(Stamp));
  if (stamp->bytes != message->payloadSize()) return false;
  const auto* bytes = reinterpret_cast<const uint8_t*>(message->payload());
  for (size_t i = sizeof(Stamp); i < stamp->bytes; ++i) {
    if (bytes[i] != fillerByte(*stamp, i)) return false;
  }
  return true;
}

class AllToAll : public ::testing::TestWithParam<ScheduleKind> {};

// Four nodes send messages of random sizes to every node (themselves
// included) on two exchanges at once; every message must arrive exactly
// once, intact, and in order per sender and exchange.
TEST_P(AllToAll, RandomSizesArriveExactlyOnceInOrder) {
  static ScheduleKind schedule;
  schedule = GetParam();
  LocalCluster cluster(4, [](MultiplexerOptions& options) {
    options.schedule = schedule;
    options.receiveWindow = 4;
    options.sendMessagesPerNumaNode = 16;
  });
  constexpr uint32_t kNodes = 4;
  constexpr uint32_t kMessagesPerStream = 60;
  const std::vector<ExchangeId> exchanges = {11, 12};
  std::atomic<int> failures{0};

  std::vector<std::thread> consumers;
  for (NodeId node = 0; node < kNodes; ++node) {
    for (ExchangeId exchange : exchanges) {
      consumers.emplace_back([&, node, exchange] {
        auto inbox = cluster[node].openExchange(exchange);
        std::vector<uint32_t> next(kNodes, 0);
        while (true) {
          auto received = inbox->receive(node % 2, 30s);
          if (!received.status.isOk()) {
            ADD_FAILURE() << "node " << node << ": " << received.status.toString();
            ++failures;
            return;
          }
          if (received.message == nullptr) break;
          Stamp stamp;
          bool ok = intact(received.message, &stamp);
          EXPECT_TRUE(ok) << "corrupted message at node " << node;
          if (ok) {
            EXPECT_EQ(stamp.exchange, exchange);
            EXPECT_EQ(received.message->sender(), stamp.sender);
            EXPECT_EQ(stamp.sequence, next[stamp.sender]) << "out of order or duplicated from " << stamp.sender;
            next[stamp.sender] = stamp.sequence + 1;
          }
          received.message->release();
        }
        for (NodeId sender = 0; sender < kNodes; ++sender) {
          EXPECT_EQ(next[sender], kMessagesPerStream) << "node " << node << " lost messages from " << sender;
        }
      });
    }
  }

  std::vector<std::thread> producers;
  for (NodeId node = 0; node < kNodes; ++node) {
    producers.emplace_back([&, node] {
      std::mt19937 random(node * 7919 + 1);
      std::uniform_int_distribution<uint32_t> size(sizeof(Stamp), 64 * 1024);
      // (destination, exchange) streams, interleaved at random.
      std::vector<std::pair<NodeId, ExchangeId>> streams;
      std::vector<uint32_t> sent;
      for (NodeId destination = 0; destination < kNodes; ++destination) {
        for (ExchangeId exchange : exchanges) streams.push_back({destination, exchange});
      }
      sent.assign(streams.size(), 0);
      size_t open = streams.size();
      while (open > 0) {
        size_t stream = random() % streams.size();
        if (sent[stream] > kMessagesPerStream) continue;
        Message* message = cluster[node].acquire(0, 30s);
        ASSERT_NE(message, nullptr);
        message->setExchangeId(streams[stream].second);
        if (sent[stream] < kMessagesPerStream) {
          fill(message, Stamp{node, sent[stream], streams[stream].second, size(random)});
          // Even nodes mark their final data message last; odd nodes send an empty last message.
          message->setLast(node % 2 == 0 && sent[stream] + 1 == kMessagesPerStream);
          if (message->isLast()) ++sent[stream];
        } else {
          message->setLast(true);
        }
        ++sent[stream];
        if (sent[stream] > kMessagesPerStream) --open;
        Status status = cluster[node].send(streams[stream].first, message);
        ASSERT_TRUE(status.isOk()) << status.toString();
      }
    });
  }
  for (auto& thread : producers) thread.join();
  for (auto& thread : consumers) thread.join();
  EXPECT_EQ(failures.load(), 0);
  for (NodeId node = 0; node < kNodes; ++node) {
    MultiplexerStats stats = cluster[node].stats();
    // Exactly the remote messages went over the network: 3 peers x 2 exchanges x 60, plus odd nodes' empty last ones.
    EXPECT_EQ(stats.messagesSent, 3u * 2 * (kMessagesPerStream + (node % 2)));
    if (schedule == ScheduleKind::kRoundRobin) {
      EXPECT_GT(stats.phases, 0u);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Schedules, AllToAll, ::testing::Values(ScheduleKind::kRoundRobin, ScheduleKind::kFree),
                         [](const auto& info) {
                           return info.param == ScheduleKind::kRoundRobin ? "RoundRobin" : "Free";
                         });

// A consumer that stops reading must not make memory grow: the sender runs
// out of credits, then out of pool messages, and the producer waits.
TEST(Multiplexer, SlowConsumerKeepsMemoryBounded) {
  LocalCluster cluster(2, [](MultiplexerOptions& options) {
    options.receiveWindow = 4;
    options.sendMessagesPerNumaNode = 8;
  });
  constexpr uint32_t kMessages = 300;
  std::atomic<uint32_t> produced{0};
  std::thread producer([&] {
    for (uint32_t i = 0; i < kMessages; ++i) {
      Message* message = cluster[0].acquire(0, 30s);
      ASSERT_NE(message, nullptr);
      message->setExchangeId(5);
      fill(message, Stamp{0, i, 5, 60000});
      message->setLast(i + 1 == kMessages);
      ASSERT_TRUE(cluster[0].send(1, message).isOk());
      ++produced;
    }
  });
  auto inbox = cluster[1].openExchange(5);
  inbox->expectSendersOnly({0});
  std::this_thread::sleep_for(700ms);  // the consumer is stalled
  uint32_t producedWhileStalled = produced.load();
  EXPECT_LT(producedWhileStalled, 40u) << "the producer should be held back";
  size_t receiveBuffers = cluster[1].receivePool().messagesAllocated();
  size_t sendBuffers = cluster[0].sendPool().messagesAllocated();
  EXPECT_LE(sendBuffers, 8u);
  EXPECT_LE(receiveBuffers, 2u * (4 + 4)) << "receive buffers stay within the credit window";
  uint32_t expected = 0;
  while (true) {
    auto received = inbox->receive(0, 10s);
    ASSERT_TRUE(received.status.isOk()) << received.status.toString() << " after " << expected << " messages; sent "
                                        << cluster[0].stats().messagesSent << ", received "
                                        << cluster[1].stats().messagesReceived << ", phases "
                                        << cluster[0].stats().phases << "/" << cluster[1].stats().phases;
    if (received.message == nullptr) break;
    Stamp stamp;
    ASSERT_TRUE(intact(received.message, &stamp));
    EXPECT_EQ(stamp.sequence, expected++);
    received.message->release();
  }
  producer.join();
  EXPECT_EQ(expected, kMessages);
  EXPECT_EQ(cluster[1].receivePool().messagesAllocated(), receiveBuffers) << "no growth after the stall either";
}

// The wire level: buffers are registered with the RDMA device once, when their pool grows, never per message;
// and completions are event-driven, so two connected nodes with nothing to send use next to no CPU. Over TCP
// (no registrations) the idle check still holds.
TEST(Multiplexer, RegistersBuffersOnceAndSleepsWhenIdle) {
  LocalCluster cluster(2);
  auto sendAll = [&](uint64_t exchange, uint32_t count, bool stallFirst) {
    auto inbox = cluster[1].openExchange(exchange);
    inbox->expectSendersOnly({0});
    std::thread producer([&] {
      for (uint32_t i = 0; i < count; ++i) {
        Message* message = cluster[0].acquire(0, 30s);
        ASSERT_NE(message, nullptr);
        message->setExchangeId(exchange);
        fill(message, Stamp{0, i, 5, 30000});
        message->setLast(i + 1 == count);
        ASSERT_TRUE(cluster[0].send(1, message).isOk());
      }
    });
    // A consumer that starts late lets the sender run out of credits and pool messages: the pools grow to
    // their bound, whatever the timing of the run after.
    if (stallFirst) std::this_thread::sleep_for(500ms);
    uint32_t received = 0;
    while (true) {
      auto next = inbox->receive(0, 30s);
      ASSERT_TRUE(next.status.isOk()) << next.status.toString();
      if (next.message == nullptr) break;
      next.message->release();
      ++received;
    }
    producer.join();
    EXPECT_EQ(received, count);
  };
  sendAll(21, 200, true);  // the pools grow to their bound
  const uint64_t registered = cluster[0].stats().memoryRegistrations + cluster[1].stats().memoryRegistrations;
  sendAll(22, 2000, false);
  const uint64_t after = cluster[0].stats().memoryRegistrations + cluster[1].stats().memoryRegistrations;
  std::printf("memory registrations: %llu after 200 messages, %llu after 2000 more\n",
              static_cast<unsigned long long>(registered), static_cast<unsigned long long>(after));
  EXPECT_EQ(after, registered) << "a message must never register memory of its own";
  if (std::getenv("SHOAL_TEST_TRANSPORT") != nullptr) {
    EXPECT_GT(registered, 0u) << "RDMA registers its pools";
  }

  auto cpuSeconds = [] {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  };
  const double before = cpuSeconds();
  std::this_thread::sleep_for(2s);
  const double idle = cpuSeconds() - before;
  std::printf("two idle connected nodes used %.3f CPU s in 2 s\n", idle);
  EXPECT_LT(idle, 0.1) << "an idle multiplexer must sleep, not poll";
}

// One buffer, sent once to each remote node and delivered locally too; it
// returns to the pool when the last of them is done with it.
TEST(Multiplexer, BroadcastSendsOneBufferToEveryNode) {
  LocalCluster cluster(3);
  for (NodeId node = 0; node < 3; ++node) cluster[node].openExchange(9)->expectSendersOnly({0});
  for (uint32_t i = 0; i < 10; ++i) {
    Message* message = cluster[0].acquire(0, 5s);
    message->setExchangeId(9);
    fill(message, Stamp{0, i, 9, 1000});
    message->setLast(i == 9);
    ASSERT_TRUE(cluster[0].broadcast(message, true).isOk());
  }
  for (NodeId node = 0; node < 3; ++node) {
    auto inbox = cluster[node].openExchange(9);
    uint32_t count = 0;
    while (true) {
      auto received = inbox->receive(0, 10s);
      ASSERT_TRUE(received.status.isOk()) << received.status.toString();
      if (received.message == nullptr) break;
      ++count;
      received.message->release();
    }
    EXPECT_EQ(count, 10u) << "node " << node;
  }
  EXPECT_EQ(cluster[0].stats().messagesSent, 20u) << "one send per remote node per message";
  for (int i = 0; i < 100 && cluster[0].sendPool().messagesInUse() > 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(cluster[0].sendPool().messagesInUse(), 0u);
  // 10 buffers (allocated in slabs of 8), not one per destination.
  EXPECT_LE(cluster[0].sendPool().messagesAllocated(), 16u);
}

// Messages for an exchange no query on the receiver ever opens (its query ended there before its fragment
// started) do not hold receive buffers forever, and closed exchange ids are not remembered forever either.
TEST(Multiplexer, MessagesNoConsumerOpensAreDroppedAfterAWhile) {
  LocalCluster cluster(2, [](MultiplexerOptions& options) { options.forgetExchangesAfter = 200ms; });
  // Over RDMA the receive window stays posted, so buffers count as in use when nothing is held.
  const size_t idle = cluster[1].receivePool().messagesInUse();
  for (uint32_t i = 0; i < 3; ++i) {
    Message* message = cluster[0].acquire(0, 5s);
    message->setExchangeId(77);
    fill(message, Stamp{0, i, 77, 100});
    ASSERT_TRUE(cluster[0].send(1, message).isOk());
  }
  for (int i = 0; i < 200 && cluster[1].stats().messagesReceived < 3; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(cluster[1].stats().messagesReceived, 3u);
  if (idle == 0) {  // over TCP a buffer is in use only while it holds a message
    EXPECT_GE(cluster[1].receivePool().messagesInUse(), 3u) << "held for a consumer that may still come";
  }
  std::this_thread::sleep_for(300ms);
  cluster[1].closeExchange(78);  // any close sweeps what is past its time
  // Released buffers return to the pool through the network thread (which also returns their credits).
  for (int i = 0; i < 100 && cluster[1].receivePool().messagesInUse() > idle; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(cluster[1].receivePool().messagesInUse(), idle);
  // Exchange 78 was forgotten as closed too, after its time: a late message for it waits for a consumer again.
  std::this_thread::sleep_for(300ms);
  cluster[1].closeExchange(79);
  Message* late = cluster[0].acquire(0, 5s);
  late->setExchangeId(78);
  fill(late, Stamp{0, 9, 78, 100});
  late->setLast(true);
  ASSERT_TRUE(cluster[0].send(1, late).isOk());
  auto received = cluster[1].openExchange(78)->receive(0, 5s);
  ASSERT_TRUE(received.status.isOk()) << received.status.toString();
  ASSERT_NE(received.message, nullptr);
  received.message->release();
}

// A peer killed with SIGKILL: its senders and the exchanges waiting for it
// fail within a second with an error naming it.
TEST(Multiplexer, KilledPeerFailsSendersAndExchangesWithinOneSecond) {
  auto ports = testing::freePorts(2);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Multiplexer node(testing::nodeOptions(1, ports));
    if (!node.start().isOk()) _exit(2);
    pause();
    _exit(0);
  }
  Multiplexer node(testing::nodeOptions(0, ports));
  ASSERT_TRUE(node.start().isOk());
  ASSERT_TRUE(node.waitForPeers(10s));
  auto inbox = node.openExchange(3);  // waits for node 1's messages, which never come
  std::atomic<bool> killed{false};
  std::chrono::steady_clock::time_point killedAt;
  std::chrono::milliseconds sendFailedAfter{-1};
  std::string sendError;
  std::thread producer([&] {
    while (true) {
      Message* message = node.acquire(0, 200ms);
      if (message == nullptr) continue;  // node 1 reads nothing: credits run out, then messages
      message->setExchangeId(3);
      message->setPayloadSize(1000);
      Status status = node.send(1, message);
      if (!status.isOk()) {
        sendError = status.toString();
        if (killed) {
          sendFailedAfter =
              std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - killedAt);
        }
        return;
      }
      std::this_thread::sleep_for(1ms);
    }
  });
  std::this_thread::sleep_for(300ms);
  killedAt = std::chrono::steady_clock::now();
  killed = true;
  kill(child, SIGKILL);
  auto received = inbox->receive(0, 5s);
  auto exchangeFailedAfter =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - killedAt);
  producer.join();
  waitpid(child, nullptr, 0);
  std::printf("killed peer: the exchange failed after %lld ms, the sender after %lld ms\n",
              static_cast<long long>(exchangeFailedAfter.count()), static_cast<long long>(sendFailedAfter.count()));
  ASSERT_FALSE(received.status.isOk());
  EXPECT_EQ(received.status.sqlState(), SqlState::kConnectionFailure);
  const std::string peer = "node 1 at " + testing::nodeOptions(0, ports).nodes[1].toString();
  EXPECT_NE(received.status.message().find(peer), std::string::npos) << received.status.message();
  EXPECT_LT(exchangeFailedAfter.count(), 1000);
  EXPECT_GE(sendFailedAfter.count(), 0) << sendError;
  EXPECT_LT(sendFailedAfter.count(), 1000) << sendError;
  EXPECT_NE(sendError.find("is lost"), std::string::npos) << sendError;
  EXPECT_EQ(node.peerStatus(1).state, PeerState::kLost);
  node.shutdown();
}

// Connections from outside the cluster (another cluster id, a wrong secret,
// something that is not Shoal at all) are refused and counted.
TEST(Multiplexer, ForeignConnectionsAreRefused) {
  auto ports = testing::freePorts(2);
  Multiplexer member(testing::nodeOptions(0, ports));
  ASSERT_TRUE(member.start().isOk());

  MultiplexerOptions otherCluster = testing::nodeOptions(1, ports);
  otherCluster.clusterId = "another-cluster";
  MultiplexerOptions wrongSecret = testing::nodeOptions(1, ports);
  wrongSecret.secret = "guess";
  for (const MultiplexerOptions& options : {otherCluster, wrongSecret}) {
    uint64_t refusedBefore = member.stats().connectionsRefused;
    Multiplexer intruder(options);
    ASSERT_TRUE(intruder.start().isOk());
    EXPECT_FALSE(intruder.waitForPeers(800ms));
    EXPECT_GT(member.stats().connectionsRefused, refusedBefore);
    EXPECT_NE(member.peerStatus(1).state, PeerState::kConnected);
    intruder.shutdown();
  }

  uint64_t refusedBefore = member.stats().connectionsRefused;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(ports[0]);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  std::string garbage(200, 'x');
  ASSERT_EQ(write(fd, garbage.data(), garbage.size()), static_cast<ssize_t>(garbage.size()));
  for (int i = 0; i < 300 && member.stats().connectionsRefused == refusedBefore; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(member.stats().connectionsRefused, refusedBefore + 1);
  close(fd);

  // The real node 1 still gets in.
  Multiplexer peer(testing::nodeOptions(1, ports));
  ASSERT_TRUE(peer.start().isOk());
  EXPECT_TRUE(peer.waitForPeers(10s));
  peer.shutdown();
  member.shutdown();
}

// A peer that shuts down is marked lost at once; when it comes back it is
// reconnected and new exchanges work again.
TEST(Multiplexer, PeerThatRestartsIsReconnected) {
  auto ports = testing::freePorts(2);
  Multiplexer first(testing::nodeOptions(0, ports));
  ASSERT_TRUE(first.start().isOk());
  auto second = std::make_unique<Multiplexer>(testing::nodeOptions(1, ports));
  ASSERT_TRUE(second->start().isOk());
  ASSERT_TRUE(first.waitForPeers(10s));
  ASSERT_TRUE(second->waitForPeers(10s));  // both ends have the connection, so the goodbye goes out on it
  second->shutdown();
  second.reset();
  for (int i = 0; i < 100 && first.peerStatus(1).state != PeerState::kLost; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(first.peerStatus(1).state, PeerState::kLost);
  EXPECT_NE(first.peerStatus(1).lostReason.find("shut down"), std::string::npos) << first.peerStatus(1).lostReason;

  second = std::make_unique<Multiplexer>(testing::nodeOptions(1, ports));
  ASSERT_TRUE(second->start().isOk());
  ASSERT_TRUE(first.waitForPeers(10s));
  Message* message = second->acquire(0, 1s);
  message->setExchangeId(77);
  fill(message, Stamp{1, 0, 77, 500});
  message->setLast(true);
  ASSERT_TRUE(second->send(0, message).isOk());
  auto inbox = first.openExchange(77);
  // Node 0 itself sends its (empty) last message to its own inbox.
  Message* own = first.acquire(0, 1s);
  own->setExchangeId(77);
  own->setLast(true);
  ASSERT_TRUE(first.send(0, own).isOk());
  auto received = inbox->receive(0, 10s);
  ASSERT_TRUE(received.status.isOk()) << received.status.toString();
  ASSERT_NE(received.message, nullptr);
  received.message->release();
  EXPECT_EQ(inbox->receive(0, 10s).message, nullptr) << "then the stream ends";
  second->shutdown();
  first.shutdown();
}

// An orderly shutdown right after a send still delivers the message: the
// shutdown drains what producers submitted, even in the same instant.
TEST(Multiplexer, ShutdownRightAfterASendStillDeliversIt) {
  for (int round = 0; round < 20; ++round) {
    auto ports = testing::freePorts(2);
    Multiplexer receiver(testing::nodeOptions(0, ports));
    auto sender = std::make_unique<Multiplexer>(testing::nodeOptions(1, ports));
    ASSERT_TRUE(receiver.start().isOk());
    ASSERT_TRUE(sender->start().isOk());
    ASSERT_TRUE(sender->waitForPeers(10s));
    auto inbox = receiver.openExchange(4);
    inbox->expectSendersOnly({1});
    Message* message = sender->acquire(0, 1s);
    message->setExchangeId(4);
    fill(message, Stamp{1, 0, 4, 100});
    message->setLast(true);
    ASSERT_TRUE(sender->send(0, message).isOk());
    sender->shutdown();
    auto received = inbox->receive(0, 10s);
    ASSERT_TRUE(received.status.isOk()) << "round " << round << ": " << received.status.toString();
    ASSERT_NE(received.message, nullptr);
    received.message->release();
    receiver.shutdown();
  }
}

bool hasRdmaDevice() {
  std::error_code error;
  return std::filesystem::exists("/sys/class/infiniband", error) &&
         !std::filesystem::is_empty("/sys/class/infiniband", error);
}

// Without an RDMA device, auto falls back to TCP and rdma refuses to start,
// both with one clear line.
TEST(Multiplexer, WithoutRdmaDeviceAutoUsesTcpAndRdmaExplains) {
  if (hasRdmaDevice()) GTEST_SKIP() << "this machine has an RDMA device; the soft-RoCE suite covers it";
  auto ports = testing::freePorts(2);
  MultiplexerOptions rdmaOnly = testing::nodeOptions(0, ports);
  rdmaOnly.transport = TransportChoice::kRdma;
  Multiplexer refused(rdmaOnly);
  Status status = refused.start();
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("no RDMA device"), std::string::npos) << status.message();

  static std::vector<uint16_t> autoPorts;
  autoPorts = testing::freePorts(2);
  std::vector<std::unique_ptr<Multiplexer>> nodes;
  for (NodeId node = 0; node < 2; ++node) {
    MultiplexerOptions options = testing::nodeOptions(node, autoPorts);
    options.transport = TransportChoice::kAuto;
    nodes.push_back(std::make_unique<Multiplexer>(options));
    ASSERT_TRUE(nodes.back()->start().isOk());
  }
  ASSERT_TRUE(nodes[1]->waitForPeers(10s));
  EXPECT_EQ(nodes[1]->peerStatus(0).transport, "tcp");
  for (auto& node : nodes) node->shutdown();
}

}  // namespace
}  // namespace shoal::multiplexer
