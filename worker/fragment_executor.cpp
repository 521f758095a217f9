#include "worker/fragment_executor.h"

#include <chrono>
#include <map>

#include "engine/pipeline/collect_sink.h"
#include "engine/pipeline/result_queue.h"
#include "exchange/exchange_sink.h"
#include "exchange/exchange_source.h"
#include "scheduler/pipeline_runner.h"
#include "sql/execution/pipeline_builder.h"
#include "sql/plan/plan_serialization.h"
#include "worker/partition_scan_source.h"
#include "worker/read_snapshot_codec.h"

namespace shoal::worker {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(5);

/// An exchange input this worker receives but none of its fragments reads: ready once every sender finished,
/// with nothing to produce (its payloads go with the query).
class DrainedInput final : public engine::ChunkSource {
 public:
  explicit DrainedInput(std::shared_ptr<exchange::ExchangeSource> input) : input_(std::move(input)) {}
  size_t numMorsels() const override {
    input_->numMorsels();  // throws the stream's error (a lost sender's)
    return 0;
  }
  void produce(size_t, const std::function<void(engine::Chunk&)>&) const override {}
  std::shared_ptr<engine::SourceGate> gate() const override { return input_->gate(); }

 private:
  std::shared_ptr<exchange::ExchangeSource> input_;
};

class DiscardSink final : public engine::ChunkSink {
 public:
  std::unique_ptr<engine::LocalSinkState> makeLocalState() const override {
    return std::make_unique<engine::LocalSinkState>();
  }
  void consume(engine::Chunk&, engine::LocalSinkState&) const override {}
  void combine(engine::LocalSinkState&) override {}
};

/// Exchange messages carry every column as nullable: the plan does not track which columns can be NULL.
exchange::RowLayout layoutOf(const std::vector<engine::LogicalType>& types) {
  return exchange::RowLayout(types, std::vector<bool>(types.size(), true));
}

exchange::ExchangeKind kindOf(proto::FragmentOutputProto::Kind kind) {
  switch (kind) {
    case proto::FragmentOutputProto::REPARTITION:
      return exchange::ExchangeKind::kRepartition;
    case proto::FragmentOutputProto::BROADCAST:
      return exchange::ExchangeKind::kBroadcast;
    default:
      return exchange::ExchangeKind::kGather;
  }
}

}  // namespace

