#include "coordinator/query/distributed_executor.h"

#include <grpcpp/client_context.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "engine/pipeline/collect_sink.h"
#include "engine/vector/chunk_codec.h"
#include "proto/rpc_status.h"
#include "scheduler/pipeline_runner.h"
#include "sql/execution/pipeline_builder.h"
#include "sql/plan/plan_serialization.h"

namespace shoal::coordinator {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(10);
constexpr auto kMembershipCheckInterval = std::chrono::milliseconds(200);
/// A streamed result holds about this much on the coordinator per sending worker, and as much again waiting for
/// the client.
constexpr uint64_t kStreamedBytes = 16 << 20;

/// What the workers gather to the coordinator, by exchange and sender, and the
/// query's first error. Filled by one reader thread per worker stream; read
/// by the coordinator's pipelines (GatherSource).
class GatherBuffers {
 public:
  explicit GatherBuffers(size_t workers) : finished_(workers, false) {}

  /// What the buffers hold counts against `memory` (the query's, which counts against the coordinator's
  /// budget) from push until next() takes it: a query whose rows arrive faster than it uses them fails with
  /// 53200 instead of growing the coordinator. Set before the first push.
  void chargeTo(std::shared_ptr<engine::QueryMemory> memory) { memory_ = std::move(memory); }

  /// Each sender's queue holds at most about `bytes`: its reader waits in push until the coordinator took
  /// enough, and gRPC's flow control then holds the worker back. Only for a query whose coordinator reads
  /// nothing else: a worker sends all its gathers through one stream, so waiting on one would stall the others.
  void boundEachSender(uint64_t bytes) { bound_ = bytes; }

  /// Fails with 53200 (nothing kept) when the chunk would pass the query's memory limit or the budget.
  void push(uint64_t exchangeId, uint32_t sender, engine::Chunk chunk) {
    const uint64_t bytes = chunk.memoryBytes();
    if (memory_ != nullptr) memory_->reserve(bytes);
    std::unique_lock lock(mutex_);
    auto& queue = chunks_[{exchangeId, sender}];
    if (bound_ > 0) {
      changed_.wait(lock, [&] { return error_ || aborted_ || queuedBytes(queue) < bound_; });
    }
    queue.push_back(std::move(chunk));
    changed_.notify_all();
  }
  /// Gives back what the chunks nobody took still hold (the query is over).
  ~GatherBuffers() {
    if (memory_ == nullptr) return;
    for (auto& [key, queue] : chunks_) {
      for (auto& chunk : queue) memory_->release(chunk.memoryBytes());
    }
  }
  void finishSender(uint32_t sender) {
    std::lock_guard lock(mutex_);
    finished_[sender] = true;
    changed_.notify_all();
  }
  /// Records the first error; every reader then fails with it.
  void fail(const Status& error) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = error;
    changed_.notify_all();
  }
  std::optional<Status> error() const {
    std::lock_guard lock(mutex_);
    return error_;
  }
  /// Wakes every reader with `reason` without making it the query's error (the coordinator's own query failed).
  void abort(const Status& reason) {
    std::lock_guard lock(mutex_);
    if (!aborted_) aborted_ = reason;
    changed_.notify_all();
  }

  /// The next chunk `sender` gathered through `exchangeId`; nullopt once the sender is done.
  std::optional<engine::Chunk> next(uint64_t exchangeId, uint32_t sender) {
    std::unique_lock lock(mutex_);
    auto& queue = chunks_[{exchangeId, sender}];
    changed_.wait(lock, [&] { return error_ || aborted_ || !queue.empty() || finished_[sender]; });
    if (error_) throw ShoalError(*error_);
    if (aborted_) throw ShoalError(*aborted_);
    if (queue.empty()) return std::nullopt;
    engine::Chunk chunk = std::move(queue.front());
    queue.pop_front();
    if (memory_ != nullptr) memory_->release(chunk.memoryBytes());
    if (bound_ > 0) changed_.notify_all();
    return chunk;
  }

