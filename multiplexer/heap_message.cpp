#include "multiplexer/heap_message.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

namespace shoal::multiplexer {
namespace {

/// Copies this large get pages of their own straight from the kernel and give them back when freed. From
/// malloc, freed copies of a stalled exchange would stay resident in its arenas (glibc raises its mmap
/// threshold as large blocks are freed), and a cancelled query's copies would outlive it.
constexpr size_t kMappedCopyBytes = 64 * 1024;

/// Frees a small copy's buffer and the message itself.
class HeapRecycler final : public MessageRecycler {
 public:
  void recycle(Message* message) override {
    delete[] message->frame();
    delete message;
  }
};

/// Unmaps a large copy's buffer and frees the message.
class MappedRecycler final : public MessageRecycler {
 public:
  void recycle(Message* message) override {
    munmap(message->frame(), message->bufferBytes());
    delete message;
  }
};

HeapRecycler heapRecycler;
MappedRecycler mappedRecycler;

}  // namespace

Message* copyToHeap(const Message& message) {
  const size_t bytes = kFrameHeaderBytes + message.payloadSize();
  std::byte* buffer = nullptr;
  MessageRecycler* recycler = &heapRecycler;
  if (bytes >= kMappedCopyBytes) {
    void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    buffer = static_cast<std::byte*>(mapped);
    recycler = &mappedRecycler;
  } else {
    buffer = new std::byte[bytes];
  }
  auto* copy = new Message(buffer, message.payloadSize(), message.numaNode(), 0, recycler);
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
