#include "worker/worker_data_service.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <thread>

#include "common/status.h"
#include "common/stopwatch.h"
#include "engine/vector/chunk_codec.h"
#include "proto/plan_codec.h"
#include "proto/rpc_status.h"
#include "worker/fragment_executor.h"
#include "worker/loading/generated_table_loader.h"
#include "worker/loading/row_router.h"
#include "worker/loading/text_loader.h"
#include "worker/loading/tpch_generator.h"
#include "worker/plan_executor.h"
#include "worker/read_snapshot_codec.h"
#include "worker/scan_executor.h"
#include "worker/storage/delimited_text_parser.h"

namespace shoal::worker {
namespace {

TextFormatOptions textFormatOf(const proto::TextFormatProto& proto) {
  TextFormatOptions options;
  if (proto.format() > static_cast<uint32_t>(TextFileFormat::kText)) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "unknown text format {}", proto.format());
  }
  options.format = static_cast<TextFileFormat>(proto.format());
  if (proto.delimiter().size() == 1) options.delimiter = proto.delimiter()[0];
  if (proto.quote().size() == 1) options.quote = proto.quote()[0];
  if (proto.has_null_text()) options.nullText = proto.null_text();
  options.forceNotNull.assign(proto.force_not_null().begin(), proto.force_not_null().end());
  options.forceNull.assign(proto.force_null().begin(), proto.force_null().end());
  if (!proto.time_zone().empty()) options.timeZone = proto.time_zone();
  return options;
}

}  // namespace

grpc::Status WorkerDataService::AppendRows(grpc::ServerContext* context,
                                           grpc::ServerReader<proto::AppendRowsRequest>* reader,
                                           proto::AppendRowsResponse*) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.track();
    proto::AppendRowsRequest request;
    uint64_t cachedStorageId = 0;
    std::vector<StoredColumn> columns;
    std::vector<engine::LogicalType> types;
    while (reader->Read(&request)) {
      if (columns.empty() || request.layout().storage_id() != cachedStorageId) {
        cachedStorageId = request.layout().storage_id();
        columns = storedColumnsOf(request.layout());
        types.clear();
        for (const auto& column : columns) types.push_back(column.type);
      }
      // A message holds chunks back to back; their long strings stay in it until their segments copy them.
      auto bytes = std::make_shared<const std::string>(std::move(*request.mutable_chunk()));
      for (auto& chunk : engine::decodeChunks(std::move(bytes), types)) {
        storage_.stage(request.load_id(), cachedStorageId, request.layout().table_name(), columns, std::move(chunk));
      }
    }
  });
}

grpc::Status WorkerDataService::RouteRows(grpc::ServerContext* context,
                                          grpc::ServerReader<proto::AppendRowsRequest>* reader,
                                          proto::LoadResponse* response) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.track();
    proto::AppendRowsRequest request;
    std::unique_ptr<proto::TableLayout> layout;
    std::unique_ptr<RowRouter> router;
    std::vector<engine::LogicalType> types;
    uint64_t rows = 0;
    while (reader->Read(&request)) {
      if (!router) {
        layout = std::make_unique<proto::TableLayout>(request.layout());
        for (const auto& column : storedColumnsOf(*layout)) types.push_back(column.type);
        router = std::make_unique<RowRouter>(request.load_id(), *layout, selfAddress_, storage_, peers_);
      }
      engine::Chunk chunk = engine::decodeChunk(request.chunk(), types);
      rows += chunk.size();
      router->route(std::move(chunk));
    }
    if (router) router->finish();
    response->set_rows(rows);
  });
}

grpc::Status WorkerDataService::LoadText(grpc::ServerContext* context,
                                         grpc::ServerReader<proto::LoadTextRequest>* reader,
                                         proto::LoadResponse* response) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.admit();
    proto::LoadTextRequest request;
    std::unique_ptr<TextLoader> loader;
    while (reader->Read(&request)) {
      if (!loader) {
        std::vector<size_t> columns(request.column_indexes().begin(), request.column_indexes().end());
        loader = std::make_unique<TextLoader>(request.load_id(), request.layout(), std::move(columns),
                                              textFormatOf(request.format()), request.source_name(), selfAddress_,
                                              storage_, peers_);
      }
      loader->load(request.block(), request.first_line_number());
    }
    if (loader) {
      loader->finish();
      response->set_rows(loader->rows());
    }
  });
}