 private:
  static uint64_t queuedBytes(const std::deque<engine::Chunk>& queue) {
    uint64_t bytes = 0;
    for (const auto& chunk : queue) bytes += chunk.memoryBytes();
    return bytes;
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::pair<uint64_t, uint32_t>, std::deque<engine::Chunk>> chunks_;
  std::vector<bool> finished_;
  std::optional<Status> error_;
  std::optional<Status> aborted_;
  std::shared_ptr<engine::QueryMemory> memory_;
  uint64_t bound_ = 0;
};

/// The coordinator's end of a gather: one morsel per sending worker.
class GatherSource final : public engine::ChunkSource {
 public:
  GatherSource(GatherBuffers& buffers, uint64_t exchangeId, std::vector<uint32_t> senders)
      : buffers_(buffers), exchangeId_(exchangeId), senders_(std::move(senders)) {}
  size_t numMorsels() const override { return senders_.size(); }
  void produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const override {
    while (auto chunk = buffers_.next(exchangeId_, senders_[morsel])) consume(*chunk);
  }

 private:
  GatherBuffers& buffers_;
  uint64_t exchangeId_;
  std::vector<uint32_t> senders_;
};

/// The coordinator's end of a merged gather (ORDER BY): each sender's rows come sorted, and one morsel merges
/// them (k-way) into chunks in order, taking from each sender as its rows are needed.
class MergeSource final : public engine::ChunkSource {
 public:
  MergeSource(GatherBuffers& buffers, uint64_t exchangeId, std::vector<uint32_t> senders,
              std::vector<engine::SortColumn> keys, std::vector<engine::LogicalType> types)
      : buffers_(buffers),
        exchangeId_(exchangeId),
        senders_(std::move(senders)),
        keys_(std::move(keys)),
        types_(std::move(types)) {}
  size_t numMorsels() const override { return 1; }

  void produce(size_t, const std::function<void(engine::Chunk&)>& consume) const override {
    // Each sender's current chunk and row; `batch` is the output chunk its strings were last shared with.
    struct Head {
      engine::Chunk chunk;
      size_t row = 0;
      size_t batch = SIZE_MAX;
    };
    std::vector<std::optional<Head>> heads(senders_.size());
    auto advance = [&](size_t sender) {
      while (auto chunk = buffers_.next(exchangeId_, senders_[sender])) {
        if (chunk->size() == 0) continue;
        heads[sender] = Head{std::move(*chunk)};
        return;
      }
      heads[sender].reset();
    };
    for (size_t sender = 0; sender < senders_.size(); ++sender) advance(sender);

    size_t batch = 0;
    std::vector<engine::Vector> out;
    size_t rows = 0;
    auto startBatch = [&] {
      out.clear();
      for (const auto& type : types_) out.push_back(engine::Vector::uninitialized(type, kMergedRows));
      rows = 0;
    };
    auto flush = [&] {
      if (rows == 0) return;
      engine::Chunk chunk(rows);
      for (auto& column : out) {
        column.resize(rows);
        chunk.addColumn(std::move(column));
      }
      consume(chunk);
      ++batch;
      startBatch();
    };
    startBatch();
    while (true) {
      std::optional<size_t> first;
      for (size_t sender = 0; sender < heads.size(); ++sender) {
        if (heads[sender] && (!first || before(*heads[sender], *heads[*first]))) first = sender;
      }
      if (!first) break;
      Head& head = *heads[*first];
      if (head.batch != batch) {
        for (size_t column = 0; column < out.size(); ++column) out[column].shareStringsOf(head.chunk.column(column));
        head.batch = batch;
      }
      for (size_t column = 0; column < out.size(); ++column)
        out[column].copyRow(rows, head.chunk.column(column), head.row);
      if (++head.row == head.chunk.size()) advance(*first);
      if (++rows == kMergedRows) flush();
    }
    flush();
  }

