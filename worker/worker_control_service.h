#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "proto/control.grpc.pb.h"
#include "worker/drain_gate.h"

namespace shoal::worker {

/// The worker's own control service: status probes, and the request to drain (which `onDrain` starts;
/// the worker's main thread does the draining).
class WorkerControlService final : public proto::WorkerControl::Service {
 public:
  WorkerControlService(std::string nodeName, const DrainGate& drainGate, std::function<void()> onDrain)
      : startedAt_(std::chrono::steady_clock::now()),
        nodeName_(std::move(nodeName)),
        drainGate_(drainGate),
        onDrain_(std::move(onDrain)) {}

  void setNodeId(uint32_t nodeId) { nodeId_.store(nodeId); }

  grpc::Status GetWorkerStatus(grpc::ServerContext* context, const proto::GetWorkerStatusRequest* request,
                               proto::GetWorkerStatusResponse* response) override;
  grpc::Status Drain(grpc::ServerContext* context, const proto::DrainRequest* request,
                     proto::DrainResponse* response) override;

 private:
  const std::chrono::steady_clock::time_point startedAt_;
  const std::string nodeName_;
  const DrainGate& drainGate_;
  const std::function<void()> onDrain_;
  std::atomic<uint32_t> nodeId_{0};
};

}  // namespace shoal::worker
