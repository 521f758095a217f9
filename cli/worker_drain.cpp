#include "cli/worker_drain.h"

#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>

#include "proto/control.grpc.pb.h"
#include "proto/internal_auth.h"

namespace shoal::cli {

int drainWorker(const std::string& address, std::chrono::seconds timeout) {
  auto stub = proto::WorkerControl::NewStub(proto::createInternalChannel(address));
  proto::DrainResponse drained;
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    grpc::Status status = stub->Drain(&context, proto::DrainRequest(), &drained);
    if (!status.ok()) {
      std::cerr << fmt::format("shoal worker --drain: no worker answered at {}: {}", address, status.error_message())
                << std::endl;
      return 1;
    }
  }
  std::cout << fmt::format("worker {} at {} is draining: {} call(s) running, no new work taken", drained.node_name(),
                           address, drained.running_calls())
            << std::endl;
  const auto started = std::chrono::steady_clock::now();
  auto lastReport = started;
  while (std::chrono::steady_clock::now() - started < timeout) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    proto::GetWorkerStatusResponse status;
    if (!stub->GetWorkerStatus(&context, proto::GetWorkerStatusRequest(), &status).ok()) {
      std::cout << fmt::format("worker {} left the cluster", drained.node_name()) << std::endl;
      return 0;
    }
    if (std::chrono::steady_clock::now() - lastReport > std::chrono::seconds(5)) {
      lastReport = std::chrono::steady_clock::now();
      std::cout << fmt::format("worker {} is still finishing its work ...", drained.node_name()) << std::endl;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::cerr << fmt::format("shoal worker --drain: worker {} was still there after {} s", drained.node_name(),
                           timeout.count())
            << std::endl;
  return 1;
}

}  // namespace shoal::cli
