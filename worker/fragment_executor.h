#pragma once

#include <functional>
#include <vector>

#include "engine/vector/chunk.h"
#include "proto/storage.pb.h"
#include "scheduler/dispatcher.h"
#include "worker/exchange_network.h"
#include "worker/storage/storage_manager.h"

namespace shoal::worker {

/// Runs this worker's fragments of a distributed plan (ExecuteFragments). All
/// of them become pipelines of one query on the dispatcher: table scans read
/// local partitions, exchange inputs read what the multiplexer receives (each
/// pipeline consumes its input as it arrives, see ExchangeSource), and each
/// fragment ends in an exchange sink that repartitions or broadcasts its rows
/// to the other workers, or in a result queue whose rows `emit` sends to the
/// coordinator while the query runs.
class FragmentExecutor {
 public:
  FragmentExecutor(StorageManager& storage, scheduler::Dispatcher& dispatcher, ExchangeNetwork& network)
      : storage_(storage), dispatcher_(dispatcher), network_(network) {}

  struct Outcome {
    uint64_t messagesSent = 0;
    uint64_t bytesSent = 0;
    /// With count_rows: each fragment's operators' rows in pre-order, fragment after fragment.
    std::vector<uint64_t> operatorRows;
    /// Per NUMA node: received messages its consumers took from its own queues, and stole from others'.
    std::vector<uint64_t> consumedLocally;
    std::vector<uint64_t> stolen;
  };

  /// `emit(exchangeId, chunk)` receives the rows of fragments that gather to the coordinator.
  Outcome run(const proto::ExecuteFragmentsRequest& request,
              const std::function<void(uint64_t exchangeId, engine::Chunk&)>& emit,
              const std::function<bool()>& isCancelled) const;

 private:
  StorageManager& storage_;
  scheduler::Dispatcher& dispatcher_;
  ExchangeNetwork& network_;
};

}  // namespace shoal::worker
