// The etcd client against a real etcd-server (Debian's etcd-server, which install-deps installs), started on
// free ports in a scratch directory: keys under a prefix, leases that take their keys with them when they
// expire, and prefix watches that see puts and deletes.
#include <gtest/gtest.h>

#include <thread>

#include "common/status.h"
#include "etcd/etcd_client.h"
#include "tests/unit/etcd/etcd_test_server.h"

namespace shoal::etcd {
namespace {

using namespace std::chrono_literals;
using testing::EtcdServer;

TEST(EtcdClientTest, KeysUnderAPrefixArePutReadAndRemoved) {
  EtcdServer server;
  EtcdClient client(server.endpoint());
  client.put("/shoal/test/nodes/a", "1");
  client.put("/shoal/test/nodes/b", "2");
  client.put("/shoal/test/other", "3");
  int64_t revision = 0;
  auto nodes = client.getPrefix("/shoal/test/nodes/", &revision);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].key, "/shoal/test/nodes/a");
  EXPECT_EQ(nodes[1].value, "2");
  EXPECT_GT(revision, 0);
  client.remove("/shoal/test/nodes/a");
  EXPECT_EQ(client.getPrefix("/shoal/test/nodes/").size(), 1u);
  client.removePrefix("/shoal/test/");
  EXPECT_TRUE(client.getPrefix("/shoal/test/").empty());
}

TEST(EtcdClientTest, ATransactionPutsAndRemovesKeysTogether) {
  EtcdServer server;
  EtcdClient client(server.endpoint());
  client.put("/shoal/test/catalog/old", "gone soon");
  int64_t before = 0;
  client.getPrefix("/shoal/test/", &before);
  client.commit({{"/shoal/test/catalog/a", "1"}, {"/shoal/test/catalog/b", "2"}}, {"/shoal/test/catalog/old"});
  int64_t after = 0;
  auto keys = client.getPrefix("/shoal/test/catalog/", &after);
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].key, "/shoal/test/catalog/a");
  EXPECT_EQ(keys[1].value, "2");
  EXPECT_EQ(after, before + 1) << "one transaction is one revision";
}

TEST(EtcdClientTest, AnExpiredLeaseTakesItsKeysAndCannotBeRenewed) {
  EtcdServer server;
  EtcdClient client(server.endpoint());
  const int64_t lease = client.grantLease(2);
  client.put("/shoal/test/leased", "x", lease);
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(500ms);
    ASSERT_TRUE(client.keepAlive(lease)) << "a lease renewed in time stays";
  }
  EXPECT_EQ(client.getPrefix("/shoal/test/leased").size(), 1u);
  std::this_thread::sleep_for(3500ms);  // no renewal: the lease and its key go
  EXPECT_TRUE(client.getPrefix("/shoal/test/leased").empty());
  EXPECT_FALSE(client.keepAlive(lease));
}

TEST(EtcdClientTest, APrefixWatchSeesPutsAndDeletes) {
  EtcdServer server;
  EtcdClient client(server.endpoint());
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<WatchEvent> seen;
  auto watch = client.watchPrefix(
      "/shoal/test/", 0,
      [&](const std::vector<WatchEvent>& events) {
        std::lock_guard lock(mutex);
        seen.insert(seen.end(), events.begin(), events.end());
        changed.notify_all();
      },
      [](const std::string&) {});
  std::this_thread::sleep_for(300ms);  // the watch is created
  client.put("/shoal/test/w", "v");
  client.put("/shoal/elsewhere", "v");
  client.remove("/shoal/test/w");
  std::unique_lock lock(mutex);
  ASSERT_TRUE(changed.wait_for(lock, 5s, [&] { return seen.size() >= 2; }));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_FALSE(seen[0].deleted);
  EXPECT_EQ(seen[0].kv.key, "/shoal/test/w");
  EXPECT_EQ(seen[0].kv.value, "v");
  EXPECT_TRUE(seen[1].deleted);
}

TEST(EtcdClientTest, AnUnreachableEtcdFailsWith08006NamingIt) {
  auto ports = multiplexer::testing::freePorts(1);
  EtcdClient client("127.0.0.1:" + std::to_string(ports[0]), 300ms);
  try {
    client.put("/k", "v");
    FAIL() << "put to nowhere succeeded";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), "08006");
    EXPECT_NE(error.status().message().find(std::to_string(ports[0])), std::string::npos);
  }
}

}  // namespace
}  // namespace shoal::etcd