 private:
  static constexpr size_t kMergedRows = 2048;

  /// Whether `a`'s current row sorts before `b`'s (ties keep the lower sender first).
  template <class Head>
  bool before(const Head& a, const Head& b) const {
    for (const auto& key : keys_) {
      const engine::Vector& left = a.chunk.column(key.column);
      const engine::Vector& right = b.chunk.column(key.column);
      const bool leftNull = left.isNull(a.row);
      const bool rightNull = right.isNull(b.row);
      if (leftNull || rightNull) {
        if (leftNull && rightNull) continue;
        return leftNull == key.nullsFirst;
      }
      int order = engine::compareNonNullAt(left, a.row, right, b.row);
      if (order != 0) return key.ascending ? order < 0 : order > 0;
    }
    return false;
  }

  GatherBuffers& buffers_;
  uint64_t exchangeId_;
  std::vector<uint32_t> senders_;
  std::vector<engine::SortColumn> keys_;
  std::vector<engine::LogicalType> types_;
};

proto::FragmentOutputProto::Kind outputKindOf(FragmentOutput output) {
  switch (output) {
    case FragmentOutput::kRepartition:
      return proto::FragmentOutputProto::REPARTITION;
    case FragmentOutput::kBroadcast:
      return proto::FragmentOutputProto::BROADCAST;
    case FragmentOutput::kGather:
      return proto::FragmentOutputProto::GATHER;
  }
  return proto::FragmentOutputProto::GATHER;
}

/// A lost connection names the worker behind it: a worker reports a peer by its exchange address only.
Status naming(Status error, const DistributedPlan& plan) {
  if (!error.sqlState().starts_with("08")) return error;
  for (size_t node = 0; node < plan.workerNames.size(); ++node) {
    const std::string& name = plan.workerNames[node];
    if (error.message().find('"' + name + '"') != std::string::npos) return error;
    if (error.message().find(plan.exchangeAddresses[node]) != std::string::npos ||
        error.message().find(plan.workerAddresses[node]) != std::string::npos) {
      return Status(error.sqlState(), fmt::format("lost worker \"{}\": {}", name, error.message()));
    }
  }
  return error;
}

}  // namespace

