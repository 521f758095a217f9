#include "coordinator/cluster/storage_drop_retrier.h"

#include <grpcpp/client_context.h>
#include <spdlog/spdlog.h>

#include <chrono>

namespace shoal::coordinator {
namespace {

constexpr auto kRetryInterval = std::chrono::milliseconds(1000);

}  // namespace

StorageDropRetrier::StorageDropRetrier(ClusterContext& cluster)
    : cluster_(cluster), task_(kRetryInterval, [this] {
        try {
          retryOnce();
        } catch (const std::exception& error) {
          spdlog::warn("finishing pending storage drops failed: {}", error.what());
        }
      }) {}

void StorageDropRetrier::retryOnce() {
  const auto pending = cluster_.tables.pendingDrops();
  if (pending.empty()) return;
  const std::vector<MemberSnapshot> nodes = cluster_.registry.nodes();
  for (const auto& [worker, storageIds] : pending) {
    const std::string& name = worker;  // clang 15 lambdas cannot capture a structured binding
    auto node = std::find_if(nodes.begin(), nodes.end(), [&](const auto& each) { return each.nodeName == name; });
    if (node == nodes.end() || node->state != "up") continue;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    proto::DropStorageRequest request;
    for (uint64_t id : storageIds) request.add_storage_ids(id);
    proto::DropStorageResponse response;
    grpc::Status status = cluster_.workers.dataStub(node->address).DropStorage(&context, request, &response);
    if (!status.ok()) {
      spdlog::debug("worker {} has not dropped storage it missed yet: {}", worker, status.error_message());
      continue;
    }
    cluster_.tables.clearPendingDrops(worker, storageIds);
    spdlog::info("worker {} dropped {} storage(s) of tables dropped while it was down", worker, storageIds.size());
  }
}

}  // namespace shoal::coordinator
