#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "multiplexer/event_loop.h"
#include "multiplexer/message.h"
#include "multiplexer/wire_format.h"

namespace shoal::multiplexer {

class MessagePool;

struct NodeAddress {
  std::string host;
  uint16_t port = 0;

  std::string toString() const { return host + ":" + std::to_string(port); }
  /// Parses "host:port".
  static std::optional<NodeAddress> parse(std::string_view text);
};

/// What every transport needs to know about the cluster and this node.
struct LinkIdentity {
  NodeId self = 0;
  std::vector<NodeAddress> nodes;
  std::string clusterId;
  std::string secret;
  uint32_t receiveWindow = 16;
  uint32_t messageBytes = 512 * 1024;
};

/// Resolves a node's address for a socket or rdma_cm; false (with `error`) when it cannot.
bool resolveNodeAddress(const NodeAddress& address, sockaddr_storage* out, socklen_t* length, std::string* error);

class PeerLink;

/// What a transport reports, always on the network thread.
class LinkEvents {
 public:
  virtual ~LinkEvents() = default;
  /// A connection passed the handshake; the multiplexer owns it from now on.
  virtual void onLinkUp(std::unique_ptr<PeerLink> link) = 0;
  virtual void onConnectFailed(NodeId peer, const std::string& reason) = 0;
  /// A data message arrived (routing fields set, one reference for the callee).
  virtual void onDataFrame(PeerLink& link, Message* message) = 0;
  virtual void onControlFrame(PeerLink& link, const FrameHeader& header) = 0;
  /// A data message handed to `sendData` has left (its buffer may be reused).
  virtual void onSendComplete(PeerLink& link, Message* message) = 0;
  /// The connection broke; no more callbacks come for this link.
  virtual void onLinkLost(PeerLink& link, const std::string& reason) = 0;
  /// A connection failed the handshake (a foreign cluster, a wrong secret, not
  /// Shoal at all). Called on the transport's connection thread.
  virtual void onConnectionRefused(const std::string& transport, const std::string& from, const std::string& why) = 0;
};

/// One established connection to one peer. Used only on the network thread.
class PeerLink {
 public:
  PeerLink(NodeId peer, uint32_t peerReceiveWindow) : peer_(peer), peerReceiveWindow_(peerReceiveWindow) {}
  virtual ~PeerLink() = default;

  NodeId peer() const { return peer_; }
  /// How many data messages the peer can hold unacknowledged: our initial send credits.
  uint32_t peerReceiveWindow() const { return peerReceiveWindow_; }
  uint64_t epoch() const { return epoch_; }
  void setEpoch(uint64_t epoch) { epoch_ = epoch; }

  virtual std::string_view transportName() const = 0;
  /// Sends a data message whose frame header is written. Never blocks:
  /// `onSendComplete` follows once the buffer is free again. The message may
  /// wait until `flushSends`, so that several go out in one system call.
  virtual void sendData(Message* message) = 0;
  /// Starts sending what `sendData` queued.
  virtual void flushSends() {}
  /// No more frames follow (after the goodbye): let the peer see the end of
  /// the stream once everything queued is out, but keep reading, so that
  /// closing later does not reset the connection and lose what we sent.
  virtual void finishSending() {}
  /// Sends a small control frame, ahead of queued data where the transport can.
  virtual void sendControl(FrameKind kind, uint64_t value) = 0;
  /// Data messages handed over but not yet completed.
  virtual size_t dataInFlight() const = 0;
  /// A consumer released a message that arrived on this link: reuse its buffer.
  virtual void returnReceiveBuffer(Message* message) = 0;
  /// Closes the connection quietly (no `onLinkLost`).
  virtual void close() = 0;

 private:
  NodeId peer_;
  uint32_t peerReceiveWindow_;
  uint64_t epoch_ = 0;
};

/// A way to reach peers: TCP sockets or RDMA queue pairs.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual std::string_view name() const = 0;
  /// Starts listening at this node's address. The receive pool provides the
  /// buffers that incoming data lands in.
  virtual Status start(EventLoop& loop, LinkEvents& events, MessagePool& receivePool) = 0;
  /// Starts connecting to `peer`; `onLinkUp` or `onConnectFailed` follows.
  virtual void connect(NodeId peer) = 0;
  /// Runs work that other threads finished (handshakes), on the network thread.
  virtual void runPending() = 0;
  /// Polls completions without waiting (the busy-polling mode); false when the
  /// transport has nothing to poll.
  virtual bool poll() { return false; }
  virtual void stop() = 0;
};

}  // namespace shoal::multiplexer
