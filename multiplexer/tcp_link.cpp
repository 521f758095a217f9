#include "multiplexer/tcp_link.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/check.h"

namespace shoal::multiplexer {
namespace {

/// Small frames are parsed out of this buffer; at most this much of a large payload is copied.
constexpr size_t kStagingBytes = 64 * 1024;
constexpr int kMaxIovecs = 64;
/// Reads per readiness event, so that one busy peer cannot starve the others.
constexpr int kReadsPerEvent = 16;

}  // namespace

TcpLink::TcpLink(int fd, NodeId peer, uint32_t peerWindow, EventLoop& loop, LinkEvents& events,
                 MessagePool& receivePool)
    : PeerLink(peer, peerWindow),
      fd_(fd),
      loop_(loop),
      events_(events),
      receivePool_(receivePool),
      receiveNumaNode_(peer % receivePool.topology().numNodes()),
      staging_(kStagingBytes) {
  loop_.add(fd_, EPOLLIN, [this](uint32_t events) { onEvents(events); });
}

TcpLink::~TcpLink() {
  close();
}

void TcpLink::close() {
  if (closed_) return;
  closed_ = true;
  loop_.remove(fd_);
  ::close(fd_);
  for (Outgoing& out : outgoing_) {
    if (out.message != nullptr) events_.onSendComplete(*this, out.message);
  }
  outgoing_.clear();
  dataInFlight_ = 0;
  if (receiving_ != nullptr) {
    receivePool_.giveBack(receiving_);
    receiving_ = nullptr;
  }
}

void TcpLink::lose(const std::string& reason) {
  if (closed_) return;
  close();
  events_.onLinkLost(*this, reason);
}

void TcpLink::sendData(Message* message) {
  SHOAL_CHECK(!closed_, "send on a closed link");
  Outgoing out;
  out.message = message;
  out.length = message->frameBytes();
  outgoing_.push_back(out);
  ++dataInFlight_;
  if (!wantWrite_ && outgoing_.size() >= kMaxIovecs) flush();
}

void TcpLink::finishSending() {
  finishAfterFlush_ = true;
  if (!closed_ && !wantWrite_) flush();
}

void TcpLink::flushSends() {
  if (!closed_ && !wantWrite_) flush();
}

void TcpLink::sendControl(FrameKind kind, uint64_t value) {
  if (closed_) return;
  Outgoing out;
  FrameHeader header;
  header.kind = kind;
  header.value = value;
  encodeFrameHeader(header, out.control.data());
  out.length = kFrameHeaderBytes;
  // Ahead of every queued data frame that has not started to go out.
  auto position = outgoing_.begin();
  while (position != outgoing_.end() && (position->offset > 0 || position->message == nullptr)) ++position;
  outgoing_.insert(position, out);
  if (!wantWrite_) flush();
}

bool TcpLink::flush() {
  while (!outgoing_.empty()) {
    iovec iov[kMaxIovecs];
    int count = 0;
    for (auto it = outgoing_.begin(); it != outgoing_.end() && count < kMaxIovecs; ++it, ++count) {
      std::byte* base = it->message != nullptr ? it->message->frame() : it->control.data();
      iov[count].iov_base = base + it->offset;
      iov[count].iov_len = it->length - it->offset;
    }
    msghdr message{};
    message.msg_iov = iov;
    message.msg_iovlen = static_cast<size_t>(count);
    // MSG_NOSIGNAL: a peer that went away is an error to report, not a SIGPIPE.
    ssize_t written = ::sendmsg(fd_, &message, MSG_NOSIGNAL);
    if (written < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EINTR) continue;
      std::string reason = std::string("send failed: ") + std::strerror(errno);
      // The peer may have said goodbye before it closed: read what it sent
      // first, so that an orderly departure is not reported as a failure.
      readAvailable();
      lose(reason);
      return false;
    }
    size_t remaining = static_cast<size_t>(written);
    std::vector<Message*> completed;
    while (remaining > 0) {
      Outgoing& front = outgoing_.front();
      size_t left = front.length - front.offset;
      if (remaining < left) {
        front.offset += remaining;
        break;
      }
      remaining -= left;
      if (front.message != nullptr) {
        completed.push_back(front.message);
        --dataInFlight_;
      }
      outgoing_.pop_front();
    }
    for (Message* message : completed) events_.onSendComplete(*this, message);
    if (closed_) return false;
  }
  if (finishAfterFlush_ && outgoing_.empty()) {
    ::shutdown(fd_, SHUT_WR);
    finishAfterFlush_ = false;
  }
  updateInterest();
  return true;
}

