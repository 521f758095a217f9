#include "multiplexer/exchange_inbox.h"

#include <gtest/gtest.h>

#include <thread>

#include "multiplexer/message_pool.h"

namespace shoal::multiplexer {
namespace {

using namespace std::chrono_literals;

Message* messageFrom(MessagePool& pool, NodeId sender, uint32_t bytes, bool last = false) {
  Message* message = pool.acquire(sender % pool.topology().numNodes(), 1s);
  message->setSender(sender);
  message->setExchangeId(1);
  message->setPayloadSize(bytes);
  message->setLast(last);
  return message;
}

// With two (fake) NUMA nodes, sender s lands in queue s mod 2; a consumer
// drains its own node's queue first and steals only when it is empty.
TEST(ExchangeInbox, ConsumersPreferTheirNumaQueueAndStealWhenItIsEmpty) {
  MessagePool pool(NumaTopology::fake(2), MessagePoolOptions{4096, 16, 4});
  ExchangeInbox inbox(1, 2, 4);
  inbox.deliver(messageFrom(pool, 1, 100));  // queue 1
  inbox.deliver(messageFrom(pool, 0, 200));  // queue 0
  inbox.deliver(messageFrom(pool, 2, 300));  // queue 0
  auto first = inbox.receive(0, 1s);
  auto second = inbox.receive(0, 1s);
  auto third = inbox.receive(0, 1s);
  EXPECT_EQ(first.message->sender(), 0u);
  EXPECT_EQ(second.message->sender(), 2u);
  EXPECT_EQ(third.message->sender(), 1u) << "stolen from node 1's queue once node 0's was empty";
  EXPECT_EQ(inbox.stolenMessages(), 1u);
  for (auto* received : {first.message, second.message, third.message}) received->release();
  EXPECT_EQ(pool.messagesInUse(), 0u);
}

TEST(ExchangeInbox, EndsWhenEverySenderSentItsLastMessage) {
  MessagePool pool(NumaTopology::fake(1), MessagePoolOptions{4096, 16, 4});
  ExchangeInbox inbox(1, 1, 3);
  inbox.expectSendersOnly({0, 2});
  inbox.deliver(messageFrom(pool, 0, 10, true));
  EXPECT_FALSE(inbox.finished());
  inbox.deliver(messageFrom(pool, 2, 0, true));  // an empty last message only ends the sender's stream
  auto received = inbox.receive(0, 1s);
  ASSERT_NE(received.message, nullptr);
  received.message->release();
  auto end = inbox.receive(0, 1s);
  EXPECT_TRUE(end.status.isOk());
  EXPECT_EQ(end.message, nullptr);
  EXPECT_TRUE(inbox.finished());
  // A message after a sender's last one is dropped, not delivered.
  inbox.deliver(messageFrom(pool, 0, 10));
  EXPECT_EQ(inbox.tryReceive(0).message, nullptr);
  EXPECT_EQ(pool.messagesInUse(), 0u);
}

TEST(ExchangeInbox, LostSenderFailsWaitingConsumers) {
  MessagePool pool(NumaTopology::fake(1), MessagePoolOptions{4096, 16, 4});
  ExchangeInbox inbox(1, 1, 2);
  inbox.deliver(messageFrom(pool, 0, 0, true));
  std::thread loser([&] {
    std::this_thread::sleep_for(50ms);
    inbox.failSender(0, Status(SqlState::kConnectionFailure, "finished senders do not fail the stream"));
    inbox.failSender(1, Status(SqlState::kConnectionFailure, "node 1 at h:1 is lost: gone"));
  });
  auto received = inbox.receive(0, 5s);
  loser.join();
  EXPECT_EQ(received.status.sqlState(), SqlState::kConnectionFailure);
  EXPECT_EQ(received.status.message(), "node 1 at h:1 is lost: gone");
}

// A consumer that cannot run yet (its pipeline waits for a join build) must not hold receive buffers: what
// waits in them, and what arrives later, is copied to the heap, charged to the query, and the buffers go back.
TEST(ExchangeInbox, AConsumerThatIsNotReadyHoldsNoBufferAndItsCopiesAreCharged) {
  MessagePool pool(NumaTopology::fake(1), MessagePoolOptions{4096, 16, 4});
  ExchangeInbox inbox(1, 1, 2, std::make_shared<ReceiveSide>(1));
  inbox.markOpened();
  int64_t charged = 0;
  inbox.setHeapAccount([&](int64_t bytes) {
    if (charged + bytes > 250) return Status(SqlState::kOutOfMemory, "over the query's limit");
    charged += bytes;
    return Status::ok();
  });
  inbox.deliver(messageFrom(pool, 0, 100));
  EXPECT_EQ(pool.messagesInUse(), 1u) << "a ready consumer's message waits in its buffer";
  inbox.setConsumerReady(false);
  EXPECT_EQ(pool.messagesInUse(), 0u);
  inbox.deliver(messageFrom(pool, 1, 100));
  EXPECT_EQ(pool.messagesInUse(), 0u);
  EXPECT_EQ(charged, 200);
  EXPECT_EQ(inbox.heapBytes(), 200u);
  auto first = inbox.tryReceive(0);
  ASSERT_NE(first.message, nullptr);
  EXPECT_EQ(first.message->payloadSize(), 100u);
  EXPECT_EQ(charged, 100) << "a copy taken by its consumer is no longer charged here";
  first.message->release();
  // Past the limit the stream fails, and what waits goes back with its charge.
  inbox.deliver(messageFrom(pool, 0, 200));
  auto failed = inbox.tryReceive(0);
  EXPECT_EQ(failed.message, nullptr);
  EXPECT_EQ(failed.status.sqlState(), SqlState::kOutOfMemory);
  EXPECT_EQ(charged, 0);
  EXPECT_EQ(inbox.heapBytes(), 0u);
  EXPECT_EQ(pool.messagesInUse(), 0u);
}

// While a producer of this node waits for a send buffer, nothing may wait in a receive buffer.
TEST(ExchangeInbox, WaitingProducersMoveWaitingMessagesToTheHeap) {
  MessagePool pool(NumaTopology::fake(1), MessagePoolOptions{4096, 16, 4});
  auto side = std::make_shared<ReceiveSide>(1);
  ExchangeInbox inbox(1, 1, 2, side);
  inbox.markOpened();
  inbox.deliver(messageFrom(pool, 0, 10));
  inbox.deliver(messageFrom(pool, 1, 20));
  EXPECT_EQ(pool.messagesInUse(), 2u);
  side->producerWaits(true);
  inbox.moveBuffersToHeap();
  inbox.deliver(messageFrom(pool, 0, 30, true));
  EXPECT_EQ(pool.messagesInUse(), 0u);
  EXPECT_EQ(side->heapCopies(), 3u);
  side->producerWaits(false);
  std::vector<uint32_t> sizes;
  while (auto* message = inbox.tryReceive(0).message) {
    sizes.push_back(message->payloadSize());
    message->release();
  }
  EXPECT_EQ(sizes, (std::vector<uint32_t>{10, 20, 30})) << "in the order they came, each sender's in its order";
  EXPECT_EQ(side->consumedLocally(0), 3u);
}

TEST(MessagePool, BoundedPerNodeAndReused) {
  MessagePool pool(NumaTopology::fake(2), MessagePoolOptions{1024, 4, 2});
  std::vector<Message*> taken;
  for (int i = 0; i < 4; ++i) taken.push_back(pool.acquire(1, 1s));
  EXPECT_EQ(pool.tryAcquire(1), nullptr) << "node 1 is at its limit";
  EXPECT_EQ(pool.acquire(1, 50ms), nullptr) << "acquire waits, then gives up";
  Message* other = pool.tryAcquire(0);
  ASSERT_NE(other, nullptr) << "node 0 has its own budget";
  EXPECT_EQ(other->numaNode(), 0u);
  std::thread releaser([&] {
    std::this_thread::sleep_for(50ms);
    taken[0]->release();
  });
  Message* reused = pool.acquire(1, 5s);
  releaser.join();
  EXPECT_EQ(reused, taken[0]) << "a released message is handed out again";
  EXPECT_EQ(pool.messagesAllocated(), 6u) << "4 on node 1, one slab of 2 on node 0";
  for (size_t i = 1; i < taken.size(); ++i) taken[i]->release();
  reused->release();
  other->release();
  EXPECT_EQ(pool.messagesInUse(), 0u);
}

}  // namespace
}  // namespace shoal::multiplexer
