// Membership and the catalog in a real etcd-server: a worker's leased registration makes it up, draining and
// leaving show, a worker that stops renewing goes down within its lease TTL, the catalog round-trips through
// etcd a key per relation, a change etcd refuses is undone, and an etcd that restarts without its data gets
// every worker and the catalog back.
#include <gtest/gtest.h>

#include <thread>

#include "coordinator/catalog/etcd_catalog_store.h"
#include "coordinator/catalog/table_catalog.h"
#include "coordinator/membership/etcd_membership.h"
#include "coordinator/membership/member_registry.h"
#include "etcd/cluster_keys.h"
#include "proto/control_protocol.h"
#include "tests/unit/etcd/etcd_test_server.h"
#include "worker/etcd_registration.h"

namespace shoal::coordinator {
namespace {

using namespace std::chrono_literals;
using etcd::testing::EtcdServer;

constexpr int64_t kLeaseTtlSeconds = 2;

std::unique_ptr<worker::EtcdRegistration> registerWorker(const EtcdServer& server, const std::string& name) {
  etcd::MemberRecord record;
  record.address = "127.0.0.1:1";
  record.exchangeAddress = "127.0.0.1:2";
  record.protocolVersion = proto::kControlProtocolVersion;
  record.leaseTtlSeconds = kLeaseTtlSeconds;
  auto registration = std::make_unique<worker::EtcdRegistration>(server.endpoint(), etcd::EtcdSecurity{}, "test", name,
                                                                 record, kLeaseTtlSeconds);
  registration->start();
  return registration;
}

/// Waits up to `timeout` for the worker to be in `state`; returns how long that took.
std::optional<std::chrono::milliseconds> waitForState(const MemberRegistry& registry, const std::string& name,
                                                      const std::string& state, std::chrono::milliseconds timeout) {
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < timeout) {
    if (registry.stateOf(name) == state) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    }
    std::this_thread::sleep_for(20ms);
  }
  return std::nullopt;
}

TableEntry tableNamed(const std::string& name) {
  TableEntry entry;
  entry.name = name;
  entry.columns.push_back(CatalogColumn{"id", engine::LogicalType::integer(), true});
  entry.distribution = Distribution::kHash;
  entry.distributionColumns = {0};
  entry.placement = {"w1", "w2"};
  return entry;
}

TEST(EtcdMembershipTest, WorkersAreUpWhileTheirLeaseLivesAndLeaveOrGoDown) {
  EtcdServer server;
  etcd::EtcdClient client(server.endpoint());
  MemberRegistry registry(2000ms);
  EtcdMembership membership(client, "test", registry, nullptr);
  membership.start();

  auto leaving = registerWorker(server, "w1");
  auto silent = registerWorker(server, "w2");
  ASSERT_TRUE(waitForState(registry, "w1", "up", 3s));
  ASSERT_TRUE(waitForState(registry, "w2", "up", 3s));
  EXPECT_EQ(registry.numLiveWorkers(), 2u);

  leaving->announceDraining();
  EXPECT_TRUE(waitForState(registry, "w1", "draining", 2s));
  leaving->leave();
  EXPECT_TRUE(waitForState(registry, "w1", "left", 2s)) << "a revoked lease after draining is a departure";

  silent.reset();  // stops renewing without leaving: as if its link were cut
  auto down = waitForState(registry, "w2", "down", std::chrono::seconds(kLeaseTtlSeconds + 2));
  ASSERT_TRUE(down) << "not down within the lease TTL";
  EXPECT_LE(down->count(), (kLeaseTtlSeconds + 1) * 1000);

  auto back = registerWorker(server, "w2");
  EXPECT_TRUE(waitForState(registry, "w2", "up", 3s)) << "a worker registering again is up again";
  back->leave();
}

