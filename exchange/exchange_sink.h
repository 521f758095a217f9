#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "engine/pipeline/pipeline.h"
#include "exchange/row_format.h"
#include "multiplexer/multiplexer.h"

namespace shoal::exchange {

/// Where an exchange sends each row.
enum class ExchangeKind {
  kRepartition,  // to destinations[CRC32 of the key columns mod destinations.size()]
  kBroadcast,    // to every node of the cluster, one message per remote node (refcounted)
  kGather,       // to destinations[0]
};

/// The producing end of a decoupled exchange, as a pipeline sink: any worker
/// thread consumes chunks into its own open messages (one per destination),
/// serialized in the exchange row format into buffers of the multiplexer's
/// pool on the thread's NUMA node, and hands full ones to the multiplexer.
/// Each thread's partly filled messages go out when it combines; finalize
/// tells every destination that this node is done (an empty last message).
/// A lost destination fails the query with the multiplexer's 08006.
class ExchangeSink final : public engine::ChunkSink {
 public:
  ExchangeSink(multiplexer::Multiplexer& multiplexer, multiplexer::ExchangeId id, RowLayout layout, ExchangeKind kind,
               std::vector<size_t> keyColumns, std::vector<multiplexer::NodeId> destinations);

  std::unique_ptr<engine::LocalSinkState> makeLocalState() const override;
  void consume(engine::Chunk& chunk, engine::LocalSinkState& state) const override;
  void combine(engine::LocalSinkState& state) override;
  void finalize() override;

  /// Messages and payload bytes handed to the multiplexer (a broadcast message counts once per remote node).
  uint64_t messagesSent() const { return messagesSent_.load(); }
  uint64_t bytesSent() const { return bytesSent_.load(); }

 private:
  struct Outbox;
  struct LocalState;
  /// Sends `outbox`'s message if it holds rows, and takes a fresh one when `reopen`.
  void flush(Outbox& outbox, bool reopen) const;
  void send(size_t destination, multiplexer::Message* message) const;

  multiplexer::Multiplexer& multiplexer_;
  multiplexer::ExchangeId id_;
  RowLayout layout_;
  ExchangeKind kind_;
  std::vector<size_t> keyColumns_;
  std::vector<multiplexer::NodeId> destinations_;
  mutable std::atomic<uint64_t> messagesSent_{0};
  mutable std::atomic<uint64_t> bytesSent_{0};
};

}  // namespace shoal::exchange