QueryResult DistributedExecutor::run(const DistributedPlan& plan, const proto::InsertTargetProto* insertTarget,
                                     std::shared_ptr<engine::ResultQueue> streamTo) const {
  const size_t workers = plan.workerNames.size();
  auto storageIdOf = [&](const sql::LogicalScan& scan) {
    auto table = cluster_.tables.require({scan.table.schema, scan.table.name});
    return table->storageId;
  };
  // Each fragment is encoded once; each worker gets the ones that run on it, and every exchange it takes part in.
  std::vector<proto::FragmentProto> encoded;
  for (const auto& fragment : plan.fragments) {
    proto::FragmentProto out;
    out.set_fragment_id(fragment.id);
    *out.mutable_plan() = sql::encodePlan(fragment.plan, parameters_, storageIdOf);
    out.mutable_output()->set_kind(outputKindOf(fragment.output));
    out.mutable_output()->set_exchange_id(fragment.exchangeId);
    for (size_t key : fragment.keyColumns) out.mutable_output()->add_key_columns(static_cast<uint32_t>(key));
    for (uint32_t destination : fragment.destinations) out.mutable_output()->add_destinations(destination);
    encoded.push_back(std::move(out));
  }
  std::vector<uint64_t> incarnations;
  for (const auto& address : plan.workerAddresses) incarnations.push_back(cluster_.registry.incarnationAt(address));
  cluster_.workers.prepareExchange(plan.workerAddresses, incarnations);
  std::vector<proto::ExecuteFragmentsRequest> requests(workers);
  for (uint32_t node = 0; node < workers; ++node) {
    auto& request = requests[node];
    request.set_query_id(plan.queryId);
    request.set_priority(1);
    request.set_memory_limit_bytes(memoryLimitBytes_);
    for (const auto& address : plan.exchangeAddresses) request.add_exchange_addresses(address);
    for (uint64_t incarnation : incarnations) request.add_exchange_incarnations(incarnation);
    request.set_self(node);
    if (insertTarget) *request.mutable_insert_target() = *insertTarget;
    if (snapshot_) *request.mutable_snapshot() = *snapshot_;
    request.set_row_tag(cluster_.workers.rowTagOf(plan.workerAddresses[node]));
    for (size_t f = 0; f < plan.fragments.size(); ++f) {
      const auto& fragment = plan.fragments[f];
      auto runsOn = plan.nodesOf(fragment);
      if (std::find(runsOn.begin(), runsOn.end(), node) != runsOn.end()) *request.add_fragments() = encoded[f];
      if (fragment.output == FragmentOutput::kGather) continue;
      auto& input = *request.add_inputs();
      input.set_exchange_id(fragment.exchangeId);
      for (uint32_t sender : runsOn) input.add_senders(sender);
      auto receivers = plan.receiversOf(fragment);
      input.set_receives(std::find(receivers.begin(), receivers.end(), node) != receivers.end());
    }
  }

  GatherBuffers buffers(workers);
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  for (size_t i = 0; i < workers; ++i) contexts.push_back(std::make_unique<grpc::ClientContext>());
  std::mutex statsMutex;
  ShuffleFigures shuffle;
  uint64_t rowsInserted = 0;
  auto cancelWorkers = [&] {
    for (auto& context : contexts) context->TryCancel();
  };
  // Workers whose part of the query is done: losing one of those afterwards (it drained and left) harms nothing.
  std::vector<std::atomic<bool>> finished(workers);
  sql::PipelineOptions options;
  options.parameters = parameters_;
  sql::PhysicalPlan physical = sql::buildPipelines(
      plan.coordinatorPlan,
      [&](const sql::LogicalScan& scan) -> std::shared_ptr<engine::ChunkSource> {
        SHOAL_CHECK(scan.exchangeInput.has_value(), "the coordinator's part of a distributed plan scans a table");
        const PlanFragment& producer = plan.producerOf(*scan.exchangeInput);
        if (auto merged = plan.mergedGathers.find(*scan.exchangeInput); merged != plan.mergedGathers.end()) {
          std::vector<engine::LogicalType> types;
          for (const auto& column : producer.plan.root->outputColumns()) types.push_back(column.type);
          return std::make_shared<MergeSource>(buffers, *scan.exchangeInput, plan.nodesOf(producer), merged->second,
                                               std::move(types));
        }
        return std::make_shared<GatherSource>(buffers, *scan.exchangeInput, plan.nodesOf(producer));
      },
      options);
  if (streamTo) {
    physical.result->streamTo(streamTo);
    buffers.boundEachSender(kStreamedBytes);
  }
  scheduler::PipelineRunner runner(cluster_.dispatcher);
  auto query = runner.start(std::move(physical.pipelines), 1, memoryLimitBytes_);
  // The gathered rows wait in the buffers charged to the query, so that they count against its limit.
  buffers.chargeTo(std::shared_ptr<engine::QueryMemory>(query, &query->memory()));
  std::vector<std::thread> readers;
  for (uint32_t node = 0; node < workers; ++node) {
    if (requests[node].fragments_size() == 0 && requests[node].inputs_size() == 0) {
      buffers.finishSender(node);
      continue;
    }
    readers.emplace_back([&, node] {
      const std::string& name = plan.workerNames[node];
      try {
        auto reader = cluster_.workers.dataStub(plan.workerAddresses[node])
                          .ExecuteFragments(contexts[node].get(), requests[node]);
        proto::ExecuteFragmentsResponse response;
        // Gathered rows are decoded with the types of the coordinator's exchange input.
        while (reader->Read(&response)) {
          if (response.last()) {
            std::lock_guard lock(statsMutex);
            shuffle.bytes += response.bytes_sent();
            shuffle.messages += response.messages_sent();
            for (uint64_t count : response.messages_consumed_locally()) shuffle.consumedLocally += count;
            for (uint64_t count : response.messages_stolen()) shuffle.stolen += count;
            rowsInserted += response.rows_inserted();
            continue;
          }
          const auto& producer = plan.producerOf(response.exchange_id());
          std::vector<engine::LogicalType> types;
          for (const auto& column : producer.plan.root->outputColumns()) types.push_back(column.type);
          buffers.push(response.exchange_id(), node, engine::decodeChunk(response.chunk(), types));
        }
        grpc::Status status = reader->Finish();
        if (status.ok()) finished[node].store(true);
        if (!status.ok()) {
          Status error = proto::fromGrpcStatus(status, name);
          if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
            error = Status(SqlState::kConnectionFailure,
                           fmt::format("worker \"{}\" at {} was lost during the query: {}", name,
                                       plan.workerAddresses[node], status.error_message()));
          }
          buffers.fail(naming(error, plan));
          cancelWorkers();
        }
      } catch (const ShoalError& error) {
        buffers.fail(naming(error.status(), plan));
        cancelWorkers();
      }
      buffers.finishSender(node);
    });
  }
  struct JoinReaders {
    std::vector<std::thread>& readers;
    std::function<void()> cancel;
    bool done = false;
    ~JoinReaders() {
      if (!done) cancel();
      for (auto& thread : readers) thread.join();
    }
  } joinReaders{readers, cancelWorkers};

  // A worker whose link was cut answers nothing and closes nothing: the membership (its heartbeats, or its
  // etcd lease) is what tells that it is gone, so a query it runs in fails then, naming it, instead of waiting
  // for TCP to give up.
  auto lostWorker = [&]() -> std::optional<Status> {
    for (uint32_t node = 0; node < workers; ++node) {
      if (finished[node].load()) continue;
      const std::string& name = plan.workerNames[node];
      std::string state = cluster_.registry.stateOf(name);
      if (state == "down" || state == "left" || state == "not registered") {
        return Status(
            SqlState::kConnectionFailure,
            fmt::format("worker \"{}\" was lost during the query: it is {} in the cluster's membership", name, state));
      }
    }
    return std::nullopt;
  };
  auto nextMembershipCheck = std::chrono::steady_clock::now();
  try {
    while (!query->waitFor(kPollInterval)) {
      if (std::chrono::steady_clock::now() >= nextMembershipCheck) {
        nextMembershipCheck += kMembershipCheckInterval;
        if (auto lost = lostWorker()) {
          buffers.fail(*lost);
          cancelWorkers();
        }
      }
      if (cancelRequested_.load()) {
        Status canceled(SqlState::kQueryCanceled, "canceling statement due to user request");
        buffers.fail(canceled);
        cancelWorkers();
        query->cancel(canceled);
      } else if (auto error = buffers.error()) {
        query->cancel(*error);
      } else if (query->cancelled()) {
        // The coordinator's part failed: stop the workers and wake the gathers it may be blocked in.
        buffers.abort(Status(SqlState::kQueryCanceled, "the query failed on the coordinator"));
        cancelWorkers();
      }
    }
  } catch (const ShoalError&) {
    // The first error anywhere is the query's: a worker's, if one failed first.
    if (auto error = buffers.error()) throw ShoalError(*error);
    throw;
  }
  joinReaders.done = true;
  for (auto& thread : readers) thread.join();
  readers.clear();
  if (auto error = buffers.error()) throw ShoalError(*error);

  QueryResult result;
  std::vector<sql::PlanColumn> outputs = plan.coordinatorPlan.root->outputColumns();
  for (size_t i = 0; i < outputs.size(); ++i) {
    result.columns.push_back(ResultColumn{plan.coordinatorPlan.columnNames[i], outputs[i].type});
  }
  for (auto& chunk : physical.result->chunks()) result.chunks.push_back(std::move(chunk));
  result.shuffle = shuffle;
  result.rowsInserted = rowsInserted;
  return result;
}

