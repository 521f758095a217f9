#include "exchange/exchange_sink.h"

#include <sched.h>

#include <optional>

#include "exchange/partition_hash.h"

namespace shoal::exchange {

using multiplexer::Message;

/// One open message of one thread for one destination (for a broadcast: for every node).
struct ExchangeSink::Outbox {
  size_t destination = 0;
  Message* message = nullptr;
  std::optional<RowWriter> writer;
};

/// One thread's outboxes, one per destination.
struct ExchangeSink::LocalState final : engine::LocalSinkState {
  /// A query that failed or was cancelled never combines: its open messages go back to the pool here.
  ~LocalState() override {
    for (auto& outbox : outboxes) {
      if (outbox->message != nullptr) outbox->message->release();
    }
  }
  uint32_t numaNode = 0;
  std::vector<std::unique_ptr<Outbox>> outboxes;
};

ExchangeSink::ExchangeSink(multiplexer::Multiplexer& multiplexer, multiplexer::ExchangeId id, RowLayout layout,
                           ExchangeKind kind, std::vector<size_t> keyColumns,
                           std::vector<multiplexer::NodeId> destinations)
    : multiplexer_(multiplexer),
      id_(id),
      layout_(std::move(layout)),
      kind_(kind),
      keyColumns_(std::move(keyColumns)),
      destinations_(std::move(destinations)) {
  if (kind_ == ExchangeKind::kBroadcast) {
    destinations_.clear();  // a broadcast reaches every node through one outbox
    destinations_.push_back(multiplexer_.self());
  }
  SHOAL_CHECK(!destinations_.empty(), "an exchange without destinations");
  SHOAL_CHECK(kind_ != ExchangeKind::kRepartition || !keyColumns_.empty(), "a repartition without keys");
}

std::unique_ptr<engine::LocalSinkState> ExchangeSink::makeLocalState() const {
  auto state = std::make_unique<LocalState>();
  // Made on the thread that will fill it: its buffers come from that thread's NUMA node.
  const int cpu = sched_getcpu();
  state->numaNode = cpu < 0 ? 0 : multiplexer_.topology().nodeOfCpu(static_cast<uint32_t>(cpu));
  for (size_t destination = 0; destination < destinations_.size(); ++destination) {
    auto outbox = std::make_unique<Outbox>();
    outbox->destination = destination;
    state->outboxes.push_back(std::move(outbox));
  }
  return state;
}

void ExchangeSink::consume(engine::Chunk& chunk, engine::LocalSinkState& state) const {
  auto& local = static_cast<LocalState&>(state);
  std::vector<uint32_t> partitions;
  if (kind_ == ExchangeKind::kRepartition) {
    partitions = partitionRows(chunk, keyColumns_, static_cast<uint32_t>(destinations_.size()));
  }
  for (size_t row = 0; row < chunk.size(); ++row) {
    Outbox& outbox = *local.outboxes[partitions.empty() ? 0 : partitions[row]];
    if (outbox.message == nullptr) {
      outbox.message = multiplexer_.acquire(local.numaNode);
      if (outbox.message == nullptr) {
        SHOAL_USER_FAIL(SqlState::kConnectionFailure, "the multiplexer is shutting down");
      }
      outbox.writer.emplace(layout_,
                            std::span<std::byte>(outbox.message->payload(), outbox.message->payloadCapacity()));
    }
    if (!outbox.writer->append(chunk, row)) {
      flush(outbox, true);
      // An empty message takes any row that fits a message at all (else append fails with 54000).
      (void)outbox.writer->append(chunk, row);
    }
  }
}

void ExchangeSink::flush(Outbox& outbox, bool reopen) const {
  Message* message = outbox.message;
  outbox.message = nullptr;
  if (message == nullptr) return;
  const uint32_t numaNode = message->numaNode();
  if (outbox.writer->rows() == 0) {
    message->release();
  } else {
    message->setPayloadSize(static_cast<uint32_t>(outbox.writer->finish()));
    message->setExchangeId(id_);
    message->setLast(false);
    send(outbox.destination, message);
  }
  if (!reopen) return;
  outbox.message = multiplexer_.acquire(numaNode);
  if (outbox.message == nullptr) SHOAL_USER_FAIL(SqlState::kConnectionFailure, "the multiplexer is shutting down");
  outbox.writer->reset(std::span<std::byte>(outbox.message->payload(), outbox.message->payloadCapacity()));
}

void ExchangeSink::send(size_t destination, Message* message) const {
  const uint64_t bytes = message->payloadSize();
  if (kind_ == ExchangeKind::kBroadcast) {
    const uint64_t remotes = multiplexer_.clusterSize() - 1;
    Status sent = multiplexer_.broadcast(message, true);
    if (!sent.isOk()) throw ShoalError(sent);
    messagesSent_ += remotes;
    bytesSent_ += bytes * remotes;
    return;
  }
  const multiplexer::NodeId target = destinations_[destination];
  Status sent = multiplexer_.send(target, message);
  if (!sent.isOk()) throw ShoalError(sent);
  if (target != multiplexer_.self()) {
    ++messagesSent_;
    bytesSent_ += bytes;
  }
}

void ExchangeSink::combine(engine::LocalSinkState& state) {
  for (auto& outbox : static_cast<LocalState&>(state).outboxes) flush(*outbox, false);
}

void ExchangeSink::finalize() {
  // Every destination learns that this node has sent all it will: an empty last message.
  for (size_t destination = 0; destination < destinations_.size(); ++destination) {
    Message* last = multiplexer_.acquire(0);
    if (last == nullptr) SHOAL_USER_FAIL(SqlState::kConnectionFailure, "the multiplexer is shutting down");
    last->setPayloadSize(0);
    last->setExchangeId(id_);
    last->setLast(true);
    if (kind_ == ExchangeKind::kBroadcast) {
      Status sent = multiplexer_.broadcast(last, true);
      if (!sent.isOk()) throw ShoalError(sent);
    } else {
      Status sent = multiplexer_.send(destinations_[destination], last);
      if (!sent.isOk()) throw ShoalError(sent);
    }
  }
}

}  // namespace shoal::exchange
