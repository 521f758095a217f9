#include "worker/worker_control_service.h"

#include "proto/internal_auth.h"

namespace shoal::worker {

grpc::Status WorkerControlService::GetWorkerStatus(grpc::ServerContext* context, const proto::GetWorkerStatusRequest*,
                                                   proto::GetWorkerStatusResponse* response) {
  if (auto allowed = proto::checkInternalCall(*context); !allowed.ok()) return allowed;
  response->set_node_id(nodeId_.load());
  auto uptime = std::chrono::steady_clock::now() - startedAt_;
  response->set_uptime_ms(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(uptime).count()));
  return grpc::Status::OK;
}

grpc::Status WorkerControlService::Drain(grpc::ServerContext* context, const proto::DrainRequest*,
                                         proto::DrainResponse* response) {
  if (auto allowed = proto::checkInternalCall(*context); !allowed.ok()) return allowed;
  response->set_node_name(nodeName_);
  response->set_running_calls(drainGate_.running());
  onDrain_();
  return grpc::Status::OK;
}

}  // namespace shoal::worker