namespace {

/// A distributed query's rows handed to the client while the query runs: DistributedExecutor::run works on a
/// thread of its own, its last pipeline streaming into a bounded queue that next() takes from. While the client
/// waits in next(), the session's cancel request (or statement timeout) cancels the query; dropping the stream
/// before its end cancels it too.
class StreamedDistributedResult final : public ChunkStream {
 public:
  StreamedDistributedResult(ClusterContext& cluster, DistributedPlan plan, std::span<const engine::Value> parameters,
                            const std::atomic<bool>& sessionCancel, uint64_t memoryLimitBytes,
                            std::optional<proto::SnapshotProto> snapshot)
      : plan_(std::move(plan)), parameters_(parameters.begin(), parameters.end()), sessionCancel_(sessionCancel) {
    queue_->limitTo(kStreamedBytes);
    runner_ = std::thread([this, &cluster, memoryLimitBytes, snapshot = std::move(snapshot)] {
      try {
        DistributedExecutor(cluster, parameters_, cancel_, memoryLimitBytes)
            .readingAt(snapshot)
            .run(plan_, nullptr, queue_);
      } catch (const ShoalError& error) {
        error_ = error.status();
      } catch (const std::exception& error) {
        error_ = Status(SqlState::kInternalError, error.what());
      }
      finished_.store(true);
    });
  }

