#include "coordinator/query/plan_executor.h"

#include <grpcpp/client_context.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <unistd.h>

#include <random>

#include "coordinator/planner/distributed_planner.h"
#include "coordinator/query/distributed_executor.h"
#include "coordinator/query/recursive_queries.h"
#include "engine/pipeline/collect_sink.h"
#include "engine/vector/chunk_codec.h"
#include "proto/plan_codec.h"
#include "proto/rpc_status.h"
#include "scheduler/pipeline_runner.h"
#include "sql/execution/pipeline_builder.h"
#include "sql/plan/expression_rewriting.h"
#include "sql/plan/plan_serialization.h"

namespace shoal::coordinator {

namespace {

/// A user table's scan: one morsel per worker holding a partition, each read
/// through the worker's Scan stream with the scan's filters and columns pushed down.
class WorkerTableScan final : public engine::ChunkSource {
 public:
  WorkerTableScan(ClusterContext& cluster, const sql::LogicalScan& scan, std::span<const engine::Value> parameters,
                  const std::optional<proto::SnapshotProto>& snapshot)
      : cluster_(cluster), snapshot_(snapshot) {
    if (std::find(scan.tableColumns.begin(), scan.tableColumns.end(), sql::kRowIdColumn) != scan.tableColumns.end()) {
      SHOAL_USER_FAIL(SqlState::kFeatureNotSupported, "UPDATE and DELETE that read system views are not supported");
    }
    auto table = cluster.tables.require({scan.table.schema, scan.table.name});
    addresses_ = cluster.workers.readableAddresses(*table);
    if (table->distribution == Distribution::kReplicated) addresses_.resize(std::min<size_t>(addresses_.size(), 1));
    fragment_.set_storage_id(table->storageId);
    for (const auto& type : table->columnTypes()) *fragment_.add_column_types() = proto::encodeType(type);
    // Plan column ids become table column positions.
    auto toTableColumns = [&](const engine::Expression& expression) {
      return sql::rewriteExpression(expression, [&](const engine::Expression& node) -> engine::ExpressionPtr {
        if (node.kind() != engine::ExpressionKind::kColumnRef) return nullptr;
        auto id = static_cast<sql::ColumnId>(static_cast<const engine::ColumnRefExpression&>(node).columnIndex());
        for (size_t i = 0; i < scan.columns.size(); ++i) {
          if (scan.columns[i].id == id) {
            return std::make_unique<engine::ColumnRefExpression>(scan.tableColumns[i], node.type(),
                                                                 scan.columns[i].name);
          }
        }
        SHOAL_CHECK(false, "scan filter reads column {} the scan does not produce", id);
        return nullptr;
      });
    };
    if (!scan.filters.empty()) {
      std::vector<engine::ExpressionPtr> filters;
      for (const auto& filter : scan.filters) filters.push_back(toTableColumns(*filter));
      *fragment_.mutable_filter() = proto::encodeExpression(*sql::makeConjunction(std::move(filters)), parameters);
    }
    for (size_t i = 0; i < scan.columns.size(); ++i) {
      engine::ColumnRefExpression column(scan.tableColumns[i], scan.columns[i].type, scan.columns[i].name);
      *fragment_.add_projections() = proto::encodeExpression(column, parameters);
      types_.push_back(scan.columns[i].type);
    }
    // A scan of no columns (count(*)) still needs its rows: ask for a constant.
    if (scan.columns.empty()) {
      engine::ConstantExpression one(engine::Value::boolean(true));
      *fragment_.add_projections() = proto::encodeExpression(one, parameters);
      countOnly_ = true;
    }
    fragment_.set_limit(-1);
  }

  size_t numMorsels() const override { return addresses_.size(); }

  void produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const override {
    proto::ScanRequest request;
    *request.mutable_fragment() = fragment_;
    if (snapshot_) *request.mutable_snapshot() = *snapshot_;
    grpc::ClientContext context;
    auto reader = cluster_.workers.dataStub(addresses_[morsel]).Scan(&context, request);
    proto::ScanResponse response;
    std::vector<engine::LogicalType> types = countOnly_ ? std::vector{engine::LogicalType::boolean()} : types_;
    try {
      while (reader->Read(&response)) {
        engine::Chunk chunk = engine::decodeChunk(response.chunk(), types);
        if (countOnly_) chunk = engine::Chunk(std::vector<engine::Vector>{}, chunk.size());
        consume(chunk);
      }
    } catch (...) {
      context.TryCancel();
      reader->Finish();
      throw;
    }
    grpc::Status status = reader->Finish();
    if (!status.ok()) throw ShoalError(proto::fromGrpcStatus(status, addresses_[morsel]));
  }

