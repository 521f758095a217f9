#include "exchange/exchange_source.h"

#include "common/check.h"

namespace shoal::exchange {

ExchangeSource::ExchangeSource(std::shared_ptr<multiplexer::ExchangeInbox> inbox, RowLayout layout)
    : inbox_(std::move(inbox)), layout_(std::move(layout)) {}

ExchangeSource::~ExchangeSource() {
  inbox_->clearListener();
  inbox_->clearHeapAccount();
  for (auto& [morsel, message] : taken_) message->release();
  if (!collector_.joinable()) return;
  if (collector_.get_id() == std::this_thread::get_id()) {
    // Opening the gate can finish the query on the collector's own thread and drop the last reference to this
    // source there; the collector touches nothing of it after that.
    collector_.detach();
    return;
  }
  inbox_->fail(Status(SqlState::kQueryCanceled, "the exchange's query ended"));
  collector_.join();
  stopCharging();
}

void ExchangeSource::start() {
  if (started_) return;
  started_ = true;
  streamed_ = readers_.load() == 1 && !collectOnly_;
  if (streamed_) {
    inbox_->setConsumerReady(false);  // until its pipeline is ready (startConsuming)
  } else {
    collector_ = std::thread([this] { collect(); });
  }
}

void ExchangeSource::stopCharging() {
  inbox_->clearHeapAccount();
  std::lock_guard lock(mutex_);
  if (memory_ && chargedBytes_ > 0) memory_->release(chargedBytes_);
  chargedBytes_ = 0;
  memory_.reset();
}

void ExchangeSource::chargeTo(std::shared_ptr<engine::QueryMemory> memory) {
  if (streamed_) {
    // Only what waits as heap copies is held here; the receive buffers are the network's, bounded by credits.
    inbox_->setHeapAccount([memory](int64_t bytes) {
      if (bytes < 0) {
        memory->release(static_cast<uint64_t>(-bytes));
        return Status::ok();
      }
      try {
        memory->reserve(static_cast<uint64_t>(bytes));
      } catch (const ShoalError& error) {
        return error.status();
      }
      return Status::ok();
    });
    return;
  }
  bool over = false;
  {
    std::lock_guard lock(mutex_);
    memory_ = std::move(memory);
    try {
      memory_->reserve(heldBytes_);
      chargedBytes_ = heldBytes_;
    } catch (const ShoalError& error) {
      if (!error_) error_ = error.status();
      over = true;
    }
  }
  if (over) inbox_->fail(*error_);  // the collector stops, and the gate opens on the error
}

std::optional<size_t> ExchangeSource::tryTake(uint32_t numaNode, bool steal) {
  auto received = inbox_->tryReceive(numaNode, steal);
  if (!received.status.isOk()) throw ShoalError(received.status);
  if (received.message == nullptr) return std::nullopt;
  messages_.fetch_add(1, std::memory_order_relaxed);
  bytes_.fetch_add(received.message->payloadSize(), std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  const size_t morsel = nextMorsel_++;
  taken_.emplace(morsel, received.message);
  return morsel;
}

void ExchangeSource::collect() {
  while (true) {
    auto received = inbox_->receive(0);
    if (!received.status.isOk()) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = received.status;
      break;
    }
    multiplexer::Message* message = received.message;
    if (message == nullptr) break;  // every sender finished
    if (message->payloadSize() > 0) {
      std::string payload(reinterpret_cast<const char*>(message->payload()), message->payloadSize());
      messages_.fetch_add(1, std::memory_order_relaxed);
      bytes_.fetch_add(payload.size(), std::memory_order_relaxed);
      message->release();
      std::lock_guard lock(mutex_);
      heldBytes_ += payload.size();
      bool over = false;
      if (memory_ && !error_) {
        try {
          memory_->reserve(payload.size());
          chargedBytes_ += payload.size();
        } catch (const ShoalError& error) {
          // Past the query's memory limit: stop collecting; the query fails as its pipeline starts (numMorsels).
          error_ = error.status();
          over = true;
        }
      }
      payloads_.push_back(std::move(payload));
      if (over) break;
      continue;
    }
    message->release();
  }
  std::shared_ptr<engine::SourceGate> gate = gate_;  // may outlive this source (see the destructor)
  gate->open();
}

size_t ExchangeSource::numMorsels() const {
  SHOAL_CHECK(!streamed_, "a streamed exchange input is read through its MorselStream");
  std::lock_guard lock(mutex_);
  if (error_) throw ShoalError(*error_);
  return payloads_.size();
}

void ExchangeSource::produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const {
  if (streamed_) {
    produceStreamed(morsel, consume);
  } else {
    produceCollected(morsel, consume);
  }
}

void ExchangeSource::skip(size_t morsel) {
  multiplexer::Message* message = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto taken = taken_.find(morsel);
    if (taken == taken_.end()) return;
    message = taken->second;
    taken_.erase(taken);
  }
  message->release();
}

void ExchangeSource::produceStreamed(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const {
  multiplexer::Message* message = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto taken = taken_.find(morsel);
    SHOAL_CHECK(taken != taken_.end(), "exchange morsel {} was not taken", morsel);
    message = taken->second;
    taken_.erase(taken);
  }
  // The rows are decoded before any is pushed on, and the message goes back first: a consumer that blocks
  // downstream (its own exchange waiting for credits) never holds a receive buffer while it waits.
  std::vector<engine::Chunk> chunks;
  try {
    decodeRows(layout_, std::span<const std::byte>(message->payload(), message->payloadSize()),
               [&](engine::Chunk& chunk) { chunks.push_back(std::move(chunk)); });
  } catch (...) {
    message->release();
    throw;
  }
  message->release();
  for (auto& chunk : chunks) consume(chunk);
}

void ExchangeSource::produceCollected(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const {
  std::string payload;
  const std::string* bytes = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (readers_.load() > 1) {
      bytes = &payloads_.at(morsel);  // read by several pipelines: kept, and no longer changed once the gate opened
    } else {
      payload.swap(payloads_.at(morsel));  // the only reader frees each payload as it goes
      bytes = &payload;
      heldBytes_ -= payload.size();
      const uint64_t uncharged = std::min<uint64_t>(chargedBytes_, payload.size());
      if (memory_ && uncharged > 0) memory_->release(uncharged);
      chargedBytes_ -= uncharged;
    }
  }
  decodeRows(layout_, std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes->data()), bytes->size()),
             consume);
}

}  // namespace shoal::exchange
