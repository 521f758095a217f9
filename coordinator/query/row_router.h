#pragma once

#include <memory>

#include <grpcpp/client_context.h>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/load_transaction.h"
#include "engine/vector/chunk.h"

namespace shoal::coordinator {

/// Rows built on the coordinator (INSERT ... VALUES, binary COPY FROM) on their way into one table: chunks of
/// its column types stream to one worker, which routes each row to the partition that owns it, in one
/// all-or-nothing load.
class RowRouter {
 public:
  /// `transaction`: the session's transaction block the rows join, or null (they are a transaction of their own).
  RowRouter(ClusterContext& cluster, std::shared_ptr<const TableEntry> table, LoadTransaction::Recorder recorder = {},
            Transaction* transaction = nullptr);
  ~RowRouter();

  /// Sends one chunk; its rows become visible at finish().
  void write(const engine::Chunk& chunk);
  /// Ends the stream and commits the load (outside a block); returns the rows it added. Without it, nothing stays.
  uint64_t finish();
  /// Its load, for ON CONFLICT's handling and outcome.
  LoadTransaction& load() { return load_; }

 private:
  LoadTransaction load_;
  proto::TableLayout layout_;
  std::string router_;
  grpc::ClientContext context_;
  proto::LoadResponse response_;
  std::unique_ptr<grpc::ClientWriter<proto::AppendRowsRequest>> writer_;
  bool finished_ = false;
};

}  // namespace shoal::coordinator