 private:
  ClusterContext& cluster_;
  std::optional<proto::SnapshotProto> snapshot_;
  std::vector<std::string> addresses_;
  proto::ScanFragment fragment_;
  std::vector<engine::LogicalType> types_;
  bool countOnly_ = false;
};

/// A system view's scan: the coordinator computes it; one morsel.
class SystemViewScan final : public engine::ChunkSource {
 public:
  SystemViewScan(ClusterContext& cluster, const SystemScanContext& context, const sql::LogicalScan& scan)
      : cluster_(cluster),
        context_(context),
        schema_(scan.table.schema),
        name_(scan.table.name),
        columns_(scan.tableColumns) {}
  size_t numMorsels() const override { return 1; }
  void produce(size_t, const std::function<void(engine::Chunk&)>& consume) const override {
    for (auto& full : cluster_.systemCatalog.scan(schema_, name_, context_)) {
      std::vector<uint32_t> rows(full.size());
      for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
      engine::Chunk chunk(full.size());
      for (size_t column : columns_) chunk.addColumn(full.column(column).select(rows));
      consume(chunk);
    }
  }

 private:
  ClusterContext& cluster_;
  const SystemScanContext& context_;
  std::string schema_;
  std::string name_;
  std::vector<size_t> columns_;
};

void collectScans(const sql::LogicalOperator& op, std::vector<const sql::LogicalScan*>& scans) {
  if (op.kind() == sql::LogicalOperatorKind::kScan) scans.push_back(static_cast<const sql::LogicalScan*>(&op));
  for (const auto& child : op.children) collectScans(*child, scans);
}

constexpr auto kCancelPollInterval = std::chrono::milliseconds(10);

/// System views are computed on the coordinator, so a plan that reads one runs there.
bool readsSystemView(const sql::LogicalOperator& op) {
  if (op.kind() == sql::LogicalOperatorKind::kScan && static_cast<const sql::LogicalScan&>(op).table.isSystemView) {
    return true;
  }
  return std::any_of(op.children.begin(), op.children.end(), [](const auto& child) { return readsSystemView(*child); });
}

}  // namespace

std::optional<std::string> PlanExecutor::soleWorkerFor(const sql::LogicalPlan& plan) const {
  std::vector<const sql::LogicalScan*> scans;
  collectScans(*plan.root, scans);
  std::optional<std::string> sole;
  std::vector<std::vector<std::string>> replicatedPlacements;
  for (const auto* scan : scans) {
    if (scan->table.isSystemView) return std::nullopt;
    auto table = cluster_.tables.require({scan->table.schema, scan->table.name});
    std::vector<std::string> addresses = cluster_.workers.readableAddresses(*table);
    if (table->distribution == Distribution::kReplicated) {
      replicatedPlacements.push_back(std::move(addresses));
      continue;
    }
    // Partitions on more than one worker need exchanges between them (the distributed-execution issue).
    if (addresses.empty()) return std::nullopt;
    for (const auto& address : addresses) {
      if (address != addresses[0]) return std::nullopt;
    }
    if (sole && *sole != addresses[0]) return std::nullopt;
    sole = addresses[0];
  }
  for (const auto& addresses : replicatedPlacements) {
    if (addresses.empty()) return std::nullopt;
    if (!sole) sole = addresses[0];
    if (std::find(addresses.begin(), addresses.end(), *sole) == addresses.end()) return std::nullopt;
  }
  return sole;
}

namespace {

/// A plan's rows as its worker streams them (ExecutePlan). The RPC stays open
/// while the client reads; while the client is waiting for rows, a watcher
/// thread turns the session's cancel flag into a cancelled RPC (a portal the
/// client paused is not running, so a cancel aimed at another statement leaves
/// it be), and dropping the stream before its end cancels it.
class WorkerResultStream final : public ChunkStream {
 public:
  WorkerResultStream(ClusterContext& cluster, const std::string& address, const proto::ExecutePlanRequest& request,
                     std::vector<engine::LogicalType> types, const std::atomic<bool>& cancelRequested)
      : address_(address), types_(std::move(types)), cancelRequested_(cancelRequested) {
    reader_ = cluster.workers.dataStub(address).ExecutePlan(&context_, request);
    watcher_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      while (!stoppedCondition_.wait_for(lock, kCancelPollInterval, [&] { return stopped_; })) {
        if (reading_.load() && cancelRequested_.load()) {
          context_.TryCancel();
          return;
        }
      }
    });
  }

