#include "multiplexer/message.h"

#include "common/check.h"

namespace shoal::multiplexer {

void Message::setPayloadSize(uint32_t bytes) {
  SHOAL_CHECK_LE(bytes, payloadCapacity_, "message payload over its capacity");
  payloadSize_ = bytes;
}

void Message::writeFrameHeader() {
  FrameHeader header;
  header.kind = FrameKind::kData;
  header.flags = isLast_ ? kFlagLastMessage : 0;
  header.payloadBytes = payloadSize_;
  header.value = exchangeId_;
  encodeFrameHeader(header, buffer_);
}

void Message::release() {
  uint32_t previous = refCount_.fetch_sub(1, std::memory_order_acq_rel);
  SHOAL_CHECK(previous > 0, "message released more often than retained");
  if (previous == 1) recycler_->recycle(this);
}

void Message::reset() {
  refCount_.store(1, std::memory_order_relaxed);
  payloadSize_ = 0;
  exchangeId_ = 0;
  sender_ = 0;
  isLast_ = false;
  connectionEpoch_ = 0;
}

}  // namespace shoal::multiplexer
