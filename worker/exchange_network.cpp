#include "worker/exchange_network.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <tuple>

#include <spdlog/spdlog.h>

#include "common/status.h"

namespace shoal::worker {
namespace {

// How long a query waits for peers that are still (re)connecting before its exchanges with them fail.
constexpr auto kReconnectWait = std::chrono::milliseconds(3000);

/// Reserves a free port on `host`: the returned socket stays bound (never listening) for the worker's life, so
/// that no other socket of this machine is handed the port, while each multiplexer binds it again beside it
/// (both set SO_REUSEADDR).
std::pair<int, uint16_t> reserveFreePort(const std::string& host) {
  sockaddr_storage address{};
  socklen_t length = 0;
  std::string error;
  if (!multiplexer::resolveNodeAddress(multiplexer::NodeAddress{host, 0}, &address, &length, &error)) {
    SHOAL_USER_FAIL(SqlState::kConnectionFailure, "cannot resolve exchange host {}: {}", host, error);
  }
  int fd = ::socket(address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) SHOAL_USER_FAIL(SqlState::kConnectionFailure, "cannot open a socket: {}", strerror(errno));
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    int bindError = errno;
    ::close(fd);
    SHOAL_USER_FAIL(SqlState::kConnectionFailure, "cannot find a free exchange port on {}: {}", host,
                    strerror(bindError));
  }
  return {fd, ntohs(address.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&address)->sin6_port
                                                  : reinterpret_cast<sockaddr_in*>(&address)->sin_port)};
}

}  // namespace

ExchangeNetwork::ExchangeNetwork(std::string listenHost, uint16_t port, multiplexer::MultiplexerOptions base)
    : listenHost_(std::move(listenHost)), port_(port), base_(std::move(base)) {
  if (port_ == 0) std::tie(reservedPort_, port_) = reserveFreePort(listenHost_);
}

ExchangeNetwork::~ExchangeNetwork() {
  std::lock_guard lock(mutex_);
  if (multiplexer_) multiplexer_->shutdown(std::chrono::milliseconds(500));
  if (reservedPort_ >= 0) ::close(reservedPort_);
}

std::string ExchangeNetwork::address() const {
  return listenHost_ + ":" + std::to_string(port_);
}

std::shared_ptr<multiplexer::Multiplexer> ExchangeNetwork::forWorkers(const std::vector<std::string>& addresses,
                                                                      const std::vector<uint64_t>& incarnations,
                                                                      uint32_t self) {
  if (self >= addresses.size() || addresses[self] != address()) {
    SHOAL_USER_FAIL(SqlState::kProtocolViolation, "the query's workers do not list this worker ({}) as node {}",
                    address(), self);
  }
  auto multiplexer = multiplexerFor(addresses, incarnations, self);
  // A peer that was cut off and came back is reconnecting (a connect started during the outage may still be
  // timing out): give it a moment rather than fail the query's exchanges at once.
  if (!multiplexer->waitForPeers(kReconnectWait)) {
    spdlog::warn("exchange: not every peer connected within {} ms; exchanges with the missing ones will fail",
                 kReconnectWait.count());
  }
  return multiplexer;
}

void ExchangeNetwork::reset() {
  std::lock_guard lock(mutex_);
  if (!multiplexer_) return;
  spdlog::info("exchange: a worker came back; the coordinator asked for a fresh multiplexer");
  multiplexer_->shutdown(std::chrono::milliseconds(500));
  multiplexer_.reset();
  addresses_.clear();
  incarnations_.clear();
}

std::shared_ptr<multiplexer::Multiplexer> ExchangeNetwork::multiplexerFor(const std::vector<std::string>& addresses,
                                                                          const std::vector<uint64_t>& incarnations,
                                                                          uint32_t self) {
  std::lock_guard lock(mutex_);
  if (multiplexer_ && addresses == addresses_ && incarnations == incarnations_) return multiplexer_;
  if (multiplexer_) {
    spdlog::info("exchange: the workers changed; restarting the multiplexer for {} workers", addresses.size());
    multiplexer_->shutdown(std::chrono::milliseconds(500));
    multiplexer_.reset();
  }
  multiplexer::MultiplexerOptions options = base_;
  options.self = self;
  for (const auto& text : addresses) {
    auto parsed = multiplexer::NodeAddress::parse(text);
    if (!parsed) SHOAL_USER_FAIL(SqlState::kProtocolViolation, "bad exchange address \"{}\"", text);
    options.nodes.push_back(*parsed);
  }
  auto started = std::make_shared<multiplexer::Multiplexer>(std::move(options));
  Status status = started->start();
  if (!status.isOk()) throw ShoalError(status);
  multiplexer_ = std::move(started);
  addresses_ = addresses;
  incarnations_ = incarnations;
  return multiplexer_;
}

}  // namespace shoal::worker
