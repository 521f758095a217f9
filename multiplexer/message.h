#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "multiplexer/wire_format.h"

namespace shoal::multiplexer {

class Message;

/// Where a message goes when its last reference is dropped: back to its pool,
/// or, for a received message, back to the network thread, which returns a
/// credit to the sender and reuses the buffer.
class MessageRecycler {
 public:
  virtual ~MessageRecycler() = default;
  virtual void recycle(Message* message) = 0;
};

/// A fixed-size exchange message (the paper's section 3.2). Its buffer starts
/// with the frame header that travels on the wire, followed by the payload, so
/// that the network sends header and used payload bytes as one contiguous block
/// (one scatter-gather entry for RDMA, one write for TCP). Only the used part is
/// sent. The message is reference counted: a broadcast message is queued once
/// per remote node and returns to its pool when the last send completes.
class Message {
 public:
  Message(std::byte* buffer, size_t payloadCapacity, uint32_t numaNode, uint32_t memoryKey, MessageRecycler* recycler)
      : buffer_(buffer),
        payloadCapacity_(payloadCapacity),
        numaNode_(numaNode),
        memoryKey_(memoryKey),
        recycler_(recycler) {}
  Message(const Message&) = delete;
  Message& operator=(const Message&) = delete;

  std::byte* payload() { return buffer_ + kFrameHeaderBytes; }
  const std::byte* payload() const { return buffer_ + kFrameHeaderBytes; }
  size_t payloadCapacity() const { return payloadCapacity_; }
  uint32_t payloadSize() const { return payloadSize_; }
  void setPayloadSize(uint32_t bytes);

  ExchangeId exchangeId() const { return exchangeId_; }
  void setExchangeId(ExchangeId id) { exchangeId_ = id; }
  /// The last message of one sender for one exchange.
  bool isLast() const { return isLast_; }
  void setLast(bool last) { isLast_ = last; }
  /// The node that produced the message (set by the multiplexer).
  NodeId sender() const { return sender_; }
  void setSender(NodeId sender) { sender_ = sender; }

  uint32_t numaNode() const { return numaNode_; }
  /// The RDMA local key of the registered memory holding the buffer (0 for TCP-only pools).
  uint32_t memoryKey() const { return memoryKey_; }
  void setMemoryKey(uint32_t key) { memoryKey_ = key; }

  /// The header and used payload, as sent on the wire; `writeFrameHeader` fills the header first.
  std::byte* frame() { return buffer_; }
  size_t frameBytes() const { return kFrameHeaderBytes + payloadSize_; }
  size_t bufferBytes() const { return kFrameHeaderBytes + payloadCapacity_; }
  void writeFrameHeader();

  /// Which connection a received message came in on, so that its credit goes
  /// back to that connection and not to a newer one after a reconnect.
  uint64_t connectionEpoch() const { return connectionEpoch_; }
  void setConnectionEpoch(uint64_t epoch) { connectionEpoch_ = epoch; }

  void retain(uint32_t count = 1) { refCount_.fetch_add(count, std::memory_order_relaxed); }
  /// Drops one reference; the last one hands the message to its recycler.
  void release();
  /// Resets the routing fields and takes the single reference of a new owner.
  void reset();

 private:
  std::byte* buffer_;
  size_t payloadCapacity_;
  uint32_t numaNode_;
  uint32_t memoryKey_;
  MessageRecycler* recycler_;
  std::atomic<uint32_t> refCount_{0};
  uint32_t payloadSize_ = 0;
  ExchangeId exchangeId_ = 0;
  NodeId sender_ = 0;
  bool isLast_ = false;
  uint64_t connectionEpoch_ = 0;
};

}  // namespace shoal::multiplexer