  ~WorkerResultStream() override {
    if (!finished_) {
      context_.TryCancel();
      proto::ExecutePlanResponse ignored;
      while (reader_->Read(&ignored)) {
      }
      reader_->Finish();
    }
    stopWatcher();
  }

  std::optional<engine::Chunk> next() override {
    if (finished_) return std::nullopt;
    reading_.store(true);
    struct StopReading {
      std::atomic<bool>& reading;
      ~StopReading() { reading.store(false); }
    } stopReading{reading_};
    proto::ExecutePlanResponse response;
    while (reader_->Read(&response)) {
      if (response.operator_rows_size() > 0) {
        operatorRows_.assign(response.operator_rows().begin(), response.operator_rows().end());
      }
      if (!response.chunk().empty()) return engine::decodeChunk(response.chunk(), types_);
    }
    finished_ = true;
    grpc::Status status = reader_->Finish();
    stopWatcher();
    if (cancelRequested_.load() && status.error_code() == grpc::StatusCode::CANCELLED) {
      SHOAL_USER_FAIL(SqlState::kQueryCanceled, "canceling statement due to user request");
    }
    if (!status.ok()) throw ShoalError(proto::fromGrpcStatus(status, address_));
    return std::nullopt;
  }

  /// With count_rows, each plan node's rows in pre-order, once the stream ended.
  const std::vector<uint64_t>& operatorRows() const { return operatorRows_; }

 private:
  void stopWatcher() {
    {
      std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    stoppedCondition_.notify_all();
    if (watcher_.joinable()) watcher_.join();
  }

  std::string address_;
  std::vector<engine::LogicalType> types_;
  const std::atomic<bool>& cancelRequested_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReader<proto::ExecutePlanResponse>> reader_;
  bool finished_ = false;
  /// Whether the client is waiting in next(): only then does a cancel request apply to this stream.
  std::atomic<bool> reading_{false};
  std::vector<uint64_t> operatorRows_;
  std::mutex mutex_;
  std::condition_variable stoppedCondition_;
  bool stopped_ = false;
  std::thread watcher_;
};

}  // namespace

QueryResult PlanExecutor::runOnWorker(const sql::LogicalPlan& plan, const std::string& address,
                                      std::map<const sql::LogicalOperator*, uint64_t>* actualRows) const {
  proto::ExecutePlanRequest request;
  *request.mutable_plan() = sql::encodePlan(plan, parameters_, [&](const sql::LogicalScan& scan) {
    auto table = cluster_.tables.require({scan.table.schema, scan.table.name});
    return table->storageId;
  });
  request.set_count_rows(actualRows != nullptr);
  request.set_memory_limit_bytes(memoryLimitBytes_);
  if (snapshot_) *request.mutable_snapshot() = *snapshot_;
  request.set_row_tag(cluster_.workers.rowTagOf(address));

  QueryResult result;
  std::vector<sql::PlanColumn> outputs = plan.root->outputColumns();
  std::vector<engine::LogicalType> types;
  for (size_t i = 0; i < outputs.size(); ++i) {
    result.columns.push_back(ResultColumn{plan.columnNames[i], outputs[i].type});
    types.push_back(outputs[i].type);
  }
  auto stream = std::make_unique<WorkerResultStream>(cluster_, address, request, std::move(types), cancelRequested_);
  if (actualRows == nullptr) {
    // Rows go to the client as the worker sends them.
    result.stream = std::move(stream);
    return result;
  }
  // EXPLAIN ANALYZE needs the counts, which come after the last row.
  while (auto chunk = stream->next()) result.chunks.push_back(std::move(*chunk));
  std::vector<const sql::LogicalOperator*> operators = sql::operatorsInPreOrder(*plan.root);
  for (size_t i = 0; i < operators.size() && i < stream->operatorRows().size(); ++i) {
    (*actualRows)[operators[i]] = stream->operatorRows()[i];
  }
  return result;
}

