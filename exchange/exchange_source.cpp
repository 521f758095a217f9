#include "exchange/exchange_source.h"

namespace shoal::exchange {

ExchangeSource::ExchangeSource(std::shared_ptr<multiplexer::ExchangeInbox> inbox, RowLayout layout)
    : inbox_(std::move(inbox)), layout_(std::move(layout)) {}

ExchangeSource::~ExchangeSource() {
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

void ExchangeSource::stopCharging() {
  std::lock_guard lock(mutex_);
  if (memory_ && chargedBytes_ > 0) memory_->release(chargedBytes_);
  chargedBytes_ = 0;
  memory_.reset();
}

void ExchangeSource::chargeTo(std::shared_ptr<engine::QueryMemory> memory) {
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

void ExchangeSource::start() {
  collector_ = std::thread([this] { collect(); });
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
  std::lock_guard lock(mutex_);
  if (error_) throw ShoalError(*error_);
  return payloads_.size();
}

void ExchangeSource::produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const {
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
