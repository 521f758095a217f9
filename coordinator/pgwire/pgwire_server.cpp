#include "coordinator/pgwire/pgwire_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/status.h"
#include "coordinator/pgwire/message_writer.h"
#include "coordinator/pgwire/pgwire_connection.h"

namespace shoal::coordinator {
namespace {

// How often the accept loop looks at the stop flag.
constexpr int kAcceptPollMs = 200;

void refuseConnection(int socket, std::string_view sqlState, std::string_view message) {
  MessageWriter writer;
  writer.begin('E');
  for (auto [field, value] :
       {std::pair<char, std::string_view>{'S', "FATAL"}, {'V', "FATAL"}, {'C', sqlState}, {'M', message}}) {
    writer.writeByte(static_cast<uint8_t>(field));
    writer.writeString(value);
  }
  writer.writeByte(0);
  writer.end();
  (void)::send(socket, writer.buffer().data(), writer.size(), MSG_NOSIGNAL);
}

}  // namespace

PgwireServer::PgwireServer(PgwireOptions options, ClusterContext& cluster)
    : options_(std::move(options)), cluster_(cluster) {}

PgwireServer::~PgwireServer() {
  stop();
}

void PgwireServer::start() {
  listenSocket_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int enable = 1;
  ::setsockopt(listenSocket_, SOL_SOCKET, SO_REUSEADDR, &enable, sizeof(enable));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(options_.port);
  if (::inet_pton(AF_INET, options_.host.c_str(), &address.sin_addr) != 1) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "invalid pgwire listen address '{}': an IPv4 address is needed",
                    options_.host);
  }
  if (::bind(listenSocket_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(listenSocket_, 128) != 0) {
    int error = errno;
    ::close(listenSocket_);
    listenSocket_ = -1;
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "cannot listen for SQL clients on {}:{}: {}", options_.host,
                    options_.port, std::strerror(error));
  }
  socklen_t length = sizeof(address);
  ::getsockname(listenSocket_, reinterpret_cast<sockaddr*>(&address), &length);
  boundPort_ = ntohs(address.sin_port);
  acceptThread_ = std::thread([this] { acceptLoop(); });
  spdlog::info("accepting PostgreSQL clients on {}:{}", options_.host, boundPort_);
}

void PgwireServer::acceptLoop() {
  while (!stopping_.load()) {
    pollfd listening{listenSocket_, POLLIN, 0};
    int ready = ::poll(&listening, 1, kAcceptPollMs);
    if (ready <= 0) continue;
    int client = ::accept4(listenSocket_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    int enable = 1;
    ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &enable, sizeof(enable));
    std::lock_guard lock(mutex_);
    reapFinishedLocked();
    size_t open = 0;
    size_t startingUp = 0;
    for (const auto& slot : connections_) {
      if (slot.evicted || slot.finished.load()) continue;
      ++open;
      startingUp += slot.connection->inStartup() ? 1 : 0;
    }
    const bool full = open >= options_.maxConnections;
    if ((full || startingUp >= options_.maxStartupConnections) && !makeRoomLocked(startingUp, open) && full) {
      refuseConnection(client, SqlState::kTooManyConnections, "sorry, too many clients already");
      ::close(client);
      continue;
    }
    auto& slot = connections_.emplace_back();
    slot.socket = client;
    slot.connection = std::make_unique<PgwireConnection>(client, *this);
    slot.thread = std::thread([&slot] {
      slot.connection->run();
      ::shutdown(slot.socket, SHUT_RDWR);
      slot.finished.store(true);
    });
  }
}

bool PgwireServer::makeRoomLocked(size_t startingUp, size_t open) {
  ConnectionSlot* oldest = nullptr;
  for (auto& slot : connections_) {  // in accept order: the first one starting up is the oldest
    if (!slot.evicted && !slot.finished.load() && slot.connection->inStartup()) {
      oldest = &slot;
      break;
    }
  }
  if (oldest == nullptr) return false;
  spdlog::warn("dropping a connection still in its startup after {} ms ({} of {} starting up, {} of {} open)",
               oldest->connection->millisecondsSinceAccept(), startingUp, options_.maxStartupConnections, open,
               options_.maxConnections);
  oldest->evicted = true;
  ::shutdown(oldest->socket, SHUT_RDWR);  // its thread's recv returns, and it ends
  return true;
}

void PgwireServer::reapFinishedLocked() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (it->finished.load()) {
      it->thread.join();
      ::close(it->socket);
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
}

namespace {

// More failed logins than this from one address within a window refuse it until the window ends.
constexpr int kMaxFailedLogins = 10;
constexpr auto kLoginWindow = std::chrono::seconds(60);

}  // namespace

PgwireServer::LoginAttempts& PgwireServer::attemptsLocked(const std::string& address) {
  const auto now = std::chrono::steady_clock::now();
  if (loginAttempts_.size() > 10000) {  // forget addresses whose window ended, so the map stays small
    std::erase_if(loginAttempts_, [&](const auto& entry) { return now - entry.second.windowStart >= kLoginWindow; });
  }
  auto& attempts = loginAttempts_[address];
  if (now - attempts.windowStart >= kLoginWindow) attempts = {now, 0};
  return attempts;
}

std::optional<int> PgwireServer::loginBlockedFor(const std::string& address) {
  std::lock_guard lock(loginMutex_);
  const auto& attempts = attemptsLocked(address);
  if (attempts.failures < kMaxFailedLogins) return std::nullopt;
  const auto left = kLoginWindow - (std::chrono::steady_clock::now() - attempts.windowStart);
  return static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(left).count()) + 1;
}

void PgwireServer::recordFailedLogin(const std::string& address) {
  std::lock_guard lock(loginMutex_);
  ++attemptsLocked(address).failures;
}

bool PgwireServer::claimPasswordCheck(const std::string& address) {
  std::lock_guard lock(loginMutex_);
  auto& attempts = attemptsLocked(address);
  if (attempts.failures >= kMaxFailedLogins) return false;
  ++attempts.failures;  // taken back when the password is right
  return true;
}

void PgwireServer::passwordWasRight(const std::string& address) {
  std::lock_guard lock(loginMutex_);
  auto& attempts = attemptsLocked(address);
  if (attempts.failures > 0) --attempts.failures;
}

void PgwireServer::cancel(int32_t processId, int32_t secretKey) {
  std::lock_guard lock(mutex_);
  for (auto& slot : connections_) {
    if (!slot.finished.load() && slot.connection->processId() == processId &&
        slot.connection->secretKey() == secretKey) {
      spdlog::info("cancel request for connection {}", processId);
      slot.connection->cancel();
      return;
    }
  }
}

void PgwireServer::stop() {
  if (stopping_.exchange(true)) return;
  if (acceptThread_.joinable()) acceptThread_.join();
  std::lock_guard lock(mutex_);
  for (auto& slot : connections_) {
    ::shutdown(slot.socket, SHUT_RDWR);  // wakes a connection thread blocked in recv
  }
  for (auto& slot : connections_) {
    slot.thread.join();
    ::close(slot.socket);
  }
  connections_.clear();
  if (listenSocket_ >= 0) ::close(listenSocket_);
  listenSocket_ = -1;
}

}  // namespace shoal::coordinator
