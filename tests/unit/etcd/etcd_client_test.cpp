// The etcd client against a real etcd-server (Debian's etcd-server, which install-deps installs), started on
// free ports in a scratch directory: keys under a prefix, leases that take their keys with them when they
// expire, and prefix watches that see puts and deletes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "common/status.h"
#include "etcd/etcd_client.h"
#include "tests/unit/multiplexer/multiplexer_test_cluster.h"

namespace shoal::etcd {
namespace {

using namespace std::chrono_literals;

/// An etcd-server process of its own for one test.
class EtcdServer {
 public:
  EtcdServer() {
    auto ports = multiplexer::testing::freePorts(2);
    static int servers = 0;
    directory_ = std::filesystem::temp_directory_path() /
                 ("shoal-etcd-test-" + std::to_string(getpid()) + "-" + std::to_string(servers++));
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_);
    endpoint_ = "127.0.0.1:" + std::to_string(ports[0]);
    const std::string client = "http://" + endpoint_;
    const std::string peer = "http://127.0.0.1:" + std::to_string(ports[1]);
    pid_ = fork();
    if (pid_ == 0) {
      const std::string log = (directory_ / "etcd.log").string();
      // The server's output goes to its log, never to the test's own pipes (which it would keep open).
      if (freopen(log.c_str(), "w", stderr) == nullptr || freopen("/dev/null", "w", stdout) == nullptr) _exit(126);
      execlp("etcd", "etcd", "--data-dir", (directory_ / "data").c_str(), "--listen-client-urls", client.c_str(),
             "--advertise-client-urls", client.c_str(), "--listen-peer-urls", peer.c_str(),
             "--initial-advertise-peer-urls", peer.c_str(), "--initial-cluster", ("default=" + peer).c_str(),
             static_cast<char*>(nullptr));
      _exit(127);
    }
    EtcdClient probe(endpoint_, 500ms);
    for (int i = 0; i < 40; ++i) {
      try {
        probe.getPrefix("/");
        return;
      } catch (const ShoalError&) {
        std::this_thread::sleep_for(100ms);
      }
    }
    stop();  // the destructor does not run when the constructor throws
    throw std::runtime_error("etcd did not start");
  }
  ~EtcdServer() { stop(); }
  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
    std::filesystem::remove_all(directory_);
  }
  const std::string& endpoint() const { return endpoint_; }

 private:
  std::filesystem::path directory_;
  std::string endpoint_;
  pid_t pid_ = -1;
};

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
