// The multiplexer's receive side (multiplexer/tcp_transport.cpp, tcp_link.cpp) and the exchange row decoder
// behind it (exchange/row_format.cpp), driven over a real TCP connection to a real Multiplexer. The harness is
// node 1 of a two-node cluster whose node 0 runs here, fresh for every input.
//
// Input: the first byte chooses the mode. Bit 0 clear: the harness completes the handshake with the cluster
// secret, as a legitimate peer would, then sends the rest as frames (a peer holding the secret must not crash
// the node either). Bit 0 set: the rest goes out raw from the first byte on, against the handshake itself.
// Messages for exchange 1 are then decoded with kFuzzLayout, as an ExchangeSource would.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "common/logging.h"
#include "common/status.h"
#include "exchange/row_format.h"
#include "multiplexer/multiplexer.h"
#include "multiplexer/wire_format.h"
#include "tests/fuzz/sample_rows.h"
#include "tests/fuzz/seed_files.h"

namespace {

using namespace shoal;
using namespace shoal::multiplexer;

constexpr char kClusterId[] = "fuzz-cluster";
constexpr char kSecret[] = "fuzz-secret";
constexpr size_t kMessageBytes = 4096;
constexpr ExchangeId kFuzzExchange = 1;

/// The row layout the harness decodes exchange 1 with: one column of each physical kind.
exchange::RowLayout fuzzLayout() {
  using engine::LogicalType;
  std::vector<LogicalType> types = {
      LogicalType::integer(),      LogicalType::bigInt(),    LogicalType::text(),
      LogicalType::decimal(15, 2), LogicalType::date(),      LogicalType::doublePrecision(),
      LogicalType::boolean(),      LogicalType::timestamp(), LogicalType::interval()};
  return exchange::RowLayout(types, std::vector<bool>(types.size(), true));
}

uint16_t freePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t length = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

bool sendAll(int fd, const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  while (size > 0) {
    ssize_t sent = ::send(fd, bytes, size, MSG_NOSIGNAL);
    if (sent <= 0) return false;
    bytes += sent;
    size -= static_cast<size_t>(sent);
  }
  return true;
}

bool receiveExactly(int fd, std::byte* data, size_t size) {
  while (size > 0) {
    ssize_t got = ::recv(fd, data, size, 0);
    if (got <= 0) return false;
    data += got;
    size -= static_cast<size_t>(got);
  }
  return true;
}

/// Reads (and drops) what node 0 sends until it closes the connection: then it has handled every byte.
void awaitClose(int fd) {
  char buffer[4096];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, 100) <= 0) continue;
    if (::recv(fd, buffer, sizeof(buffer), 0) <= 0) return;
  }
}

/// The handshake of a peer that knows the secret (TcpTransport::connectTo's side).
bool handshake(int fd) {
  std::byte challengeBytes[kChallengeBytes];
  Challenge challenge;
  if (!receiveExactly(fd, challengeBytes, sizeof(challengeBytes)) || !decodeChallenge(challengeBytes, &challenge)) {
    return false;
  }
  Hello hello;
  hello.nodeId = 1;
  hello.receiveWindow = 4;
  hello.messageBytes = kMessageBytes;
  hello.clusterId = kClusterId;
  hello.proof = handshakeProof(kSecret, kClusterId, 1, challenge.nonce);
  std::byte helloBytes[kHelloBytes];
  encodeHello(hello, helloBytes);
  std::byte welcomeBytes[kWelcomeBytes];
  return sendAll(fd, helloBytes, sizeof(helloBytes)) && receiveExactly(fd, welcomeBytes, sizeof(welcomeBytes));
}

std::string frame(FrameKind kind, uint64_t value, uint8_t flags, std::string_view payload = {}) {
  std::string bytes(kFrameHeaderBytes, '\0');
  encodeFrameHeader(FrameHeader{static_cast<uint32_t>(payload.size()), kind, flags, value},
                    reinterpret_cast<std::byte*>(bytes.data()));
  return bytes.append(payload);
}