grpc::Status WorkerDataService::GenerateTpch(grpc::ServerContext* context, const proto::GenerateTpchRequest* request,
                                             proto::LoadResponse* response) {
  return proto::serveRpc(context, [&] {
    if (!request->generator().empty()) {
      SHOAL_USER_FAIL(SqlState::kInsufficientPrivilege,
                      "GenerateTpch runs the worker's own --tpchgen; a request may not name a program");
    }
    auto admission = drainGate_.admit();
    const uint32_t threads = std::max(1u, std::thread::hardware_concurrency());
    ScratchDirectory scratch("shoal-tpch");
    Stopwatch stopwatch;
    std::vector<proto::TableLayout> layouts(request->layouts().begin(), request->layouts().end());
    std::vector<std::string> tables;
    for (const auto& layout : layouts) tables.push_back(layout.table_name());
    TpchGeneratorProcess generator(tpchGenerator_, request->scale_factor(), request->part(), request->parts(), threads,
                                   scratch.path(), tables);
    response->set_rows(
        loadGeneratedTables(request->load_id(), layouts, generator, threads, selfAddress_, storage_, peers_));
    spdlog::info("load {}: generated, parsed and routed {} rows of TPC-H part {}/{} in {:.2f} s", request->load_id(),
                 response->rows(), request->part(), request->parts(), stopwatch.seconds());
  });
}

grpc::Status WorkerDataService::PrepareLoad(grpc::ServerContext* context, const proto::PrepareLoadRequest* request,
                                            proto::PrepareLoadResponse*) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.track();
    storage_.memory().expect(request->load_id(), request->expected_bytes());
  });
}

grpc::Status WorkerDataService::PrepareTransaction(grpc::ServerContext* context,
                                                   const proto::PrepareTransactionRequest* request,
                                                   proto::PrepareTransactionResponse* response) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.track();
    Stopwatch prepare;
    std::vector<uint64_t> writes(request->write_ids().begin(), request->write_ids().end());
    auto changed = storage_.prepare(request->transaction_id(), writes);
    spdlog::debug("transaction {}: prepared {} partition(s) in {:.3f} s", request->transaction_id(), changed.size(),
                  prepare.seconds());
    for (const auto& loaded : changed) {
      auto* statistics = response->add_statistics();
      statistics->set_storage_id(loaded.storageId);
      statistics->set_rows(loaded.rows);
      statistics->set_rows_deleted(loaded.rowsDeleted);
      for (const auto& column : loaded.columnStatistics) statistics->add_column_statistics(column);
    }
  });
}

grpc::Status WorkerDataService::FinishTransaction(grpc::ServerContext* context,
                                                  const proto::FinishTransactionRequest* request,
                                                  proto::FinishTransactionResponse*) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.track();
    // A load's staging garbage is freed by now; hand it back to the system instead of keeping it in malloc's
    // free lists, so that the worker's resident memory is its data.
    struct TrimOnExit {
      ~TrimOnExit() { ::malloc_trim(0); }
    } trim;
    if (request->commit()) {
      storage_.commitPrepared(request->transaction_id(), request->commit_seq());
    } else {
      storage_.abortTransaction(request->transaction_id(),
                                std::vector<uint64_t>(request->write_ids().begin(), request->write_ids().end()));
    }
  });
}

grpc::Status WorkerDataService::DeleteRows(grpc::ServerContext* context, const proto::DeleteRowsRequest* request,
                                           proto::DeleteRowsResponse* response) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.track();
    const std::vector<uint64_t> keys(request->row_keys().begin(), request->row_keys().end());
    response->set_rows_deleted(
        storage_.deleteRows(request->write_id(), readSnapshotOf(*request), request->storage_id(), keys));
  });
}

grpc::Status WorkerDataService::CheckUniqueKeys(grpc::ServerContext* context,
                                                const proto::CheckUniqueKeysRequest* request,
                                                proto::CheckUniqueKeysResponse* response) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.track();
    KeyCheck check;
    check.writeId = request->write_id();
    check.transaction = readSnapshotOf(*request);
    for (const auto& key : request->keys()) {
      check.keys.push_back(UniqueKey{key.name(), {key.columns().begin(), key.columns().end()}, key.arbiter()});
    }
    if (request->action() > static_cast<uint32_t>(ConflictAction::kReport)) {
      SHOAL_USER_FAIL(SqlState::kProtocolViolation, "unknown conflict action {}", request->action());
    }
    check.action = static_cast<ConflictAction>(request->action());
    KeyCheckOutcome outcome = storage_.checkUniqueKeys(request->storage_id(), check);
    response->set_rows_skipped(outcome.rowsSkipped);
    *response->mutable_reported() = std::move(outcome.reported);
  });
}

grpc::Status WorkerDataService::AdvanceHorizon(grpc::ServerContext* context,
                                               const proto::AdvanceHorizonRequest* request,
                                               proto::AdvanceHorizonResponse*) {
  return proto::serveRpc(context, [&] { storage_.advanceHorizon(request->oldest_snapshot()); });
}

grpc::Status WorkerDataService::ListPreparedTransactions(grpc::ServerContext* context,
                                                         const proto::ListPreparedTransactionsRequest*,
                                                         proto::ListPreparedTransactionsResponse* response) {
  return proto::serveRpc(context, [&] {
    for (const auto& [id, writes] : storage_.preparedTransactions()) {
      auto* transaction = response->add_transactions();
      transaction->set_transaction_id(id);
      for (uint64_t write : writes) transaction->add_write_ids(write);
    }
  });
}

