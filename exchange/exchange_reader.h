#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "engine/vector/chunk.h"
#include "exchange/row_format.h"
#include "multiplexer/exchange_inbox.h"

namespace shoal::exchange {

/// The consuming end of a decoupled exchange on one thread: takes the next
/// message from the exchange's inbox (its NUMA node's queue first, stealing
/// from the others when that is empty), decodes its rows into a chunk and
/// releases the message at once, so its receive buffer and credit go back.
class ExchangeReader {
 public:
  ExchangeReader(std::shared_ptr<multiplexer::ExchangeInbox> inbox, const RowLayout& layout, uint32_t numaNode)
      : inbox_(std::move(inbox)), layout_(layout), numaNode_(numaNode) {}

  /// The rows of the next message, or nullopt once every sender has finished. Fails with the
  /// stream's error (08006 for a lost sender, or after `timeout` without a message).
  std::optional<engine::Chunk> next(std::chrono::milliseconds timeout);

 private:
  std::shared_ptr<multiplexer::ExchangeInbox> inbox_;
  const RowLayout& layout_;
  uint32_t numaNode_;
};

}  // namespace shoal::exchange
