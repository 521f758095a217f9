#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "engine/pipeline/morsel_stream.h"
#include "engine/pipeline/pipeline.h"
#include "engine/pipeline/query_memory.h"
#include "engine/pipeline/source_gate.h"
#include "exchange/row_format.h"
#include "multiplexer/exchange_inbox.h"

namespace shoal::exchange {

/// The consuming end of an exchange as a pipeline source, in one of two modes chosen at `start`.
///
/// Streamed (the rule): the pipeline runs while the senders still send. Each message is one morsel, taken
/// from the inbox by a dispatcher thread, its own NUMA node's queue first (MorselStream). The thread
/// decodes the message's rows into vectors, releases the message at once (its receive buffer and credit go
/// back) and pushes the rows on. A hash join build, an aggregation and a sort thus consume their input as it
/// arrives, and memory stays bounded by the credit windows. What arrives while the consumer cannot run (its
/// pipeline waits for a join build, or this node's threads wait to send) waits in the inbox as heap copies
/// (ReceiveSide), charged to the query's memory.
///
/// Collected (an input read by two pipelines, or one that is only drained): a collector thread copies every
/// payload off the inbox as it arrives; once every sender finished, the gate opens and each payload becomes
/// one morsel.
class ExchangeSource final : public engine::ChunkSource, public engine::MorselStream {
 public:
  ExchangeSource(std::shared_ptr<multiplexer::ExchangeInbox> inbox, RowLayout layout);
  /// Fails the inbox (if still open), joins the collector and releases what a morsel took but never produced.
  ~ExchangeSource() override;
  ExchangeSource(const ExchangeSource&) = delete;
  ExchangeSource& operator=(const ExchangeSource&) = delete;

  /// One more pipeline reads this exchange (a broadcast input used twice): the source is then collected.
  void addReader() { readers_.fetch_add(1); }
  /// The source is only drained (DrainedInput): collected, its payloads dropped with the query.
  void collectOnly() { collectOnly_ = true; }
  /// Chooses the mode (after every addReader and collectOnly) and, when collected, starts collecting.
  void start();
  /// Charges what this source holds, now and later, to `memory` (the query's): past the query's limit, the
  /// source fails with 53200. Set once the query exists; what arrived before is charged then.
  void chargeTo(std::shared_ptr<engine::QueryMemory> memory);
  /// Gives back what was charged and forgets the query's account (call before the query goes).
  void stopCharging();

  // ChunkSource. Collected: one morsel per payload, after the gate; numMorsels throws the stream's error.
  // Streamed: morsels come from tryTake.
  size_t numMorsels() const override;
  void produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const override;
  std::shared_ptr<engine::SourceGate> gate() const override { return streamed_ ? nullptr : gate_; }

  // MorselStream.
  bool streams() const override { return streamed_; }
  void startConsuming() override { inbox_->setConsumerReady(true); }
  std::optional<size_t> tryTake(uint32_t numaNode, bool steal) override;
  bool exhausted() const override { return inbox_->finished(); }
  void skip(size_t morsel) override;
  void onArrival(std::function<void()> wake) override { inbox_->setListener(std::move(wake)); }

  const multiplexer::ExchangeInbox& inbox() const { return *inbox_; }
  uint64_t messagesReceived() const { return messages_.load(); }
  uint64_t bytesReceived() const { return bytes_.load(); }

 private:
  void collect();
  void produceCollected(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const;
  void produceStreamed(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const;

  std::shared_ptr<multiplexer::ExchangeInbox> inbox_;
  RowLayout layout_;
  std::shared_ptr<engine::SourceGate> gate_ = std::make_shared<engine::SourceGate>();
  std::atomic<uint32_t> readers_{1};
  bool collectOnly_ = false;
  bool started_ = false;
  bool streamed_ = false;
  std::atomic<uint64_t> messages_{0};
  std::atomic<uint64_t> bytes_{0};
  mutable std::mutex mutex_;
  std::shared_ptr<engine::QueryMemory> memory_;  // guarded by mutex_

  // Streamed: messages taken by tryTake, by morsel, until their morsel produces them.
  mutable std::unordered_map<size_t, multiplexer::Message*> taken_;  // guarded by mutex_
  size_t nextMorsel_ = 0;                                            // guarded by mutex_

  // Collected.
  std::thread collector_;
  /// Payloads, each freed by the morsel that decodes it.
  mutable std::vector<std::string> payloads_;  // guarded by mutex_ until the gate opens
  std::optional<Status> error_;                // guarded by mutex_
  mutable uint64_t heldBytes_ = 0;             // guarded by mutex_: payload bytes not yet freed
  mutable uint64_t chargedBytes_ = 0;          // guarded by mutex_: of those, charged to memory_
};

}  // namespace shoal::exchange
