#pragma once

#include <sys/uio.h>

#include <array>
#include <deque>
#include <vector>

#include "multiplexer/message_pool.h"
#include "multiplexer/transport.h"

namespace shoal::multiplexer {

/// One TCP connection to one peer, after the handshake. Writes gather queued
/// frames into one writev; reads go through a staging buffer for small frames
/// and straight into the message buffer for the bulk of a large payload.
class TcpLink final : public PeerLink {
 public:
  TcpLink(int fd, NodeId peer, uint32_t peerWindow, EventLoop& loop, LinkEvents& events, MessagePool& receivePool);
  ~TcpLink() override;

  std::string_view transportName() const override { return "tcp"; }
  void sendData(Message* message) override;
  void sendControl(FrameKind kind, uint64_t value) override;
  size_t dataInFlight() const override { return dataInFlight_; }
  void returnReceiveBuffer(Message* message) override;
  void flushSends() override;
  void finishSending() override;
  void close() override;

 private:
  struct Outgoing {
    std::array<std::byte, kFrameHeaderBytes> control{};
    Message* message = nullptr;  // null for a control frame
    size_t offset = 0;
    size_t length = 0;
  };

  void onEvents(uint32_t events);
  /// False when the link broke (and was reported lost).
  bool flush();
  bool readAvailable();
  bool parseStaged();
  bool beginFrame(const FrameHeader& header);
  void deliverReceiving();
  void updateInterest();
  void lose(const std::string& reason);

  int fd_;
  EventLoop& loop_;
  LinkEvents& events_;
  MessagePool& receivePool_;
  uint32_t receiveNumaNode_;
  bool closed_ = false;
  bool wantWrite_ = false;
  bool finishAfterFlush_ = false;

  std::deque<Outgoing> outgoing_;
  size_t dataInFlight_ = 0;

  std::vector<std::byte> staging_;
  size_t stagedBegin_ = 0;
  size_t stagedEnd_ = 0;
  FrameHeader receivingHeader_;
  Message* receiving_ = nullptr;
  size_t receivedBytes_ = 0;
};

}  // namespace shoal::multiplexer