std::optional<DistributedPlan> PlanExecutor::distribute(const sql::LogicalPlan& plan) const {
  const bool anySystemView = readsSystemView(*plan.root);
  if (anySystemView || soleWorkerFor(plan)) return std::nullopt;
  // A query of no table (SELECT 1 + 1) runs here: shipping it to the workers costs their exchange set-up.
  std::vector<const sql::LogicalScan*> scans;
  collectScans(*plan.root, scans);
  if (scans.empty()) return std::nullopt;
  // The planner takes the plan apart: give it a copy (the encoding keeps every node and estimate).
  auto storageIdOf = [&](const sql::LogicalScan& scan) {
    auto table = cluster_.tables.require({scan.table.schema, scan.table.name});
    return table->storageId;
  };
  sql::LogicalPlan copy = sql::decodePlan(sql::encodePlan(plan, parameters_, storageIdOf));
  copy.columnNames = plan.columnNames;
  static std::atomic<uint64_t> nextQueryId{1};
  return planDistributed(
      std::move(copy), cluster_.workers.liveWorkers(),
      [&](const sql::QualifiedName& name) { return cluster_.tables.find(name); },
      (static_cast<uint64_t>(::getpid()) << 32) ^ (static_cast<uint64_t>(std::random_device{}()) << 16) ^
          nextQueryId++);
}

std::optional<sql::LogicalPlan> PlanExecutor::withRecursiveQueriesComputed(const sql::LogicalPlan& plan) const {
  return computeRecursiveQueries(plan, *this, maxRecursiveIterations_,
                                 memoryLimitBytes_ > 0 ? memoryLimitBytes_ : kDefaultRecursiveRowsBytes);
}

QueryResult PlanExecutor::run(const sql::LogicalPlan& plan,
                              std::map<const sql::LogicalOperator*, uint64_t>* actualRows) const {
  if (auto computed = withRecursiveQueriesComputed(plan)) {
    // The copy runs; EXPLAIN ANALYZE's counts go back to the plan's own operators (the same tree, in pre-order).
    if (actualRows == nullptr) return run(*computed);
    std::map<const sql::LogicalOperator*, uint64_t> copyRows;
    QueryResult result = run(*computed, &copyRows);
    std::vector<const sql::LogicalOperator*> original = sql::operatorsInPreOrder(*plan.root);
    std::vector<const sql::LogicalOperator*> copied = sql::operatorsInPreOrder(*computed->root);
    for (size_t i = 0; i < original.size() && i < copied.size(); ++i) {
      if (auto it = copyRows.find(copied[i]); it != copyRows.end()) (*actualRows)[original[i]] = it->second;
    }
    return result;
  }
  if (auto worker = soleWorkerFor(plan)) return runOnWorker(plan, *worker, actualRows);
  if (actualRows == nullptr) {
    if (auto distributed = distribute(plan)) {
      DistributedExecutor executor(cluster_, parameters_, cancelRequested_, memoryLimitBytes_);
      executor.readingAt(snapshot_);
      // An ORDER BY's merged rows go to the client while the workers still send them.
      if (distributed->streamsInOrder()) return executor.stream(std::move(*distributed));
      return executor.run(*distributed);
    }
  }
  // System views are scanned here and filtered by the pipeline; user tables are filtered by the workers.
  const bool anySystemView = readsSystemView(*plan.root);
  sql::PipelineOptions options;
  options.parameters = parameters_;
  options.scansApplyFilters = !anySystemView;
  options.countRows = actualRows != nullptr;
  sql::PhysicalPlan physical = sql::buildPipelines(
      plan,
      [&](const sql::LogicalScan& scan) -> std::shared_ptr<engine::ChunkSource> {
        if (scan.table.isSystemView) return std::make_shared<SystemViewScan>(cluster_, systemScan_, scan);
        return std::make_shared<WorkerTableScan>(cluster_, scan, parameters_, snapshot_);
      },
      options);
  scheduler::PipelineRunner runner(cluster_.dispatcher);
  auto query = runner.start(std::move(physical.pipelines), 1, memoryLimitBytes_);
  while (!query->waitFor(std::chrono::milliseconds(20))) {
    if (cancelRequested_.load()) {
      query->cancel(Status(SqlState::kQueryCanceled, "canceling statement due to user request"));
    }
  }
  if (actualRows != nullptr) {
    for (const auto& [op, rows] : physical.rowCounts) (*actualRows)[op] = rows->load();
  }
  QueryResult result;
  std::vector<sql::PlanColumn> outputs = plan.root->outputColumns();
  for (size_t i = 0; i < outputs.size(); ++i)
    result.columns.push_back(ResultColumn{plan.columnNames[i], outputs[i].type});
  for (auto& chunk : physical.result->chunks()) result.chunks.push_back(std::move(chunk));
  return result;
}

}  // namespace shoal::coordinator
