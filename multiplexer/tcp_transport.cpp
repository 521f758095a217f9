#include "multiplexer/tcp_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/check.h"
#include "multiplexer/message_pool.h"
#include "multiplexer/tcp_link.h"

namespace shoal::multiplexer {
namespace {

constexpr int kHandshakeTimeoutMs = 2000;
constexpr int kSocketBufferBytes = 4 * 1024 * 1024;

std::string errnoText() {
  return std::strerror(errno);
}

void setTimeouts(int fd, int milliseconds) {
  timeval tv{milliseconds / 1000, (milliseconds % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

bool writeAll(int fd, const std::byte* data, size_t bytes) {
  while (bytes > 0) {
    ssize_t written = ::send(fd, data, bytes, MSG_NOSIGNAL);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    data += written;
    bytes -= static_cast<size_t>(written);
  }
  return true;
}

bool readAll(int fd, std::byte* data, size_t bytes) {
  while (bytes > 0) {
    ssize_t got = ::recv(fd, data, bytes, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    data += got;
    bytes -= static_cast<size_t>(got);
  }
  return true;
}

std::string peerName(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "?";
  char host[INET6_ADDRSTRLEN] = "?";
  uint16_t port = 0;
  if (address.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
    port = ntohs(in->sin_port);
  } else if (address.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
    port = ntohs(in6->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

void configureDataSocket(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  int bytes = kSocketBufferBytes;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
  setTimeouts(fd, 0);
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

TcpTransport::TcpTransport(LinkIdentity identity) : identity_(std::move(identity)) {}

TcpTransport::~TcpTransport() {
  stop();
}

Status TcpTransport::start(EventLoop& loop, LinkEvents& events, MessagePool& receivePool) {
  loop_ = &loop;
  events_ = &events;
  receivePool_ = &receivePool;
  const NodeAddress& self = identity_.nodes[identity_.self];
  sockaddr_storage address{};
  socklen_t length = 0;
  std::string error;
  if (!resolveNodeAddress(self, &address, &length, &error)) return Status(SqlState::kConnectionFailure, error);
  listenFd_ = socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listenFd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  // Accepted sockets inherit the buffer sizes; setting them before listen lets TCP window-scale for them.
  int bytes = kSocketBufferBytes;
  setsockopt(listenFd_, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
  setsockopt(listenFd_, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
  if (bind(listenFd_, reinterpret_cast<sockaddr*>(&address), length) != 0 || listen(listenFd_, 64) != 0) {
    std::string message = "cannot listen on " + self.toString() + ": " + errnoText();
    ::close(listenFd_);
    listenFd_ = -1;
    return Status(SqlState::kConnectionFailure, message);
  }
  connectionThread_.start(
      listenFd_, [this] { acceptOne(); }, [this](NodeId peer) { finish(connectTo(peer)); });
  return Status::ok();
}

void TcpTransport::stop() {
  connectionThread_.stop();
  if (listenFd_ >= 0) ::close(listenFd_);
  listenFd_ = -1;
  for (Handshaken& done : finished_) {
    if (done.fd >= 0) ::close(done.fd);
  }
  finished_.clear();
}

void TcpTransport::connect(NodeId peer) {
  connectionThread_.requestConnect(peer);
}

void TcpTransport::finish(Handshaken result) {
  {
    std::lock_guard lock(mutex_);
    finished_.push_back(std::move(result));
  }
  loop_->wake();
}

void TcpTransport::acceptOne() {
  int fd = accept4(listenFd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  std::string from = peerName(fd);
  setTimeouts(fd, kHandshakeTimeoutMs);
  auto refuse = [&](const std::string& why) {
    events_->onConnectionRefused("tcp", from, why);
    ::close(fd);
  };
  Challenge challenge;
  challenge.nonce = randomNonce();
  std::byte challengeBytes[kChallengeBytes];
  encodeChallenge(challenge, challengeBytes);
  std::byte helloBytes[kHelloBytes];
  if (!writeAll(fd, challengeBytes, sizeof(challengeBytes)) || !readAll(fd, helloBytes, sizeof(helloBytes))) {
    return refuse("no complete handshake within " + std::to_string(kHandshakeTimeoutMs) + " ms");
  }
  Hello hello;
  if (!decodeHello(helloBytes, &hello)) return refuse("not a Shoal multiplexer handshake (or another version)");
  if (hello.clusterId != identity_.clusterId) {
    return refuse("wrong cluster id '" + hello.clusterId + "' (this cluster is '" + identity_.clusterId + "')");
  }
  if (hello.proof != handshakeProof(identity_.secret, identity_.clusterId, hello.nodeId, challenge.nonce)) {
    return refuse("wrong cluster secret");
  }
  if (hello.nodeId >= identity_.nodes.size() || hello.nodeId == identity_.self) {
    return refuse("node id " + std::to_string(hello.nodeId) + " is not a peer of this node");
  }
  if (hello.messageBytes != identity_.messageBytes) {
    return refuse("message size " + std::to_string(hello.messageBytes) + " differs from this node's " +
                  std::to_string(identity_.messageBytes));
  }
  Welcome welcome{identity_.self, identity_.receiveWindow};
  std::byte welcomeBytes[kWelcomeBytes];
  encodeWelcome(welcome, welcomeBytes);
  if (!writeAll(fd, welcomeBytes, sizeof(welcomeBytes))) return refuse("the connection broke during the handshake");
  configureDataSocket(fd);
  finish(Handshaken{fd, hello.nodeId, hello.receiveWindow, ""});
}

TcpTransport::Handshaken TcpTransport::connectTo(NodeId peer) {
  Handshaken result;
  result.peer = peer;
  const NodeAddress& target = identity_.nodes[peer];
  sockaddr_storage address{};
  socklen_t length = 0;
  if (!resolveNodeAddress(target, &address, &length, &result.error)) return result;
  int fd = socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int bytes = kSocketBufferBytes;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
  auto fail = [&](std::string why) {
    ::close(fd);
    result.error = std::move(why);
    return result;
  };
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), length) != 0) {
    if (errno != EINPROGRESS) return fail("connect to " + target.toString() + ": " + errnoText());
    pollfd pfd{fd, POLLOUT, 0};
    if (::poll(&pfd, 1, kHandshakeTimeoutMs) <= 0) return fail("connect to " + target.toString() + ": timed out");
    int error = 0;
    socklen_t errorLength = sizeof(error);
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &errorLength);
    if (error != 0) return fail("connect to " + target.toString() + ": " + std::strerror(error));
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  setTimeouts(fd, kHandshakeTimeoutMs);
  std::byte challengeBytes[kChallengeBytes];
  Challenge challenge;
  if (!readAll(fd, challengeBytes, sizeof(challengeBytes)) || !decodeChallenge(challengeBytes, &challenge)) {
    return fail("no handshake challenge from " + target.toString());
  }
  Hello hello;
  hello.nodeId = identity_.self;
  hello.receiveWindow = identity_.receiveWindow;
  hello.messageBytes = identity_.messageBytes;
  hello.clusterId = identity_.clusterId;
  hello.proof = handshakeProof(identity_.secret, identity_.clusterId, identity_.self, challenge.nonce);
  std::byte helloBytes[kHelloBytes];
  encodeHello(hello, helloBytes);
  std::byte welcomeBytes[kWelcomeBytes];
  Welcome welcome;
  if (!writeAll(fd, helloBytes, sizeof(helloBytes)) || !readAll(fd, welcomeBytes, sizeof(welcomeBytes)) ||
      !decodeWelcome(welcomeBytes, &welcome)) {
    return fail("handshake with " + target.toString() + " refused (see that node's log)");
  }
  if (welcome.nodeId != peer) {
    return fail(target.toString() + " is node " + std::to_string(welcome.nodeId) + ", not node " +
                std::to_string(peer));
  }
  configureDataSocket(fd);
  result.fd = fd;
  result.peerWindow = welcome.receiveWindow;
  return result;
}

void TcpTransport::runPending() {
  std::vector<Handshaken> done;
  {
    std::lock_guard lock(mutex_);
    done.swap(finished_);
  }
  for (Handshaken& result : done) {
    if (result.fd < 0) {
      events_->onConnectFailed(result.peer, result.error);
      continue;
    }
    events_->onLinkUp(
        std::make_unique<TcpLink>(result.fd, result.peer, result.peerWindow, *loop_, *events_, *receivePool_));
  }
}

}  // namespace shoal::multiplexer