TEST(EtcdMembershipTest, TheCatalogRoundTripsThroughEtcdAndARefusedChangeIsUndone) {
  EtcdServer server;
  etcd::EtcdClient client(server.endpoint(), 500ms);
  const std::string prefix = etcd::clusterPrefix("test");
  {
    TableCatalog catalog(std::make_unique<EtcdCatalogStore>(client, prefix));
    catalog.create(tableNamed("a"));
    catalog.create(tableNamed("b"));
    ViewEntry view;
    view.name = "v";
    view.statement = "CREATE VIEW v AS SELECT 1";
    view.columnNames = {"x"};
    catalog.createView(view, false);
    catalog.drop({"public", "b"});
    // A schema whose name holds the key separator, a table of the same name as public's in it, a comment.
    catalog.createSchema("st/aging", false, sql::kOwnerRoleOid);
    TableEntry staged = tableNamed("a");
    staged.schema = "st/aging";
    catalog.create(staged);
    catalog.setComment({"st/aging", "a"}, 0, "staged");
  }
  auto keys = client.getPrefix(prefix + "catalog/");
  ASSERT_EQ(keys.size(), 4u) << "meta, tables/public/a, tables/st%2Faging/a and views/public/v";
  EXPECT_EQ(keys[1].key, prefix + "catalog/tables/public/a");
  EXPECT_EQ(keys[2].key, prefix + "catalog/tables/st%2Faging/a");

  TableCatalog recovered(std::make_unique<EtcdCatalogStore>(client, prefix));
  ASSERT_NE(recovered.find({"public", "a"}), nullptr);
  EXPECT_EQ(recovered.find({"public", "a"})->placement, (std::vector<std::string>{"w1", "w2"}));
  EXPECT_EQ(recovered.find({"public", "b"}), nullptr);
  EXPECT_TRUE(recovered.findView({"public", "v"}).has_value());
  ASSERT_NE(recovered.find({"st/aging", "a"}), nullptr);
  EXPECT_NE(recovered.find({"st/aging", "a"})->tableId, recovered.find({"public", "a"})->tableId);
  ASSERT_EQ(recovered.schemas().size(), 2u) << "public and st/aging";
  ASSERT_EQ(recovered.comments().size(), 1u);
  EXPECT_EQ(recovered.comments()[0].text, "staged");

  server.stop(/*keepData=*/true);
  try {
    recovered.create(tableNamed("c"));
    FAIL() << "a change etcd could not store succeeded";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kConnectionFailure);
  }
  EXPECT_EQ(recovered.find({"public", "c"}), nullptr) << "the refused change stayed in memory";
  server.start();
  recovered.create(tableNamed("c"));
  EXPECT_EQ(client.getPrefix(prefix + "catalog/tables/").size(), 3u);
}

TEST(EtcdMembershipTest, AnEtcdBackWithoutItsDataGetsEveryWorkerAndTheCatalogAgain) {
  EtcdServer server;
  etcd::EtcdClient client(server.endpoint(), 500ms);
  const std::string prefix = etcd::clusterPrefix("test");
  TableCatalog catalog(std::make_unique<EtcdCatalogStore>(client, prefix));
  catalog.create(tableNamed("a"));
  MemberRegistry registry(2000ms);
  EtcdMembership membership(client, "test", registry, [&] { catalog.republish(); });
  membership.start();
  auto registration = registerWorker(server, "w1");
  ASSERT_TRUE(waitForState(registry, "w1", "up", 3s));

  server.stop(/*keepData=*/false);
  std::this_thread::sleep_for(std::chrono::seconds(kLeaseTtlSeconds + 1));
  EXPECT_EQ(registry.stateOf("w1"), "up") << "without etcd, the last view stays";
  server.start();

  auto deadline = std::chrono::steady_clock::now() + 10s;
  while (std::chrono::steady_clock::now() < deadline &&
         (client.getPrefix(etcd::membersPrefix("test")).empty() || client.getPrefix(prefix + "catalog/").empty())) {
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(client.getPrefix(etcd::membersPrefix("test")).size(), 1u) << "the worker registered again";
  EXPECT_EQ(client.getPrefix(prefix + "catalog/tables/").size(), 1u) << "the catalog was republished";
  std::this_thread::sleep_for(std::chrono::seconds(kLeaseTtlSeconds + 1));
  EXPECT_EQ(registry.stateOf("w1"), "up") << "a worker that registered again within its grace never went down";
  registration->leave();
}

}  // namespace
}  // namespace shoal::coordinator