grpc::Status WorkerDataService::DropStorage(grpc::ServerContext* context, const proto::DropStorageRequest* request,
                                            proto::DropStorageResponse*) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.track();
    for (uint64_t storageId : request->storage_ids()) storage_.drop(storageId);
  });
}

grpc::Status WorkerDataService::Scan(grpc::ServerContext* context, const proto::ScanRequest* request,
                                     grpc::ServerWriter<proto::ScanResponse>* writer) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.admit();
    auto partition = storage_.find(request->fragment().storage_id());
    const std::vector<VisibleSegment> segments =
        storage_.visible(request->fragment().storage_id(), readSnapshotOf(*request));
    proto::ScanResponse response;
    runScan(
        request->fragment(), partition.get(), segments,
        [&](engine::Chunk chunk) {
          response.mutable_chunk()->clear();
          engine::encodeChunk(chunk, *response.mutable_chunk());
          if (!writer->Write(response)) {
            SHOAL_USER_FAIL(SqlState::kQueryCanceled, "the coordinator stopped reading the scan");
          }
        },
        [&] { return context->IsCancelled(); });
  });
}

grpc::Status WorkerDataService::ExecutePlan(grpc::ServerContext* context, const proto::ExecutePlanRequest* request,
                                            grpc::ServerWriter<proto::ExecutePlanResponse>* writer) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.admit();
    proto::ExecutePlanResponse response;
    proto::ExecutePlanRequest limited = *request;
    if (limited.memory_limit_bytes() == 0) limited.set_memory_limit_bytes(defaultMemoryLimitBytes_);
    std::vector<uint64_t> rows =
        PlanExecutor(storage_, dispatcher_)
            .run(
                limited,
                [&](engine::Chunk& chunk) {
                  response.mutable_chunk()->clear();
                  engine::encodeChunk(chunk, *response.mutable_chunk());
                  if (!writer->Write(response)) {
                    SHOAL_USER_FAIL(SqlState::kQueryCanceled, "the coordinator stopped reading the result");
                  }
                },
                [&] { return context->IsCancelled(); });
    response.Clear();
    for (uint64_t count : rows) response.add_operator_rows(count);
    writer->Write(response);
  });
}

grpc::Status WorkerDataService::ResetExchange(grpc::ServerContext* context, const proto::ResetExchangeRequest*,
                                              proto::ResetExchangeResponse*) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.track();
    network_.reset();
  });
}

grpc::Status WorkerDataService::ExecuteFragments(grpc::ServerContext* context,
                                                 const proto::ExecuteFragmentsRequest* request,
                                                 grpc::ServerWriter<proto::ExecuteFragmentsResponse>* writer) {
  return proto::serveRpc(context, [&] {
    auto admission = drainGate_.admit();
    proto::ExecuteFragmentsRequest limited = *request;
    if (limited.memory_limit_bytes() == 0) limited.set_memory_limit_bytes(defaultMemoryLimitBytes_);
    proto::ExecuteFragmentsResponse response;
    // INSERT ... SELECT: what the insert's gather brings goes to the table's owners instead of the coordinator.
    std::unique_ptr<RowRouter> insertRouter;
    uint64_t rowsInserted = 0;
    if (request->has_insert_target()) {
      const auto& target = request->insert_target();
      insertRouter = std::make_unique<RowRouter>(target.load_id(), target.layout(), selfAddress_, storage_, peers_);
    }
    FragmentExecutor::Outcome outcome =
        FragmentExecutor(storage_, dispatcher_, network_)
            .run(
                limited,
                [&](uint64_t exchangeId, engine::Chunk& chunk) {
                  if (insertRouter && exchangeId == request->insert_target().exchange_id()) {
                    rowsInserted += chunk.size();
                    insertRouter->route(std::move(chunk));
                    return;
                  }
                  response.mutable_chunk()->clear();
                  response.set_exchange_id(exchangeId);
                  engine::encodeChunk(chunk, *response.mutable_chunk());
                  if (!writer->Write(response)) {
                    SHOAL_USER_FAIL(SqlState::kQueryCanceled, "the coordinator stopped reading the result");
                  }
                },
                [&] { return context->IsCancelled(); });
    if (insertRouter) insertRouter->finish();
    response.Clear();
    response.set_last(true);
    response.set_rows_inserted(rowsInserted);
    response.set_messages_sent(outcome.messagesSent);
    response.set_bytes_sent(outcome.bytesSent);
    for (uint64_t count : outcome.operatorRows) response.add_operator_rows(count);
    for (uint64_t count : outcome.consumedLocally) response.add_messages_consumed_locally(count);
    for (uint64_t count : outcome.stolen) response.add_messages_stolen(count);
    writer->Write(response);
  });
}

}  // namespace shoal::worker