void TcpLink::updateInterest() {
  bool want = !outgoing_.empty();
  if (want == wantWrite_) return;
  wantWrite_ = want;
  loop_.modify(fd_, want ? (EPOLLIN | EPOLLOUT) : EPOLLIN);
}

void TcpLink::onEvents(uint32_t events) {
  if (closed_) return;
  if ((events & EPOLLOUT) != 0 && !flush()) return;
  if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0) readAvailable();
}

bool TcpLink::readAvailable() {
  for (int reads = 0; reads < kReadsPerEvent; ++reads) {
    // The rest of a message being received goes straight into its buffer;
    // whatever follows it lands in the staging buffer, so that a large
    // payload is copied only where it shares a read with frames before it.
    iovec iov[2];
    int count = 0;
    bool direct = receiving_ != nullptr && stagedBegin_ == stagedEnd_;
    if (direct) {
      iov[count++] = {receiving_->payload() + receivedBytes_, receivingHeader_.payloadBytes - receivedBytes_};
    }
    if (stagedBegin_ == stagedEnd_) stagedBegin_ = stagedEnd_ = 0;
    if (stagedEnd_ == staging_.size()) {
      std::memmove(staging_.data(), staging_.data() + stagedBegin_, stagedEnd_ - stagedBegin_);
      stagedEnd_ -= stagedBegin_;
      stagedBegin_ = 0;
    }
    iov[count++] = {staging_.data() + stagedEnd_, staging_.size() - stagedEnd_};
    ssize_t got = ::readv(fd_, iov, count);
    if (got == 0) {
      lose("connection closed by the peer");
      return false;
    }
    if (got < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
      if (errno == EINTR) continue;
      lose(std::string("receive failed: ") + std::strerror(errno));
      return false;
    }
    size_t bytes = static_cast<size_t>(got);
    if (direct) {
      size_t intoMessage = std::min(bytes, iov[0].iov_len);
      receivedBytes_ += intoMessage;
      bytes -= intoMessage;
      if (receivedBytes_ == receivingHeader_.payloadBytes) deliverReceiving();
      if (closed_) return false;
    }
    stagedEnd_ += bytes;
    if (!parseStaged()) return false;
    if (closed_) return false;
  }
  return true;
}

bool TcpLink::parseStaged() {
  while (stagedBegin_ < stagedEnd_) {
    if (receiving_ != nullptr) {
      size_t take = std::min(stagedEnd_ - stagedBegin_, receivingHeader_.payloadBytes - receivedBytes_);
      std::memcpy(receiving_->payload() + receivedBytes_, staging_.data() + stagedBegin_, take);
      stagedBegin_ += take;
      receivedBytes_ += take;
      if (receivedBytes_ == receivingHeader_.payloadBytes) deliverReceiving();
      if (closed_) return false;
      continue;
    }
    if (stagedEnd_ - stagedBegin_ < kFrameHeaderBytes) break;
    FrameHeader header;
    if (!decodeFrameHeader(staging_.data() + stagedBegin_, &header)) {
      lose("protocol violation: malformed frame header");
      return false;
    }
    stagedBegin_ += kFrameHeaderBytes;
    if (!beginFrame(header)) return false;
  }
  return true;
}

bool TcpLink::beginFrame(const FrameHeader& header) {
  if (header.kind != FrameKind::kData) {
    events_.onControlFrame(*this, header);
    return !closed_;
  }
  if (header.payloadBytes > receivePool_.messageBytes()) {
    lose("protocol violation: message larger than the agreed message size");
    return false;
  }
  receiving_ = receivePool_.tryAcquire(receiveNumaNode_);
  if (receiving_ == nullptr) {
    lose("protocol violation: the peer sent beyond its credits");
    return false;
  }
  receivingHeader_ = header;
  receivedBytes_ = 0;
  if (header.payloadBytes == 0) deliverReceiving();
  return !closed_;
}

void TcpLink::deliverReceiving() {
  Message* message = receiving_;
  receiving_ = nullptr;
  message->setPayloadSize(receivingHeader_.payloadBytes);
  message->setExchangeId(receivingHeader_.value);
  message->setLast((receivingHeader_.flags & kFlagLastMessage) != 0);
  message->setSender(peer());
  message->setConnectionEpoch(epoch());
  events_.onDataFrame(*this, message);
}

void TcpLink::returnReceiveBuffer(Message* message) {
  receivePool_.giveBack(message);
}

}  // namespace shoal::multiplexer
