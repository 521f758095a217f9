#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/vector/chunk.h"
#include "proto/storage.grpc.pb.h"
#include "worker/peer_channels.h"
#include "worker/storage/storage_manager.h"

namespace shoal::worker {

/// Sends the rows of one load to the workers that own them: by the CRC32 of
/// the distribution columns, to every worker (replicated), or whole chunks
/// round-robin (random). Rows for this worker are staged directly; rows for
/// peers are batched into AppendRows streams, one per peer. One router per
/// loading thread.
class RowRouter {
 public:
  RowRouter(uint64_t loadId, const proto::TableLayout& layout, std::string selfAddress, StorageManager& storage,
            PeerChannels& peers);
  ~RowRouter();

  void route(engine::Chunk chunk);
  /// Flushes and closes every peer stream; fails with the first peer's error.
  void finish();

 private:
  struct PeerStream {
    std::unique_ptr<grpc::ClientContext> context;
    proto::AppendRowsResponse response;
    std::unique_ptr<grpc::ClientWriter<proto::AppendRowsRequest>> writer;
    std::string pendingBytes;
    bool failed = false;
  };

  bool isSelf(uint32_t partition) const;
  /// The stream to a peer's partition, opened on first use.
  PeerStream& streamTo(uint32_t partition);
  void sendTo(uint32_t partition, engine::Chunk chunk);
  void flush(uint32_t partition, PeerStream& stream);

  const uint64_t loadId_;
  const proto::TableLayout& layout_;
  const std::string selfAddress_;
  StorageManager& storage_;
  PeerChannels& peers_;
  std::string tableName_;
  std::vector<StoredColumn> columns_;
  std::vector<size_t> keyColumns_;
  uint32_t nextRandomPartition_;
  std::map<uint32_t, PeerStream> streams_;
};

/// The column list a TableLayout describes.
std::vector<StoredColumn> storedColumnsOf(const proto::TableLayout& layout);

}  // namespace shoal::worker
