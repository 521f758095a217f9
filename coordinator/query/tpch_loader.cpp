#include "coordinator/query/tpch_loader.h"

#include <grpcpp/client_context.h>
#include <spdlog/spdlog.h>

#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "common/stopwatch.h"
#include "coordinator/query/load_transaction.h"
#include "coordinator/query/table_commands.h"
#include "proto/rpc_status.h"
#include "sql/binder/binder.h"
#include "sql/parser/parsed_script.h"

namespace shoal::coordinator {

const std::vector<std::string>& tpchSchemaStatements() {
  static const std::vector<std::string> kStatements = {
      "CREATE TABLE region (r_regionkey INTEGER NOT NULL PRIMARY KEY, r_name CHAR(25) NOT NULL, "
      "r_comment VARCHAR(152)) WITH (distribution = 'replicated')",
      "CREATE TABLE nation (n_nationkey INTEGER NOT NULL PRIMARY KEY, n_name CHAR(25) NOT NULL, "
      "n_regionkey INTEGER NOT NULL, n_comment VARCHAR(152)) WITH (distribution = 'replicated')",
      "CREATE TABLE supplier (s_suppkey INTEGER NOT NULL PRIMARY KEY, s_name CHAR(25) NOT NULL, "
      "s_address VARCHAR(40) NOT NULL, s_nationkey INTEGER NOT NULL, s_phone CHAR(15) NOT NULL, "
      "s_acctbal DECIMAL(15,2) NOT NULL, s_comment VARCHAR(101) NOT NULL) WITH (distribution = 'hash(s_suppkey)')",
      "CREATE TABLE customer (c_custkey INTEGER NOT NULL PRIMARY KEY, c_name VARCHAR(25) NOT NULL, "
      "c_address VARCHAR(40) NOT NULL, c_nationkey INTEGER NOT NULL, c_phone CHAR(15) NOT NULL, "
      "c_acctbal DECIMAL(15,2) NOT NULL, c_mktsegment CHAR(10) NOT NULL, c_comment VARCHAR(117) NOT NULL) "
      "WITH (distribution = 'hash(c_custkey)')",
      "CREATE TABLE part (p_partkey INTEGER NOT NULL PRIMARY KEY, p_name VARCHAR(55) NOT NULL, "
      "p_mfgr CHAR(25) NOT NULL, p_brand CHAR(10) NOT NULL, p_type VARCHAR(25) NOT NULL, p_size INTEGER NOT NULL, "
      "p_container CHAR(10) NOT NULL, p_retailprice DECIMAL(15,2) NOT NULL, p_comment VARCHAR(23) NOT NULL) "
      "WITH (distribution = 'hash(p_partkey)')",
      "CREATE TABLE partsupp (ps_partkey INTEGER NOT NULL, ps_suppkey INTEGER NOT NULL, "
      "ps_availqty INTEGER NOT NULL, ps_supplycost DECIMAL(15,2) NOT NULL, ps_comment VARCHAR(199) NOT NULL, "
      "PRIMARY KEY (ps_partkey, ps_suppkey)) WITH (distribution = 'hash(ps_partkey)')",
      "CREATE TABLE orders (o_orderkey BIGINT NOT NULL PRIMARY KEY, o_custkey INTEGER NOT NULL, "
      "o_orderstatus CHAR(1) NOT NULL, o_totalprice DECIMAL(15,2) NOT NULL, o_orderdate DATE NOT NULL, "
      "o_orderpriority CHAR(15) NOT NULL, o_clerk CHAR(15) NOT NULL, o_shippriority INTEGER NOT NULL, "
      "o_comment VARCHAR(79) NOT NULL) WITH (distribution = 'hash(o_orderkey)')",
      "CREATE TABLE lineitem (l_orderkey BIGINT NOT NULL, l_partkey INTEGER NOT NULL, l_suppkey INTEGER NOT NULL, "
      "l_linenumber INTEGER NOT NULL, l_quantity DECIMAL(15,2) NOT NULL, l_extendedprice DECIMAL(15,2) NOT NULL, "
      "l_discount DECIMAL(15,2) NOT NULL, l_tax DECIMAL(15,2) NOT NULL, l_returnflag CHAR(1) NOT NULL, "
      "l_linestatus CHAR(1) NOT NULL, l_shipdate DATE NOT NULL, l_commitdate DATE NOT NULL, "
      "l_receiptdate DATE NOT NULL, l_shipinstruct CHAR(25) NOT NULL, l_shipmode CHAR(10) NOT NULL, "
      "l_comment VARCHAR(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber)) "
      "WITH (distribution = 'hash(l_orderkey)')"};
  return kStatements;
}

namespace {

/// About the memory TPC-H takes in the workers' segments, per unit of scale factor: at SF 1 the workers hold
/// ~0.8 GB in all, against 1.07 GB of .tbl text. Readied up front, it adds to the load's peak resident
/// memory, so no more than that: what a load readies and does not use is freed when it ends.
constexpr double kTpchStoredBytesPerScaleFactor = 800e6;

/// A CREATE TABLE of tpchSchemaStatements without its PRIMARY KEY: a randomly distributed table cannot
/// enforce one (rows with equal keys could land on different workers).
std::string withoutPrimaryKey(std::string statement) {
  statement = std::regex_replace(statement, std::regex(", PRIMARY KEY \\([^)]*\\)"), "");
  return std::regex_replace(statement, std::regex(" PRIMARY KEY"), "");
}

/// The workers that run the generator: `count` of them, or by default the first worker of every host.
std::vector<LiveWorker> chooseGenerators(std::vector<LiveWorker> live, uint32_t count) {
  if (live.empty()) SHOAL_USER_FAIL(SqlState::kConnectionFailure, "no worker is up to generate TPC-H");
  if (count > 0) {
    live.resize(std::min<size_t>(live.size(), count));
    return live;
  }
  std::vector<LiveWorker> chosen;
  std::set<std::string> hosts;
  for (auto& worker : live) {
    std::string host = worker.address.substr(0, worker.address.rfind(':'));
    if (hosts.insert(host).second) chosen.push_back(std::move(worker));
  }
  return chosen;
}

/// Has the chosen workers generate and load every table of `entries` in one load transaction, committed
/// when all succeeded (aborted otherwise, and the first error thrown). Returns the rows loaded.
uint64_t generateAndCommit(ClusterContext& cluster, const std::vector<std::shared_ptr<const TableEntry>>& entries,
                           double scaleFactor, uint32_t generators) {
  LoadTransaction load(cluster, entries);
  load.skipKeyCheck();  // the generator's keys are unique, and the tables were made for this load
  // The workers ready memory for their share while the generator starts up (it builds its text pool on
  // one thread first, leaving the other cores idle).
  load.announce(static_cast<uint64_t>(scaleFactor * kTpchStoredBytesPerScaleFactor));

  // Worker i generates part i of every table (nation and region come with part 1) and routes each row to its owner.
  std::vector<LiveWorker> workers = chooseGenerators(cluster.workers.liveWorkers(), generators);
  const uint32_t parts = static_cast<uint32_t>(workers.size());
  proto::GenerateTpchRequest request;
  request.set_load_id(load.loadId());
  for (const auto& entry : entries) *request.add_layouts() = cluster.workers.layoutOf(*entry);
  request.set_scale_factor(scaleFactor);
  request.set_parts(parts);
  std::mutex mutex;
  std::optional<Status> firstError;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  for (size_t i = 0; i < workers.size(); ++i) contexts.push_back(std::make_unique<grpc::ClientContext>());
  std::vector<std::thread> threads;
  for (uint32_t part = 1; part <= parts; ++part) {
    threads.emplace_back([&, part] {
      const LiveWorker& worker = workers[part - 1];
      proto::GenerateTpchRequest partRequest = request;
      partRequest.set_part(part);
      proto::LoadResponse response;
      grpc::Status status =
          cluster.workers.dataStub(worker.address).GenerateTpch(contexts[part - 1].get(), partRequest, &response);
      std::lock_guard lock(mutex);
      if (!status.ok()) {
        if (!firstError) {
          firstError = proto::fromGrpcStatus(status, worker.name);
          for (auto& context : contexts) context->TryCancel();  // the others' work is lost anyway
        }
        return;
      }
      spdlog::info("tpch_load: {} generated part {}/{}: {} rows", worker.name, part, parts, response.rows());
    });
  }
  for (auto& thread : threads) thread.join();
  if (firstError) throw ShoalError(*firstError);
  return load.commit();
}

}  // namespace

std::string runTpchLoad(ClusterContext& cluster, double scaleFactor, uint32_t generators, bool chunked,
                        const std::string& user, std::vector<Notice>& notices) {
  Stopwatch stopwatch;
  std::vector<std::string> tables = {"region", "nation",   "supplier", "customer",
                                     "part",   "partsupp", "orders",   "lineitem"};
  // The tables live in public, made again first if it was dropped.
  cluster.tables.createSchema(std::string(sql::kPublicSchema), true, sql::kDatabaseOwnerRoleOid);
  sql::DropTable drop;
  drop.ifExists = true;
  for (const auto& name : tables) drop.names.push_back({std::string(sql::kPublicSchema), name});
  std::vector<Notice> ignored;
  runDropTable(cluster, drop, user, ignored);
  for (std::string statement : tpchSchemaStatements()) {
    if (chunked) {
      const size_t hashed = statement.find("distribution = 'hash(");
      if (hashed != std::string::npos) {
        statement = withoutPrimaryKey(statement.substr(0, hashed) + "distribution = 'random')");
      }
    }
    sql::ParsedScript script = sql::ParsedScript::parse(statement);
    sql::BoundStatement bound = sql::Binder(cluster.catalog).bind(script, 0);
    runCreateTable(cluster, std::get<sql::CreateTable>(bound.command), user, ignored);
  }
  std::vector<std::shared_ptr<const TableEntry>> entries;
  for (const auto& name : tables) entries.push_back(cluster.tables.find({std::string(sql::kPublicSchema), name}));
  uint64_t rows = 0;
  try {
    rows = generateAndCommit(cluster, entries, scaleFactor, generators);
  } catch (const ShoalError&) {
    // The tables were made by this call: a load that failed leaves none of them behind, empty.
    try {
      runDropTable(cluster, drop, user, ignored);
    } catch (const ShoalError& error) {
      spdlog::warn("tpch_load: could not drop the tables of the failed load: {}", error.what());
    }
    throw;
  }
  double seconds = stopwatch.seconds();
  notices.push_back(
      Notice::notice(fmt::format("loaded TPC-H scale factor {} ({} rows) in {:.1f} s", scaleFactor, rows, seconds)));
  spdlog::info("tpch_load: scale factor {}: {} rows in {:.1f} s", scaleFactor, rows, seconds);
  return "CALL";
}

}  // namespace shoal::coordinator