FragmentExecutor::Outcome FragmentExecutor::run(const proto::ExecuteFragmentsRequest& request,
                                                const std::function<void(uint64_t, engine::Chunk&)>& emit,
                                                const std::function<bool()>& isCancelled) const {
  std::vector<std::string> addresses(request.exchange_addresses().begin(), request.exchange_addresses().end());
  std::vector<uint64_t> incarnations(request.exchange_incarnations().begin(), request.exchange_incarnations().end());
  std::shared_ptr<multiplexer::Multiplexer> network = network_.forWorkers(addresses, incarnations, request.self());
  const uint32_t clusterSize = network->clusterSize();

  std::map<uint64_t, const proto::FragmentInputProto*> inputs;
  for (const auto& input : request.inputs()) {
    for (uint32_t sender : input.senders()) {
      if (sender >= clusterSize) SHOAL_USER_FAIL(SqlState::kDataCorrupted, "exchange sender {} out of range", sender);
    }
    inputs[input.exchange_id()] = &input;
  }
  // Declared before the pipelines: a source's collector must stop before the query's pipelines go.
  std::vector<std::shared_ptr<exchange::ExchangeSource>> exchangeSources;
  std::vector<std::shared_ptr<PartitionScanSource>> scans;
  std::vector<std::shared_ptr<exchange::ExchangeSink>> exchangeSinks;
  std::vector<std::pair<uint64_t, std::shared_ptr<engine::ResultQueue>>> gathers;
  std::vector<sql::LogicalPlan> plans;
  std::vector<sql::PhysicalPlan> physicals;
  std::vector<engine::Pipeline> pipelines;

  struct CloseExchanges {
    multiplexer::Multiplexer& network;
    std::vector<uint64_t> ids;
    ~CloseExchanges() {
      for (uint64_t id : ids) network.closeExchange(id);
    }
  } closeExchanges{*network, {}};

  // An exchange read by two of this worker's pipelines (a broadcast that also reduces an aggregation's input) is
  // collected once.
  std::map<uint64_t, std::shared_ptr<exchange::ExchangeSource>> sourceOf;
  auto openSource = [&](const proto::FragmentInputProto& input, exchange::RowLayout layout) {
    auto inbox = network->openExchange(input.exchange_id());
    closeExchanges.ids.push_back(input.exchange_id());
    inbox->expectSendersOnly(std::vector<multiplexer::NodeId>(input.senders().begin(), input.senders().end()));
    auto source = std::make_shared<exchange::ExchangeSource>(std::move(inbox), std::move(layout));
    exchangeSources.push_back(source);
    sourceOf[input.exchange_id()] = source;
    return source;
  };
  sql::PipelineOptions options;
  options.countRows = request.count_rows();
  const ReadSnapshot snapshot = readSnapshotOf(request);
  for (const auto& fragment : request.fragments()) {
    plans.push_back(sql::decodePlan(fragment.plan()));
    const sql::LogicalPlan& plan = plans.back();
    auto sources = [&](const sql::LogicalScan& scan) -> std::shared_ptr<engine::ChunkSource> {
      if (!scan.exchangeInput) {
        scans.push_back(std::make_shared<PartitionScanSource>(scan, storage_.find(scan.table.storageId),
                                                              storage_.visible(scan.table.storageId, snapshot),
                                                              request.row_tag()));
        return scans.back();
      }
      auto input = inputs.find(*scan.exchangeInput);
      if (input == inputs.end())
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "exchange {} has no input spec", *scan.exchangeInput);
      if (!input->second->receives()) return std::make_shared<engine::ChunkListSource>(std::vector<engine::Chunk>{});
      if (auto shared = sourceOf.find(*scan.exchangeInput); shared != sourceOf.end()) {
        shared->second->addReader();
        return shared->second;
      }
      std::vector<engine::LogicalType> types;
      for (const auto& column : scan.columns) types.push_back(column.type);
      return openSource(*input->second, layoutOf(types));
    };
    sql::PhysicalPlan physical = sql::buildPipelines(plan, sources, options);
    std::vector<engine::LogicalType> outputTypes;
    for (const auto& column : plan.root->outputColumns()) outputTypes.push_back(column.type);
    const auto& output = fragment.output();
    if (output.kind() == proto::FragmentOutputProto::GATHER) {
      auto queue = std::make_shared<engine::ResultQueue>();
      physical.result->streamTo(queue);
      gathers.emplace_back(output.exchange_id(), queue);
    } else {
      std::vector<size_t> keys(output.key_columns().begin(), output.key_columns().end());
      for (size_t key : keys) {
        if (key >= outputTypes.size()) SHOAL_USER_FAIL(SqlState::kDataCorrupted, "exchange key column {}", key);
      }
      std::vector<multiplexer::NodeId> destinations(output.destinations().begin(), output.destinations().end());
      for (auto destination : destinations) {
        if (destination >= clusterSize) SHOAL_USER_FAIL(SqlState::kDataCorrupted, "destination {}", destination);
      }
      if (output.kind() == proto::FragmentOutputProto::REPARTITION && (keys.empty() || destinations.empty())) {
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "a repartition without keys or destinations");
      }
      auto sink =
          std::make_shared<exchange::ExchangeSink>(*network, output.exchange_id(), layoutOf(outputTypes),
                                                   kindOf(output.kind()), std::move(keys), std::move(destinations));
      exchangeSinks.push_back(sink);
      physical.pipelines.back().sink = sink;
    }
    // This fragment's pipelines follow the earlier fragments'; their dependencies shift with them.
    const size_t offset = pipelines.size();
    for (auto& pipeline : physical.pipelines) {
      for (auto& dependency : pipeline.dependencies) dependency += offset;
      pipelines.push_back(std::move(pipeline));
    }
    physical.pipelines.clear();
    physicals.push_back(std::move(physical));
  }

  // A broadcast reaches every worker, also one whose fragments do not read it (their reader runs on the first
  // worker only): such an input is still received to its end and dropped, so that its senders finish.
  for (const auto& input : request.inputs()) {
    if (!input.receives() || sourceOf.count(input.exchange_id()) > 0) continue;
    engine::Pipeline drain;
    auto drained = openSource(input, exchange::RowLayout({}, {}));
    drained->collectOnly();
    drain.source = std::make_shared<DrainedInput>(std::move(drained));
    drain.sink = std::make_shared<DiscardSink>();
    pipelines.push_back(std::move(drain));
  }

  // Every reader is known now: each source streams, or collects when two pipelines read it.
  for (const auto& source : exchangeSources) source->start();
  scheduler::PipelineRunner runner(dispatcher_);
  auto query =
      runner.start(std::move(pipelines), std::max<uint32_t>(request.priority(), 1), request.memory_limit_bytes());
  // What the exchanges buffer counts against the query's memory, until the query is over.
  std::shared_ptr<engine::QueryMemory> account(query, &query->memory());
  for (const auto& source : exchangeSources) source->chargeTo(account);
  account.reset();
  struct StopCharging {
    std::vector<std::shared_ptr<exchange::ExchangeSource>>& sources;
    ~StopCharging() {
      for (const auto& source : sources) source->stopCharging();
    }
  } stopCharging{exchangeSources};
  try {
    std::vector<engine::Chunk> ready;
    size_t open = gathers.size();
    std::vector<bool> closed(gathers.size(), false);
    while (true) {
      for (size_t i = 0; i < gathers.size(); ++i) {
        if (closed[i]) continue;
        // Wait on the first open queue only; poll the others.
        const auto timeout = i == 0 || open == 1 ? kPollInterval : std::chrono::milliseconds(0);
        if (gathers[i].second->popAll(ready, timeout)) {
          closed[i] = true;
          --open;
        }
        for (auto& chunk : ready) {
          const uint64_t bytes = chunk.memoryBytes();
          emit(gathers[i].first, chunk);
          query->memory().release(bytes);
        }
        ready.clear();
      }
      if (isCancelled()) query->cancel(Status(SqlState::kQueryCanceled, "canceling statement due to user request"));
      if (open == 0) {
        if (query->waitFor(kPollInterval)) break;
        continue;
      }
      // A failed or cancelled query never closes its queues: its error (thrown here) ends the loop.
      if (query->done()) query->wait();
    }
    query->wait();
  } catch (...) {
    query->abandon();  // the dispatcher threads use the pipelines and queues until the query stops
    throw;
  }
  Outcome outcome;
  for (const auto& sink : exchangeSinks) {
    outcome.messagesSent += sink->messagesSent();
    outcome.bytesSent += sink->bytesSent();
  }
  for (const auto& source : exchangeSources) {
    const auto consumed = source->inbox().consumed();
    outcome.consumedLocally.resize(std::max(outcome.consumedLocally.size(), consumed.locally.size()));
    outcome.stolen.resize(std::max(outcome.stolen.size(), consumed.stolen.size()));
    for (size_t node = 0; node < consumed.locally.size(); ++node) {
      outcome.consumedLocally[node] += consumed.locally[node];
      outcome.stolen[node] += consumed.stolen[node];
    }
  }
  if (request.count_rows()) {
    for (size_t f = 0; f < plans.size(); ++f) {
      for (const auto* op : sql::operatorsInPreOrder(*plans[f].root)) {
        auto counted = physicals[f].rowCounts.find(op);
        outcome.operatorRows.push_back(counted == physicals[f].rowCounts.end() ? 0 : counted->second->load());
      }
    }
  }
  return outcome;
}

}  // namespace shoal::worker
