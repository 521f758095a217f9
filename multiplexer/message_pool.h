#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "common/numa_topology.h"
#include "multiplexer/message.h"

namespace shoal::multiplexer {

/// Registers pool memory with a network device once, when the pool grows, so
/// that no message is ever registered on its own. Returns the memory key that
/// messages in that memory carry.
using MemoryRegistrar = std::function<uint32_t(void* base, size_t bytes)>;

struct MessagePoolOptions {
  /// Payload bytes per message (the frame header comes on top).
  size_t messageBytes = 512 * 1024;
  /// At most this many messages exist per NUMA node; `acquire` waits for one
  /// to come back when all are in use. This bounds the pool's memory.
  uint32_t maxMessagesPerNode = 64;
  /// Messages are allocated (and registered) this many at a time.
  uint32_t messagesPerSlab = 8;
};

/// Fixed-size messages per NUMA node, reused rather than freed (the paper's
/// message pool). Any thread may acquire; a message returns here when its last
/// reference is released.
class MessagePool final : public MessageRecycler {
 public:
  MessagePool(NumaTopology topology, MessagePoolOptions options);
  ~MessagePool() override;
  MessagePool(const MessagePool&) = delete;
  MessagePool& operator=(const MessagePool&) = delete;

  /// Registers every slab allocated so far and every future one.
  void setRegistrar(MemoryRegistrar registrar);

  /// A message on `numaNode`, waiting while the node's messages are all in
  /// use. Returns null when `timeout` passes first or the pool is closed.
  Message* acquire(uint32_t numaNode, std::chrono::milliseconds timeout = std::chrono::hours(24));
  /// A message if one is free or may be allocated now, else null.
  Message* tryAcquire(uint32_t numaNode);
  /// Wakes every waiting `acquire` with null, for shutdown.
  void close();

  /// Where released messages go. By default they return to the free list;
  /// a receive pool instead hands them to the network thread (credits, RDMA
  /// reposting), which calls `giveBack` once it is done with a buffer.
  void setReturnHandler(std::function<void(Message*)> handler) { returnHandler_ = std::move(handler); }
  void recycle(Message* message) override;
  void giveBack(Message* message);

  const NumaTopology& topology() const { return topology_; }
  size_t messageBytes() const { return options_.messageBytes; }
  /// Messages currently handed out, over all nodes.
  size_t messagesInUse() const;
  /// Messages ever allocated, over all nodes: the pool's memory is this times the buffer size.
  size_t messagesAllocated() const;

 private:
  struct Slab {
    std::byte* memory;
    size_t bytes;
  };
  struct Node {
    std::vector<Message*> free;
    std::vector<std::unique_ptr<Message>> all;
    std::vector<Slab> slabs;
    size_t inUse = 0;
  };

  Message* takeLocked(uint32_t numaNode);
  void growLocked(uint32_t numaNode);

  NumaTopology topology_;
  MessagePoolOptions options_;
  size_t bufferBytes_;
  mutable std::mutex mutex_;
  std::condition_variable messageReturned_;
  std::vector<Node> nodes_;
  MemoryRegistrar registrar_;
  std::function<void(Message*)> returnHandler_;
  bool closed_ = false;
};

}  // namespace shoal::multiplexer
