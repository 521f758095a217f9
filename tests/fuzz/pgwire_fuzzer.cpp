// The coordinator's PostgreSQL protocol server (coordinator/pgwire) over a real TCP connection: startup,
// the simple and the extended query protocols, COPY, cancel requests, and the statements they carry, run by
// a real coordinator (WorkerLessCoordinator). Every input is one client connection: the harness sends the
// bytes, closes its sending side and reads until the server hangs up, which it must always do.
//
// Input: the first byte chooses the mode. Bit 0 clear: the harness first sends a valid StartupMessage (user
// shoal, statement_timeout 1 s), then the rest as protocol messages. Bit 0 set: the rest goes out raw from
// the first byte on (startup packets, SSLRequest, CancelRequest, garbage).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tests/fuzz/worker_less_coordinator.h"

namespace {

constexpr auto kServerHangUpDeadline = std::chrono::seconds(20);

std::string startupMessage() {
  std::string body;
  auto appendInt32 = [&](uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) body.push_back(static_cast<char>((value >> shift) & 0xff));
  };
  appendInt32(196608);  // protocol 3.0
  for (const char* field : {"user", "shoal", "database", "shoal", "options", "-c statement_timeout=1000"}) {
    body.append(field);
    body.push_back('\0');
  }
  body.push_back('\0');
  std::string message;
  uint32_t length = static_cast<uint32_t>(body.size() + 4);
  for (int shift = 24; shift >= 0; shift -= 8) message.push_back(static_cast<char>((length >> shift) & 0xff));
  return message + body;
}

bool sendAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t sent = ::send(fd, data, size, MSG_NOSIGNAL);
    if (sent <= 0) return false;
    data += sent;
    size -= static_cast<size_t>(sent);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const uint16_t port = shoal::fuzz::WorkerLessCoordinator::instance().pgPort();
  static const std::string startup = startupMessage();
  // SHOAL_FUZZ_VERBOSE=1 copies the server's answers to stderr: what a seed reaches.
  static const bool verbose = std::getenv("SHOAL_FUZZ_VERBOSE") != nullptr;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = -1;
  for (int attempt = 0;; ++attempt) {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) break;
    const int error = errno;
    ::close(fd);
    if (error == EINTR && attempt < 10) continue;  // a signal (libFuzzer's timers) is no finding: try again
    std::fprintf(stderr, "connect to the coordinator's SQL port: %s\n", std::strerror(error));
    std::abort();  // the coordinator stopped serving: that is a finding too
  }
  const bool raw = (data[0] & 1) != 0;
  // The server answers while it reads: sending all first could fill both sockets' buffers and stall. So the
  // harness sends in pieces and drains the answers in between.
  std::string out = raw ? std::string() : startup;
  out.append(reinterpret_cast<const char*>(data + 1), size - 1);
  size_t sent = 0;
  bool sendSideOpen = true;
  char buffer[65536];
  const auto deadline = std::chrono::steady_clock::now() + kServerHangUpDeadline;
  while (true) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "the coordinator did not end a connection within %lld s of the client's last byte\n",
                   static_cast<long long>(kServerHangUpDeadline.count()));
      std::abort();
    }
    if (sendSideOpen && sent == out.size()) {
      ::shutdown(fd, SHUT_WR);
      sendSideOpen = false;
    }
    pollfd ready{fd, static_cast<short>(POLLIN | (sendSideOpen ? POLLOUT : 0)), 0};
    if (::poll(&ready, 1, 100) <= 0) continue;
    if ((ready.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      ssize_t got = ::recv(fd, buffer, sizeof(buffer), 0);
      if (got <= 0) break;  // the server hung up
      if (verbose) std::fwrite(buffer, 1, static_cast<size_t>(got), stderr);
    }
    if (sendSideOpen && (ready.revents & POLLOUT) != 0) {
      size_t piece = std::min<size_t>(out.size() - sent, 16384);
      if (!sendAll(fd, out.data() + sent, piece)) {
        sendSideOpen = false;  // it hung up mid-way (a fatal error): read what it said
      } else {
        sent += piece;
      }
    }
  }
  ::close(fd);
  return 0;
}
