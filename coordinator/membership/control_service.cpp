#include "coordinator/membership/control_service.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "proto/internal_auth.h"

namespace shoal::coordinator {

grpc::Status ControlService::checkClusterId(const std::string& clusterId) const {
  if (clusterId != clusterId_) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        // The coordinator's own id stays unsaid: it is not for whoever asks to find out.
                        fmt::format("cluster id mismatch: this coordinator does not serve cluster '{}'", clusterId));
  }
  return grpc::Status::OK;
}

grpc::Status ControlService::RegisterWorker(grpc::ServerContext* context, const proto::RegisterWorkerRequest* request,
                                            proto::RegisterWorkerResponse* response) {
  if (auto allowed = proto::checkInternalCall(*context); !allowed.ok()) return allowed;
  if (auto status = checkClusterId(request->cluster_id()); !status.ok()) {
    spdlog::warn("refused worker {} at {}: {}", request->node_name(), request->address(), status.error_message());
    return status;
  }
  if (request->protocol_version() != proto::kControlProtocolVersion) {
    std::string message =
        fmt::format("protocol version mismatch: the worker speaks control protocol {}, this coordinator speaks {}",
                    request->protocol_version(), proto::kControlProtocolVersion);
    spdlog::warn("refused worker {} at {}: {}", request->node_name(), request->address(), message);
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, message);
  }
  auto nodeId = registry_.registerWorker(request->node_name(), request->address(), request->exchange_address());
  if (!nodeId) {
    spdlog::warn("refused worker {} at {}: a live worker has that name at another address", request->node_name(),
                 request->address());
    return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                        fmt::format("a live worker is registered as {} at another address", request->node_name()));
  }
  spdlog::info("worker {} registered as node {} at {}", request->node_name(), *nodeId, request->address());
  response->set_node_id(*nodeId);
  response->set_heartbeat_interval_ms(heartbeatIntervalMs_);
  return grpc::Status::OK;
}

grpc::Status ControlService::Heartbeat(grpc::ServerContext* context, const proto::HeartbeatRequest* request,
                                       proto::HeartbeatResponse*) {
  if (auto allowed = proto::checkInternalCall(*context); !allowed.ok()) return allowed;
  if (auto status = checkClusterId(request->cluster_id()); !status.ok()) {
    return status;
  }
  if (!registry_.heartbeat(request->node_id())) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        fmt::format("node {} is not registered with this coordinator", request->node_id()));
  }
  return grpc::Status::OK;
}

grpc::Status ControlService::DeregisterWorker(grpc::ServerContext* context,
                                              const proto::DeregisterWorkerRequest* request,
                                              proto::DeregisterWorkerResponse*) {
  if (auto allowed = proto::checkInternalCall(*context); !allowed.ok()) return allowed;
  if (auto status = checkClusterId(request->cluster_id()); !status.ok()) {
    return status;
  }
  if (!registry_.deregister(request->node_id())) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, fmt::format("node {} is not registered", request->node_id()));
  }
  spdlog::info("worker node {} left the cluster", request->node_id());
  return grpc::Status::OK;
}

grpc::Status ControlService::ListNodes(grpc::ServerContext* context, const proto::ListNodesRequest*,
                                       proto::ListNodesResponse* response) {
  if (auto allowed = proto::checkInternalCall(*context); !allowed.ok()) return allowed;
  for (const auto& member : registry_.nodes()) {
    auto* node = response->add_nodes();
    node->set_node_id(member.nodeId);
    node->set_node_name(member.nodeName);
    node->set_role(member.role);
    node->set_address(member.address);
    node->set_state(member.state);
    node->set_seconds_since_heartbeat(member.secondsSinceHeartbeat);
  }
  return grpc::Status::OK;
}

}  // namespace shoal::coordinator