  ~StreamedDistributedResult() override {
    if (!finished_.load()) cancel_.store(true);
    queue_->abandon();
    if (runner_.joinable()) runner_.join();
  }

  std::optional<engine::Chunk> next() override {
    while (true) {
      if (!pending_.empty()) {
        engine::Chunk chunk = std::move(pending_.front());
        pending_.pop_front();
        return chunk;
      }
      if (done_) return std::nullopt;
      if (sessionCancel_.load()) cancel_.store(true);
      std::vector<engine::Chunk> ready;
      const bool closed = queue_->popAll(ready, kPollInterval);
      for (auto& chunk : ready) pending_.push_back(std::move(chunk));
      if (!pending_.empty()) continue;
      // A failed query never closes its queue; a finished one may still fail after it closed (a lost worker).
      if (closed || finished_.load()) {
        if (runner_.joinable()) runner_.join();
        done_ = true;
        if (error_) throw ShoalError(*error_);
      }
    }
  }

 private:
  DistributedPlan plan_;
  std::vector<engine::Value> parameters_;
  const std::atomic<bool>& sessionCancel_;
  std::atomic<bool> cancel_{false};
  std::shared_ptr<engine::ResultQueue> queue_ = std::make_shared<engine::ResultQueue>();
  std::deque<engine::Chunk> pending_;
  std::optional<Status> error_;  // written by the runner before finished_
  std::atomic<bool> finished_{false};
  bool done_ = false;
  std::thread runner_;
};

}  // namespace

QueryResult DistributedExecutor::stream(DistributedPlan plan) const {
  QueryResult result;
  std::vector<sql::PlanColumn> outputs = plan.coordinatorPlan.root->outputColumns();
  for (size_t i = 0; i < outputs.size(); ++i) {
    result.columns.push_back(ResultColumn{plan.coordinatorPlan.columnNames[i], outputs[i].type});
  }
  result.stream = std::make_unique<StreamedDistributedResult>(cluster_, std::move(plan), parameters_, cancelRequested_,
                                                              memoryLimitBytes_, snapshot_);
  return result;
}

}  // namespace shoal::coordinator
