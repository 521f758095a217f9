#include "worker/loading/row_router.h"

#include <random>

#include "common/status.h"
#include "engine/vector/chunk_codec.h"
#include "exchange/partition_hash.h"
#include "proto/plan_codec.h"
#include "proto/rpc_status.h"

namespace shoal::worker {
namespace {

/// Rows for a peer travel in messages of about this size: each message costs a gRPC write, a wake-up and an
/// allocation on both sides, worth paying per megabyte rather than per chunk (~100 KB of routed rows).
constexpr size_t kMessageBytes = 1 << 20;

enum class LayoutDistribution : uint32_t { kHash = 0, kReplicated = 1, kRandom = 2 };

}  // namespace

std::vector<StoredColumn> storedColumnsOf(const proto::TableLayout& layout) {
  std::vector<StoredColumn> columns;
  for (const auto& column : layout.columns()) {
    columns.push_back(StoredColumn{column.name(), proto::decodeType(column.type()), column.not_null()});
  }
  return columns;
}

RowRouter::RowRouter(uint64_t loadId, const proto::TableLayout& layout, std::string selfAddress,
                     StorageManager& storage, PeerChannels& peers)
    : loadId_(loadId),
      layout_(layout),
      selfAddress_(std::move(selfAddress)),
      storage_(storage),
      peers_(peers),
      tableName_(layout.table_name()),
      columns_(storedColumnsOf(layout)),
      // Each router starts the round-robin somewhere else, so that small loads spread too.
      nextRandomPartition_(static_cast<uint32_t>(std::random_device{}())) {
  if (layout.placement_addresses().empty()) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "table \"{}\" has no placement", tableName_);
  }
  for (uint32_t column : layout.distribution_columns()) {
    if (column >= columns_.size()) SHOAL_USER_FAIL(SqlState::kDataCorrupted, "distribution column {}", column);
    keyColumns_.push_back(column);
  }
}

RowRouter::~RowRouter() {
  for (auto& [partition, stream] : streams_) {
    if (stream.context) stream.context->TryCancel();
  }
}

void RowRouter::route(engine::Chunk chunk) {
  if (chunk.size() == 0) return;
  const uint32_t numPartitions = static_cast<uint32_t>(layout_.placement_addresses_size());
  switch (static_cast<LayoutDistribution>(layout_.distribution())) {
    case LayoutDistribution::kReplicated:
      for (uint32_t partition = 0; partition + 1 < numPartitions; ++partition) {
        std::vector<uint32_t> all(chunk.size());
        for (uint32_t row = 0; row < chunk.size(); ++row) all[row] = row;
        engine::Chunk copy(chunk.size());
        for (size_t c = 0; c < chunk.numColumns(); ++c) copy.addColumn(chunk.column(c).select(all));
        sendTo(partition, std::move(copy));
      }
      sendTo(numPartitions - 1, std::move(chunk));
      return;
    case LayoutDistribution::kRandom:
      sendTo(nextRandomPartition_++ % numPartitions, std::move(chunk));
      return;
    case LayoutDistribution::kHash:
      break;
  }
  std::vector<uint32_t> partitions = exchange::partitionRows(chunk, keyColumns_, numPartitions);
  std::vector<std::vector<uint32_t>> rowsOf(numPartitions);
  for (uint32_t row = 0; row < chunk.size(); ++row) rowsOf[partitions[row]].push_back(row);
  for (uint32_t partition = 0; partition < numPartitions; ++partition) {
    const auto& rows = rowsOf[partition];
    if (rows.empty()) continue;
    if (rows.size() == chunk.size()) {
      sendTo(partition, std::move(chunk));
      return;
    }
    if (!isSelf(partition)) {
      // Peers get the rows encoded straight from the chunk, without an intermediate copy.
      PeerStream& stream = streamTo(partition);
      engine::encodeChunkRows(chunk, rows, stream.pendingBytes);
      if (stream.pendingBytes.size() >= kMessageBytes) flush(partition, stream);
      continue;
    }
    engine::Chunk part(rows.size());
    for (size_t c = 0; c < chunk.numColumns(); ++c) part.addColumn(chunk.column(c).select(rows));
    sendTo(partition, std::move(part));
  }
}

bool RowRouter::isSelf(uint32_t partition) const {
  return layout_.placement_addresses(static_cast<int>(partition)) == selfAddress_;
}

RowRouter::PeerStream& RowRouter::streamTo(uint32_t partition) {
  PeerStream& stream = streams_[partition];
  if (!stream.writer) {
    const std::string& address = layout_.placement_addresses(static_cast<int>(partition));
    stream.context = std::make_unique<grpc::ClientContext>();
    stream.writer = proto::WorkerData::NewStub(peers_.get(address))->AppendRows(stream.context.get(), &stream.response);
  }
  return stream;
}

void RowRouter::sendTo(uint32_t partition, engine::Chunk chunk) {
  if (isSelf(partition)) {
    storage_.stage(loadId_, layout_.storage_id(), tableName_, columns_, std::move(chunk));
    return;
  }
  PeerStream& stream = streamTo(partition);
  engine::encodeChunk(chunk, stream.pendingBytes);
  if (stream.pendingBytes.size() >= kMessageBytes) flush(partition, stream);
}

void RowRouter::flush(uint32_t partition, PeerStream& stream) {
  if (stream.pendingBytes.empty() || stream.failed) return;
  proto::AppendRowsRequest request;
  request.set_load_id(loadId_);
  *request.mutable_layout() = layout_;
  request.set_chunk(std::move(stream.pendingBytes));
  stream.pendingBytes.clear();
  stream.pendingBytes.reserve(kMessageBytes + kMessageBytes / 4);
  if (!stream.writer->Write(request)) {
    stream.failed = true;
    proto::throwRpcError(stream.writer->Finish(), layout_.placement_addresses(static_cast<int>(partition)));
  }
}

void RowRouter::finish() {
  for (auto& [partition, stream] : streams_) {
    if (stream.failed || !stream.writer) continue;
    flush(partition, stream);
    stream.writer->WritesDone();
    grpc::Status status = stream.writer->Finish();
    stream.writer.reset();
    stream.context.reset();
    if (!status.ok()) proto::throwRpcError(status, layout_.placement_addresses(static_cast<int>(partition)));
  }
}

}  // namespace shoal::worker
