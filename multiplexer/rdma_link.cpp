#include "multiplexer/rdma_link.h"

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cstring>

#include "common/check.h"
#include "multiplexer/rdma_transport.h"

namespace shoal::multiplexer {
namespace {

/// Send work-request ids carry a sequence number with this bit set; receive
/// ids are message pointers, which never have it.
constexpr uint64_t kSendTag = uint64_t{1} << 63;
constexpr uint32_t kSignalEveryControl = 16;

}  // namespace

RdmaLink::RdmaLink(RdmaTransport& transport, rdma_cm_id* id, ibv_cq* cq, NodeId peer, uint32_t peerWindow,
                   uint32_t sendDepth, MessagePool& receivePool)
    : PeerLink(peer, peerWindow),
      transport_(transport),
      id_(id),
      cq_(cq),
      sendDepth_(sendDepth),
      receivePool_(receivePool),
      receiveNumaNode_(peer % receivePool.topology().numNodes()) {}

RdmaLink::~RdmaLink() {
  close();
}

bool RdmaLink::postInitialReceives(uint32_t count, std::string* error) {
  for (uint32_t i = 0; i < count; ++i) {
    Message* message = receivePool_.tryAcquire(receiveNumaNode_);
    if (message == nullptr) {
      *error = "the receive pool has no buffer left for this peer";
      return false;
    }
    if (!postReceive(message, error)) {
      receivePool_.giveBack(message);
      return false;
    }
  }
  return true;
}

void RdmaLink::attach(EventLoop&, LinkEvents& events) {
  events_ = &events;
}

bool RdmaLink::postReceive(Message* message, std::string* error) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(message->frame());
  sge.length = static_cast<uint32_t>(message->bufferBytes());
  sge.lkey = message->memoryKey();
  ibv_recv_wr wr{};
  wr.wr_id = reinterpret_cast<uintptr_t>(message);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  int rc = ibv_post_recv(id_->qp, &wr, &bad);
  if (rc != 0) {
    if (error != nullptr) *error = std::string("ibv_post_recv: ") + std::strerror(rc);
    return false;
  }
  postedReceives_.insert(message);
  return true;
}

void RdmaLink::sendData(Message* message) {
  SHOAL_CHECK(!closed_, "send on a closed link");
  if (!pendingData_.empty() || !postData(message)) pendingData_.push_back(message);
}

void RdmaLink::sendControl(FrameKind kind, uint64_t value) {
  if (closed_) return;
  FrameHeader header;
  header.kind = kind;
  header.value = value;
  std::array<std::byte, kFrameHeaderBytes> frame;
  encodeFrameHeader(header, frame.data());
  if (!pendingControl_.empty() || !postControl(frame)) pendingControl_.push_back(frame);
}

RdmaLink::Posted RdmaLink::postSend(const std::byte* data, uint32_t bytes, uint32_t memoryKey, unsigned flags) {
  uint64_t outstanding = (nextSequence_ - 1) - completedSequence_;
  if (outstanding >= sendDepth_) return Posted::kQueueFull;
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uintptr_t>(data);
  sge.length = bytes;
  sge.lkey = memoryKey;
  ibv_send_wr wr{};
  wr.wr_id = nextSequence_ | kSendTag;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = flags;
  ibv_send_wr* bad = nullptr;
  int rc = ibv_post_send(id_->qp, &wr, &bad);
  if (rc != 0) {
    lose(std::string("ibv_post_send: ") + std::strerror(rc));
    return Posted::kLinkLost;
  }
  ++nextSequence_;
  return Posted::kPosted;
}

bool RdmaLink::postData(Message* message) {
  Posted posted =
      postSend(message->frame(), static_cast<uint32_t>(message->frameBytes()), message->memoryKey(), IBV_SEND_SIGNALED);
  if (posted == Posted::kQueueFull) return false;
  if (posted == Posted::kPosted) {
    inFlight_.push_back({nextSequence_ - 1, message});
  } else if (events_ != nullptr) {
    events_->onSendComplete(*this, message);  // the link is gone; the buffer is free again
  } else {
    message->release();
  }
  return true;
}

