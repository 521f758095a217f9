#pragma once

#include <atomic>
#include <chrono>

#include "proto/control.grpc.pb.h"

namespace shoal::worker {

/// The worker's own gRPC service. Plan fragments will arrive here; for now it
/// answers status probes.
class WorkerControlService final : public proto::WorkerControl::Service {
 public:
  WorkerControlService() : startedAt_(std::chrono::steady_clock::now()) {}

  void setNodeId(uint32_t nodeId) { nodeId_.store(nodeId); }

  grpc::Status GetWorkerStatus(grpc::ServerContext* context, const proto::GetWorkerStatusRequest* request,
                               proto::GetWorkerStatusResponse* response) override;

 private:
  const std::chrono::steady_clock::time_point startedAt_;
  std::atomic<uint32_t> nodeId_{0};
};

}  // namespace shoal::worker
