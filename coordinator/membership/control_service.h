#pragma once

#include <string>

#include "coordinator/membership/member_registry.h"
#include "proto/control.grpc.pb.h"
#include "proto/control_protocol.h"

namespace shoal::coordinator {

/// The coordinator's side of the control plane: registration, heartbeats and
/// the membership view, backed by a MemberRegistry. gRPC calls it from its own threads.
class ControlService final : public proto::Control::Service {
 public:
  ControlService(std::string clusterId, MemberRegistry& registry, uint32_t heartbeatIntervalMs)
      : clusterId_(std::move(clusterId)), registry_(registry), heartbeatIntervalMs_(heartbeatIntervalMs) {}

  grpc::Status RegisterWorker(grpc::ServerContext* context, const proto::RegisterWorkerRequest* request,
                              proto::RegisterWorkerResponse* response) override;
  grpc::Status Heartbeat(grpc::ServerContext* context, const proto::HeartbeatRequest* request,
                         proto::HeartbeatResponse* response) override;
  grpc::Status DeregisterWorker(grpc::ServerContext* context, const proto::DeregisterWorkerRequest* request,
                                proto::DeregisterWorkerResponse* response) override;
  grpc::Status ListNodes(grpc::ServerContext* context, const proto::ListNodesRequest* request,
                         proto::ListNodesResponse* response) override;

 private:
  grpc::Status checkClusterId(const std::string& clusterId) const;

  const std::string clusterId_;
  MemberRegistry& registry_;
  const uint32_t heartbeatIntervalMs_;
};

}  // namespace shoal::coordinator
