#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "engine/pipeline/pipeline.h"
#include "engine/pipeline/query_memory.h"
#include "engine/pipeline/source_gate.h"
#include "exchange/row_format.h"
#include "multiplexer/exchange_inbox.h"

namespace shoal::exchange {

/// The consuming end of an exchange as a pipeline source. A collector thread
/// takes every message off the exchange's inbox as it arrives, keeps a copy of
/// its payload and releases it at once, so the sender's credits come back and
/// no producer ever waits for a consumer pipeline to start. Once every sender
/// has finished, the gate opens and each kept payload becomes one morsel,
/// decoded on any worker thread.
///
/// Buffering the whole input is the price of never parking a worker thread on
/// the network: the dispatcher runs morsels to completion, so a consumer that
/// blocked on a remote producer could starve the producers of its own node.
class ExchangeSource final : public engine::ChunkSource {
 public:
  ExchangeSource(std::shared_ptr<multiplexer::ExchangeInbox> inbox, RowLayout layout);
  /// Fails the inbox (if still open) and joins the collector.
  ~ExchangeSource() override;
  ExchangeSource(const ExchangeSource&) = delete;
  ExchangeSource& operator=(const ExchangeSource&) = delete;

  /// Starts collecting.
  void start();
  /// One more pipeline reads this exchange (a broadcast input used twice): payloads then stay until the end.
  void addReader() { readers_.fetch_add(1); }
  /// Charges what this source holds, now and later, to `memory` (the query's): past the query's limit, the
  /// source fails with 53200. Set once the query exists; what arrived before is charged then.
  void chargeTo(std::shared_ptr<engine::QueryMemory> memory);
  /// Gives back what was charged and forgets the query's account (call before the query goes).
  void stopCharging();

  /// One per payload received; throws the stream's error (a lost sender's 08006).
  size_t numMorsels() const override;
  void produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const override;
  std::shared_ptr<engine::SourceGate> gate() const override { return gate_; }

  uint64_t messagesReceived() const { return messages_.load(); }
  uint64_t bytesReceived() const { return bytes_.load(); }

 private:
  void collect();

  std::shared_ptr<multiplexer::ExchangeInbox> inbox_;
  RowLayout layout_;
  std::shared_ptr<engine::SourceGate> gate_ = std::make_shared<engine::SourceGate>();
  std::thread collector_;
  std::atomic<uint32_t> readers_{1};
  std::atomic<uint64_t> messages_{0};
  std::atomic<uint64_t> bytes_{0};
  mutable std::mutex mutex_;
  /// Payloads, each freed by the morsel that decodes it.
  mutable std::vector<std::string> payloads_;    // guarded by mutex_ until the gate opens
  std::optional<Status> error_;                  // guarded by mutex_
  std::shared_ptr<engine::QueryMemory> memory_;  // guarded by mutex_
  mutable uint64_t heldBytes_ = 0;               // guarded by mutex_: payload bytes not yet freed
  mutable uint64_t chargedBytes_ = 0;            // guarded by mutex_: of those, charged to memory_
};

}  // namespace shoal::exchange