/// A data frame's payload: `rows` (texts cast to kFuzzLayout's types) as an ExchangeSink encodes them.
std::string encodedRows(const exchange::RowLayout& layout, const std::vector<std::string>& rows) {
  engine::Chunk chunk = fuzz::sampleRows(layout.types(), rows);
  std::string payload(kMessageBytes, '\0');
  exchange::RowWriter writer(layout, std::span<std::byte>(reinterpret_cast<std::byte*>(payload.data()), kMessageBytes));
  for (size_t row = 0; row < chunk.size(); ++row) writer.append(chunk, row);
  payload.resize(writer.finish());
  return payload;
}

/// Seeds: what a peer sends in a query (rows for exchange 1, the last message, control frames) after the
/// handshake, and handshakes that fail.
void writeSeeds(const std::filesystem::path& directory) {
  const exchange::RowLayout layout = fuzzLayout();
  const std::string rows = encodedRows(layout, {"1", "0", "2024-02-29", "1 day", "t"});
  const std::string authenticated(1, '\0');
  fuzz::writeSeed(directory, authenticated + frame(FrameKind::kData, kFuzzExchange, kFlagLastMessage, rows));
  fuzz::writeSeed(directory, authenticated + frame(FrameKind::kPhaseSync, 0, 0) +
                                 frame(FrameKind::kData, kFuzzExchange, 0, rows) + frame(FrameKind::kCredit, 2, 0) +
                                 frame(FrameKind::kData, 2, 0, rows) +
                                 frame(FrameKind::kPhaseDone, 1 | kPhaseBusyBit, 0) +
                                 frame(FrameKind::kData, kFuzzExchange, kFlagLastMessage, rows) +
                                 frame(FrameKind::kHeartbeat, 0, 0) + frame(FrameKind::kGoodbye, 0, 0));
  fuzz::writeSeed(directory, authenticated + frame(FrameKind::kData, kFuzzExchange, kFlagLastMessage));
  Hello stranger;
  stranger.nodeId = 1;
  stranger.receiveWindow = 4;
  stranger.messageBytes = kMessageBytes;
  stranger.clusterId = kClusterId;  // but no proof: it does not know the secret
  std::string hello(kHelloBytes, '\0');
  encodeHello(stranger, reinterpret_cast<std::byte*>(hello.data()));
  fuzz::writeSeed(directory, "\1" + hello + frame(FrameKind::kData, kFuzzExchange, kFlagLastMessage, rows));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  initLogging("error", "fuzz");
  if (auto directory = fuzz::seedDirectory()) {
    writeSeeds(*directory);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const exchange::RowLayout layout = fuzzLayout();
  // SHOAL_FUZZ_VERBOSE=1 tells what each input's messages decoded to: what a seed reaches.
  static const bool verbose = std::getenv("SHOAL_FUZZ_VERBOSE") != nullptr;
  MultiplexerOptions options;
  options.self = 0;
  options.nodes = {NodeAddress{"127.0.0.1", freePort()}, NodeAddress{"127.0.0.1", 9}};
  options.clusterId = kClusterId;
  options.secret = kSecret;
  options.transport = TransportChoice::kTcp;
  options.messageBytes = kMessageBytes;
  options.receiveWindow = 4;
  options.peerTimeout = std::chrono::seconds(30);
  Multiplexer node(options);
  if (!node.start().isOk()) return 0;
  std::shared_ptr<ExchangeInbox> inbox = node.openExchange(kFuzzExchange);

  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(options.nodes[0].port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0) {
    const bool raw = (data[0] & 1) != 0;
    if (raw || handshake(fd)) {
      sendAll(fd, data + 1, size - 1);
      ::shutdown(fd, SHUT_WR);
      awaitClose(fd);
    }
  }
  ::close(fd);

  while (true) {
    ExchangeInbox::Received received = inbox->tryReceive(0);
    if (received.message == nullptr) break;
    try {
      const Message& message = *received.message;
      engine::Chunk rows =
          exchange::decodeRows(layout, std::span<const std::byte>(message.payload(), message.payloadSize()));
      if (verbose) std::fprintf(stderr, "decoded %zu rows\n", rows.size());
    } catch (const ShoalError& error) {
      // A malformed message fails its query (XX001), never the node.
      if (verbose) std::fprintf(stderr, "%s\n", error.what());
    }
    received.message->release();
  }
  inbox.reset();
  node.shutdown(std::chrono::milliseconds(0));
  return 0;
}
