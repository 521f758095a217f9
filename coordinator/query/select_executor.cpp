#include "coordinator/query/select_executor.h"

#include <grpcpp/client_context.h>

#include <condition_variable>
#include <mutex>
#include <numeric>
#include <thread>

#include "engine/aggregate/scalar_aggregate.h"
#include "engine/expression/expression_evaluator.h"
#include "engine/vector/chunk_codec.h"
#include "proto/plan_codec.h"
#include "proto/rpc_status.h"

namespace shoal::coordinator {

using engine::Chunk;

namespace {

Chunk selectRows(const Chunk& chunk, std::span<const uint32_t> rows) {
  Chunk selected(rows.size());
  for (size_t column = 0; column < chunk.numColumns(); ++column) {
    selected.addColumn(chunk.column(column).select(rows));
  }
  return selected;
}

std::vector<engine::ScalarAggregate> makeAggregates(const sql::BoundSelect& select) {
  std::vector<engine::ScalarAggregate> aggregates;
  for (const auto& aggregate : select.aggregates) {
    engine::LogicalType argumentType = aggregate.argument ? aggregate.argument->type() : engine::LogicalType::bigInt();
    aggregates.emplace_back(aggregate.function, argumentType, aggregate.resultType);
  }
  return aggregates;
}

/// The partial-state row of `aggregates`, so that local and remote scans merge the same way.
Chunk partialRow(const std::vector<engine::ScalarAggregate>& aggregates) {
  Chunk partial(1);
  for (const auto& aggregate : aggregates) aggregate.writePartial(partial);
  return partial;
}

std::vector<engine::LogicalType> partialTypes(const std::vector<engine::ScalarAggregate>& aggregates) {
  std::vector<engine::LogicalType> types;
  for (const auto& aggregate : aggregates) {
    for (auto& type : aggregate.partialTypes()) types.push_back(type);
  }
  return types;
}

}  // namespace

void SelectExecutor::checkCancel() const {
  if (cancelRequested_.load(std::memory_order_relaxed)) {
    SHOAL_USER_FAIL(SqlState::kQueryCanceled, "canceling statement due to user request");
  }
}

std::vector<Chunk> SelectExecutor::scanOnCoordinator(const sql::BoundSelect& select) const {
  std::vector<Chunk> input;
  if (select.from) {
    input = cluster_.systemCatalog.scan(select.from->name);
  } else {
    input.emplace_back(1);  // SELECT without FROM: one row of no columns
  }
  engine::ExpressionEvaluator evaluator(parameters_);
  std::vector<engine::ScalarAggregate> aggregates = makeAggregates(select);
  std::vector<Chunk> output;
  std::vector<uint32_t> rows;
  for (auto& chunk : input) {
    checkCancel();
    rows.resize(chunk.size());
    std::iota(rows.begin(), rows.end(), 0);
    if (select.where) {
      engine::Vector predicate = evaluator.evaluate(*select.where, chunk);
      const uint8_t* matches = predicate.data<uint8_t>();
      std::erase_if(rows, [&](uint32_t row) { return predicate.isNull(row) || !matches[row]; });
    }
    Chunk filtered = rows.size() == chunk.size() ? std::move(chunk) : selectRows(chunk, rows);
    if (!aggregates.empty()) {
      for (size_t i = 0; i < aggregates.size(); ++i) {
        const auto& argument = select.aggregates[i].argument;
        if (!argument) {
          aggregates[i].update(nullptr, filtered.size());
          continue;
        }
        engine::Vector values = evaluator.evaluate(*argument, filtered);
        aggregates[i].update(&values, filtered.size());
      }
      continue;
    }
    if (filtered.size() == 0) continue;
    Chunk projected(filtered.size());
    for (const auto& projection : select.projections) projected.addColumn(evaluator.evaluate(*projection, filtered));
    output.push_back(std::move(projected));
  }
  if (!aggregates.empty()) output.push_back(partialRow(aggregates));
  return output;
}

std::vector<Chunk> SelectExecutor::scanOnWorkers(const sql::BoundSelect& select) const {
  auto table = cluster_.tables.find(select.from->name);
  if (!table) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", select.from->name);
  std::vector<std::string> addresses = cluster_.workers.placementAddresses(*table);
  if (table->distribution == Distribution::kReplicated) addresses.resize(1);  // one copy is all of it

  proto::ScanFragment fragment;
  fragment.set_storage_id(table->storageId);
  std::vector<engine::LogicalType> columnTypes = table->columnTypes();
  for (const auto& type : columnTypes) *fragment.add_column_types() = proto::encodeType(type);
  if (select.where) *fragment.mutable_filter() = proto::encodeExpression(*select.where, parameters_);
  std::vector<engine::LogicalType> resultTypes;
  if (select.aggregates.empty()) {
    for (const auto& projection : select.projections) {
      *fragment.add_projections() = proto::encodeExpression(*projection, parameters_);
      resultTypes.push_back(projection->type());
    }
    // Each worker needs to send at most OFFSET + LIMIT rows.
    fragment.set_limit(select.limit ? *select.limit + select.offset : -1);
  } else {
    for (const auto& aggregate : select.aggregates) {
      auto* out = fragment.add_aggregates();
      out->set_function(static_cast<uint32_t>(aggregate.function));
      if (aggregate.argument) *out->mutable_argument() = proto::encodeExpression(*aggregate.argument, parameters_);
      *out->mutable_result_type() = proto::encodeType(aggregate.resultType);
    }
    resultTypes = partialTypes(makeAggregates(select));
    fragment.set_limit(-1);
  }

  // One stream per worker, read by its own thread; the first error cancels the others.
  std::mutex mutex;
  std::vector<Chunk> output;
  std::optional<Status> firstError;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  for (size_t i = 0; i < addresses.size(); ++i) contexts.push_back(std::make_unique<grpc::ClientContext>());
  auto cancelAll = [&] {
    for (auto& context : contexts) context->TryCancel();
  };
  std::vector<std::thread> readers;
  for (size_t i = 0; i < addresses.size(); ++i) {
    readers.emplace_back([&, i] {
      proto::ScanRequest request;
      *request.mutable_fragment() = fragment;
      try {
        auto reader = cluster_.workers.dataStub(addresses[i]).Scan(contexts[i].get(), request);
        proto::ScanResponse response;
        while (reader->Read(&response)) {
          Chunk chunk = engine::decodeChunk(response.chunk(), resultTypes);
          std::lock_guard lock(mutex);
          output.push_back(std::move(chunk));
        }
        grpc::Status status = reader->Finish();
        if (!status.ok()) throw ShoalError(proto::fromGrpcStatus(status, addresses[i]));
      } catch (const ShoalError& error) {
        std::lock_guard lock(mutex);
        if (!firstError) {
          firstError = error.status();
          cancelAll();
        }
      }
    });
  }
  // Poll for a client cancel while the workers run; the end of the scan wakes the poller at once.
  std::mutex doneMutex;
  std::condition_variable doneChanged;
  bool done = false;
  std::thread canceller([&] {
    std::unique_lock lock(doneMutex);
    while (!doneChanged.wait_for(lock, std::chrono::milliseconds(20), [&] { return done; })) {
      if (cancelRequested_.load()) {
        cancelAll();
        return;
      }
    }
  });
  for (auto& reader : readers) reader.join();
  {
    std::lock_guard lock(doneMutex);
    done = true;
  }
  doneChanged.notify_all();
  canceller.join();
  checkCancel();
  if (firstError) throw ShoalError(*firstError);
  return output;
}

QueryResult SelectExecutor::run(const sql::BoundSelect& select) const {
  QueryResult result;
  for (size_t i = 0; i < select.projections.size(); ++i) {
    result.columns.push_back(ResultColumn{select.columnNames[i], select.projections[i]->type()});
  }
  bool distributed = select.from && !select.from->isSystemView;
  std::vector<Chunk> rows = distributed ? scanOnWorkers(select) : scanOnCoordinator(select);
  engine::ExpressionEvaluator evaluator(parameters_);
  if (!select.aggregates.empty()) {
    std::vector<engine::ScalarAggregate> aggregates = makeAggregates(select);
    for (const auto& partial : rows) {
      for (size_t i = 0; i < aggregates.size(); ++i) {
        aggregates[i].mergePartial(partial, 0, i * engine::ScalarAggregate::kPartialColumns);
      }
    }
    Chunk finals(1);
    for (size_t i = 0; i < aggregates.size(); ++i) {
      engine::Vector value(select.aggregates[i].resultType, 1);
      value.setValue(0, aggregates[i].finalize());
      finals.addColumn(std::move(value));
    }
    Chunk projected(1);
    for (const auto& projection : select.projections) projected.addColumn(evaluator.evaluate(*projection, finals));
    rows.clear();
    rows.push_back(std::move(projected));
  }
  auto rowsToSkip = static_cast<uint64_t>(select.offset);
  uint64_t rowsLeft = select.limit ? static_cast<uint64_t>(*select.limit) : UINT64_MAX;
  for (auto& chunk : rows) {
    if (rowsLeft == 0) break;
    size_t skip = std::min<uint64_t>(rowsToSkip, chunk.size());
    rowsToSkip -= skip;
    size_t take = std::min<uint64_t>(chunk.size() - skip, rowsLeft);
    rowsLeft -= take;
    if (take == 0) continue;
    if (skip == 0 && take == chunk.size()) {
      result.chunks.push_back(std::move(chunk));
      continue;
    }
    std::vector<uint32_t> kept(take);
    std::iota(kept.begin(), kept.end(), static_cast<uint32_t>(skip));
    result.chunks.push_back(selectRows(chunk, kept));
  }
  return result;
}

}  // namespace shoal::coordinator
