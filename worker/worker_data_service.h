#pragma once

#include <atomic>
#include <string>

#include "proto/storage.grpc.pb.h"
#include "scheduler/dispatcher.h"
#include "worker/drain_gate.h"
#include "worker/exchange_network.h"
#include "worker/peer_channels.h"
#include "worker/storage/storage_manager.h"

namespace shoal::worker {

/// The worker's data plane (proto/storage.proto): staging writes and
/// committing transactions in two phases, parsing COPY text and generating TPC-H data while routing each row
/// to its owner, dropping storage, running scan fragments, and running whole
/// plans on `dispatcher`.
class WorkerDataService final : public proto::WorkerData::Service {
 public:
  /// `defaultMemoryLimitBytes`: a plan's memory limit when its request sets none.
  /// `drainGate`: every call is counted there, and new work is refused once the worker drains.
  /// `tpchGenerator`: the tpchgen-cli GenerateTpch runs (the worker's own setting; callers cannot name one).
  WorkerDataService(StorageManager& storage, scheduler::Dispatcher& dispatcher, ExchangeNetwork& network,
                    DrainGate& drainGate, uint64_t defaultMemoryLimitBytes, std::string tpchGenerator)
      : storage_(storage),
        dispatcher_(dispatcher),
        network_(network),
        drainGate_(drainGate),
        defaultMemoryLimitBytes_(defaultMemoryLimitBytes),
        tpchGenerator_(std::move(tpchGenerator)) {}

  /// This worker's own address, as placements name it; set once serving.
  void setSelfAddress(std::string address) { selfAddress_ = std::move(address); }

  grpc::Status AppendRows(grpc::ServerContext* context, grpc::ServerReader<proto::AppendRowsRequest>* reader,
                          proto::AppendRowsResponse* response) override;
  grpc::Status RouteRows(grpc::ServerContext* context, grpc::ServerReader<proto::AppendRowsRequest>* reader,
                         proto::LoadResponse* response) override;
  grpc::Status LoadText(grpc::ServerContext* context, grpc::ServerReader<proto::LoadTextRequest>* reader,
                        proto::LoadResponse* response) override;
  grpc::Status GenerateTpch(grpc::ServerContext* context, const proto::GenerateTpchRequest* request,
                            proto::LoadResponse* response) override;
  grpc::Status PrepareLoad(grpc::ServerContext* context, const proto::PrepareLoadRequest* request,
                           proto::PrepareLoadResponse* response) override;
  grpc::Status PrepareTransaction(grpc::ServerContext* context, const proto::PrepareTransactionRequest* request,
                                  proto::PrepareTransactionResponse* response) override;
  grpc::Status FinishTransaction(grpc::ServerContext* context, const proto::FinishTransactionRequest* request,
                                 proto::FinishTransactionResponse* response) override;
  grpc::Status DeleteRows(grpc::ServerContext* context, const proto::DeleteRowsRequest* request,
                          proto::DeleteRowsResponse* response) override;
  grpc::Status CheckUniqueKeys(grpc::ServerContext* context, const proto::CheckUniqueKeysRequest* request,
                               proto::CheckUniqueKeysResponse* response) override;
  grpc::Status AdvanceHorizon(grpc::ServerContext* context, const proto::AdvanceHorizonRequest* request,
                              proto::AdvanceHorizonResponse* response) override;
  grpc::Status ListPreparedTransactions(grpc::ServerContext* context,
                                        const proto::ListPreparedTransactionsRequest* request,
                                        proto::ListPreparedTransactionsResponse* response) override;
  grpc::Status DropStorage(grpc::ServerContext* context, const proto::DropStorageRequest* request,
                           proto::DropStorageResponse* response) override;
  grpc::Status Scan(grpc::ServerContext* context, const proto::ScanRequest* request,
                    grpc::ServerWriter<proto::ScanResponse>* writer) override;
  grpc::Status ExecuteFragments(grpc::ServerContext* context, const proto::ExecuteFragmentsRequest* request,
                                grpc::ServerWriter<proto::ExecuteFragmentsResponse>* writer) override;
  grpc::Status ResetExchange(grpc::ServerContext* context, const proto::ResetExchangeRequest* request,
                             proto::ResetExchangeResponse* response) override;
  grpc::Status ExecutePlan(grpc::ServerContext* context, const proto::ExecutePlanRequest* request,
                           grpc::ServerWriter<proto::ExecutePlanResponse>* writer) override;

 private:
  StorageManager& storage_;
  scheduler::Dispatcher& dispatcher_;
  ExchangeNetwork& network_;
  DrainGate& drainGate_;
  uint64_t defaultMemoryLimitBytes_;
  const std::string tpchGenerator_;
  PeerChannels peers_;
  std::string selfAddress_;
};

}  // namespace shoal::worker