bool RdmaLink::postControl(const std::array<std::byte, kFrameHeaderBytes>& frame) {
  // Signal now and then (and when the queue fills) so that unsignaled sends are reclaimed.
  uint64_t outstanding = (nextSequence_ - 1) - completedSequence_;
  bool signal = unsignaledControl_ + 1 >= kSignalEveryControl || outstanding + 1 >= sendDepth_ / 2;
  // Inline data is copied at post time and needs no registered memory.
  Posted posted = postSend(frame.data(), kFrameHeaderBytes, 0, IBV_SEND_INLINE | (signal ? IBV_SEND_SIGNALED : 0));
  if (posted == Posted::kQueueFull) return false;
  unsignaledControl_ = signal ? 0 : unsignaledControl_ + 1;
  return true;
}

void RdmaLink::flushPending() {
  while (!closed_ && !pendingControl_.empty() && postControl(pendingControl_.front())) pendingControl_.pop_front();
  while (!closed_ && !pendingData_.empty() && postData(pendingData_.front())) pendingData_.pop_front();
}

void RdmaLink::pollCompletions() {
  ibv_wc completions[32];
  while (!closed_) {
    int count = ibv_poll_cq(cq_, 32, completions);
    if (count < 0) {
      lose("ibv_poll_cq failed");
      return;
    }
    if (count == 0) break;
    for (int i = 0; i < count && !closed_; ++i) {
      const ibv_wc& completion = completions[i];
      if (completion.status != IBV_WC_SUCCESS) {
        lose(std::string("work completion failed: ") + ibv_wc_status_str(completion.status));
        return;
      }
      if ((completion.wr_id & kSendTag) != 0) {
        onSendCompleted(completion.wr_id & ~kSendTag);
      } else {
        onReceive(completion);
      }
    }
  }
  flushPending();
}

void RdmaLink::armAndPoll(bool busyPoll) {
  if (!busyPoll) ibv_req_notify_cq(cq_, 0);
  pollCompletions();
}

void RdmaLink::onSendCompleted(uint64_t sequence) {
  completedSequence_ = std::max(completedSequence_, sequence);
  while (!inFlight_.empty() && inFlight_.front().sequence <= sequence) {
    Message* message = inFlight_.front().message;
    inFlight_.pop_front();
    events_->onSendComplete(*this, message);
  }
}

void RdmaLink::onReceive(const ibv_wc& completion) {
  auto* message = reinterpret_cast<Message*>(completion.wr_id);
  postedReceives_.erase(message);
  FrameHeader header;
  if (completion.byte_len < kFrameHeaderBytes || !decodeFrameHeader(message->frame(), &header) ||
      (header.kind == FrameKind::kData && completion.byte_len != kFrameHeaderBytes + header.payloadBytes)) {
    receivePool_.giveBack(message);
    lose("protocol violation: malformed frame");
    return;
  }
  if (header.kind != FrameKind::kData) {
    std::string error;
    if (!postReceive(message, &error)) {
      receivePool_.giveBack(message);
      lose(error);
      return;
    }
    events_->onControlFrame(*this, header);
    return;
  }
  message->reset();
  message->setPayloadSize(header.payloadBytes);
  message->setExchangeId(header.value);
  message->setLast((header.flags & kFlagLastMessage) != 0);
  message->setSender(peer());
  message->setConnectionEpoch(epoch());
  events_->onDataFrame(*this, message);
}

void RdmaLink::returnReceiveBuffer(Message* message) {
  std::string error;
  if (closed_ || !postReceive(message, &error)) {
    receivePool_.giveBack(message);
    if (!closed_) lose(error);
  }
}

void RdmaLink::lose(const std::string& reason) {
  if (closed_) return;
  close();
  if (events_ != nullptr) events_->onLinkLost(*this, reason);
}

void RdmaLink::close() {
  if (closed_) return;
  closed_ = true;
  transport_.forget(id_);
  rdma_disconnect(id_);
  if (id_->qp != nullptr) rdma_destroy_qp(id_);
  for (Message* message : postedReceives_) receivePool_.giveBack(message);
  postedReceives_.clear();
  for (SentData& sent : inFlight_) {
    if (events_ != nullptr) {
      events_->onSendComplete(*this, sent.message);
    } else {
      sent.message->release();
    }
  }
  inFlight_.clear();
  for (Message* message : pendingData_) {
    if (events_ != nullptr) {
      events_->onSendComplete(*this, message);
    } else {
      message->release();
    }
  }
  pendingData_.clear();
  ibv_destroy_cq(cq_);
  rdma_destroy_id(id_);
}

}  // namespace shoal::multiplexer
