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
}

void ExchangeSource::start() {
  collector_ = std::thread([this] { collect(); });
}

void ExchangeSource::collect() {
  while (true) {
    auto received = inbox_->receive(0);
    if (!received.status.isOk()) {
      std::lock_guard lock(mutex_);
      error_ = received.status;
      break;
    }
    multiplexer::Message* message = received.message;
    if (message == nullptr) break;  // every sender finished
    if (message->payloadSize() > 0) {
      std::string payload(reinterpret_cast<const char*>(message->payload()), message->payloadSize());
      messages_.fetch_add(1, std::memory_order_relaxed);
      bytes_.fetch_add(payload.size(), std::memory_order_relaxed);
      std::lock_guard lock(mutex_);
      payloads_.push_back(std::move(payload));
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
    }
  }
  decodeRows(layout_, std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes->data()), bytes->size()),
             consume);
}

}  // namespace shoal::exchange
