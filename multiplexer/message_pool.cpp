#include "multiplexer/message_pool.h"

#include <algorithm>

#include "common/check.h"

namespace shoal::multiplexer {
namespace {

constexpr size_t kBufferAlignment = 4096;

size_t roundUp(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

MessagePool::MessagePool(NumaTopology topology, MessagePoolOptions options)
    : topology_(topology),
      options_(options),
      bufferBytes_(roundUp(kFrameHeaderBytes + options.messageBytes, kBufferAlignment)),
      nodes_(topology.numNodes()) {
  SHOAL_CHECK(options_.messageBytes > 0 && options_.messageBytes <= (size_t{1} << 31), "message size {} out of range",
              options_.messageBytes);
  SHOAL_CHECK(options_.maxMessagesPerNode > 0 && options_.messagesPerSlab > 0, "empty message pool");
}

MessagePool::~MessagePool() {
  for (Node& node : nodes_) {
    for (const Slab& slab : node.slabs) topology_.release(slab.memory, slab.bytes);
  }
}

void MessagePool::setRegistrar(MemoryRegistrar registrar) {
  std::lock_guard lock(mutex_);
  registrar_ = std::move(registrar);
  for (Node& node : nodes_) {
    for (size_t slabIndex = 0; slabIndex < node.slabs.size(); ++slabIndex) {
      uint32_t key = registrar_(node.slabs[slabIndex].memory, node.slabs[slabIndex].bytes);
      for (auto& message : node.all) {
        std::byte* buffer = message->frame();
        if (buffer >= node.slabs[slabIndex].memory &&
            buffer < node.slabs[slabIndex].memory + node.slabs[slabIndex].bytes) {
          message->setMemoryKey(key);
        }
      }
    }
  }
}

void MessagePool::growLocked(uint32_t numaNode) {
  Node& node = nodes_[numaNode];
  size_t count = std::min<size_t>(options_.messagesPerSlab, options_.maxMessagesPerNode - node.all.size());
  size_t bytes = count * bufferBytes_;
  auto* memory = static_cast<std::byte*>(topology_.allocate(bytes, numaNode));
  node.slabs.push_back({memory, bytes});
  uint32_t key = registrar_ ? registrar_(memory, bytes) : 0;
  for (size_t i = 0; i < count; ++i) {
    node.all.push_back(
        std::make_unique<Message>(memory + i * bufferBytes_, options_.messageBytes, numaNode, key, this));
    node.free.push_back(node.all.back().get());
  }
}

Message* MessagePool::takeLocked(uint32_t numaNode) {
  Node& node = nodes_[numaNode];
  if (node.free.empty() && node.all.size() < options_.maxMessagesPerNode) growLocked(numaNode);
  if (node.free.empty()) return nullptr;
  Message* message = node.free.back();
  node.free.pop_back();
  ++node.inUse;
  message->reset();
  return message;
}

Message* MessagePool::tryAcquire(uint32_t numaNode) {
  SHOAL_CHECK_LT(numaNode, nodes_.size(), "NUMA node out of range");
  std::lock_guard lock(mutex_);
  return closed_ ? nullptr : takeLocked(numaNode);
}

Message* MessagePool::acquire(uint32_t numaNode, std::chrono::milliseconds timeout) {
  SHOAL_CHECK_LT(numaNode, nodes_.size(), "NUMA node out of range");
  std::unique_lock lock(mutex_);
  Message* message = nullptr;
  messageReturned_.wait_for(lock, timeout, [&] {
    if (closed_) return true;
    message = takeLocked(numaNode);
    return message != nullptr;
  });
  return message;
}

void MessagePool::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  messageReturned_.notify_all();
}

void MessagePool::recycle(Message* message) {
  if (returnHandler_) {
    returnHandler_(message);
    return;
  }
  giveBack(message);
}

void MessagePool::giveBack(Message* message) {
  {
    std::lock_guard lock(mutex_);
    Node& node = nodes_[message->numaNode()];
    node.free.push_back(message);
    --node.inUse;
  }
  messageReturned_.notify_all();  // waiters may want different NUMA nodes
}

size_t MessagePool::messagesInUse() const {
  std::lock_guard lock(mutex_);
  size_t total = 0;
  for (const Node& node : nodes_) total += node.inUse;
  return total;
}

size_t MessagePool::messagesAllocated() const {
  std::lock_guard lock(mutex_);
  size_t total = 0;
  for (const Node& node : nodes_) total += node.all.size();
  return total;
}

}  // namespace shoal::multiplexer
