#include "exchange/exchange_reader.h"

namespace shoal::exchange {

std::optional<engine::Chunk> ExchangeReader::next(std::chrono::milliseconds timeout) {
  while (true) {
    auto received = inbox_->receive(numaNode_, timeout);
    if (!received.status.isOk()) throw ShoalError(received.status);
    if (received.message == nullptr) return std::nullopt;
    multiplexer::Message* message = received.message;
    if (message->payloadSize() == 0) {  // a sender's empty last message
      message->release();
      continue;
    }
    try {
      engine::Chunk rows = decodeRows(layout_, std::span<const std::byte>(message->payload(), message->payloadSize()));
      message->release();
      return rows;
    } catch (...) {
      message->release();
      throw;
    }
  }
}

}  // namespace shoal::exchange
