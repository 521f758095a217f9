#include "coordinator/query/row_router.h"

#include "common/status.h"
#include "engine/vector/chunk_codec.h"
#include "proto/rpc_status.h"

namespace shoal::coordinator {

RowRouter::RowRouter(ClusterContext& cluster, std::shared_ptr<const TableEntry> table,
                     LoadTransaction::Recorder recorder, Transaction* transaction)
    : load_(cluster, {table}, std::move(recorder), transaction), layout_(cluster.workers.layoutOf(*table)) {
  // Any worker can route rows to their owners; the first partition's does.
  router_ = layout_.placement_addresses(0);
  writer_ = cluster.workers.dataStub(router_).RouteRows(&context_, &response_);
}

RowRouter::~RowRouter() {
  if (!finished_) context_.TryCancel();
}

void RowRouter::write(const engine::Chunk& chunk) {
  proto::AppendRowsRequest request;
  request.set_load_id(load_.loadId());
  *request.mutable_layout() = layout_;
  engine::encodeChunk(chunk, *request.mutable_chunk());
  if (writer_->Write(request)) return;
  // A refused write ends the stream: the worker's error says why.
  finished_ = true;
  grpc::Status status = writer_->Finish();
  if (!status.ok()) proto::throwRpcError(status, router_);
  SHOAL_USER_FAIL(SqlState::kConnectionFailure, "worker {} stopped accepting rows", router_);
}

uint64_t RowRouter::finish() {
  finished_ = true;
  writer_->WritesDone();
  grpc::Status status = writer_->Finish();
  if (!status.ok()) proto::throwRpcError(status, router_);
  load_.commit();
  return response_.rows();
}

}  // namespace shoal::coordinator
