#include "multiplexer/heap_message.h"

#include <cstring>

namespace shoal::multiplexer {
namespace {

/// Frees a heap copy's buffer and the message itself.
class HeapRecycler final : public MessageRecycler {
 public:
  void recycle(Message* message) override {
    delete[] message->frame();
    delete message;
  }
};

HeapRecycler heapRecycler;

}  // namespace

Message* copyToHeap(const Message& message) {
  auto* buffer = new std::byte[kFrameHeaderBytes + message.payloadSize()];
  auto* copy = new Message(buffer, message.payloadSize(), message.numaNode(), 0, &heapRecycler);
  copy->reset();
  copy->setPayloadSize(message.payloadSize());
  std::memcpy(copy->payload(), message.payload(), message.payloadSize());
  copy->setExchangeId(message.exchangeId());
  copy->setLast(message.isLast());
  copy->setSender(message.sender());
  copy->setConnectionEpoch(message.connectionEpoch());
  return copy;
}

}  // namespace shoal::multiplexer
