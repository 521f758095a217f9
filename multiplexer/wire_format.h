#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace shoal::multiplexer {

using NodeId = uint32_t;
/// Names one logical exchange operator of one query, cluster-wide.
using ExchangeId = uint64_t;

/// What a frame on a connection carries. Data frames carry a message; the
/// others are the small control frames of flow control, the round-robin
/// schedule and liveness, sent inline on RDMA and with TCP_NODELAY on TCP.
enum class FrameKind : uint8_t {
  kData = 1,
  kCredit = 2,     // value: receive buffers the sender of this frame has freed
  kPhaseDone = 3,  // value: schedule phase, and bit 63 set when the sender still has data queued
  kHeartbeat = 4,  // value: unused
  kGoodbye = 5,    // value: unused; the peer is shutting down in order
  kPhaseSync = 6,  // value: the sender's current schedule phase, sent once a connection is up
};

inline constexpr uint8_t kFlagLastMessage = 1;
inline constexpr uint64_t kPhaseBusyBit = uint64_t{1} << 63;

/// The 16 bytes in front of every frame, little-endian:
/// payload bytes (u32), kind (u8), flags (u8), reserved (u16), value (u64:
/// the exchange id of a data frame, or a control frame's argument).
struct FrameHeader {
  uint32_t payloadBytes = 0;
  FrameKind kind = FrameKind::kData;
  uint8_t flags = 0;
  uint64_t value = 0;
};
inline constexpr size_t kFrameHeaderBytes = 16;

void encodeFrameHeader(const FrameHeader& header, std::byte* out);
/// False when the bytes are not a frame header (an unknown kind).
bool decodeFrameHeader(const std::byte* in, FrameHeader* header);
const char* frameKindName(FrameKind kind);

/// The connection handshake. The accepting side sends a challenge with a
/// random nonce; the connecting side answers with its identity and an
/// HMAC-SHA256 over cluster id, node id and nonce keyed by the cluster secret;
/// the acceptor checks both and sends its own identity back, or closes.
inline constexpr uint32_t kHandshakeMagic = 0x4c414f53;  // "SOAL" little-endian
inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr size_t kClusterIdMaxBytes = 64;

struct Challenge {
  std::array<uint8_t, 16> nonce{};
};

struct Hello {
  NodeId nodeId = 0;
  uint32_t receiveWindow = 0;
  uint32_t messageBytes = 0;
  std::string clusterId;
  std::array<uint8_t, 32> proof{};
};

struct Welcome {
  NodeId nodeId = 0;
  uint32_t receiveWindow = 0;
};

inline constexpr size_t kChallengeBytes = 8 + 16;
inline constexpr size_t kHelloBytes = 8 + 12 + 1 + kClusterIdMaxBytes + 32;
inline constexpr size_t kWelcomeBytes = 8 + 8;

void encodeChallenge(const Challenge& challenge, std::byte* out);
bool decodeChallenge(const std::byte* in, Challenge* challenge);
void encodeHello(const Hello& hello, std::byte* out);
bool decodeHello(const std::byte* in, Hello* hello);
void encodeWelcome(const Welcome& welcome, std::byte* out);
bool decodeWelcome(const std::byte* in, Welcome* welcome);

/// HMAC-SHA256(secret, clusterId || nodeId || nonce).
std::array<uint8_t, 32> handshakeProof(const std::string& secret, const std::string& clusterId, NodeId nodeId,
                                       const std::array<uint8_t, 16>& nonce);
std::array<uint8_t, 16> randomNonce();

}  // namespace shoal::multiplexer

namespace shoal::multiplexer {

/// The RDMA handshake travels in rdma_cm's private data, at most 56 bytes for
/// a connect request, so it is compact and has no acceptor nonce: magic (u32),
/// version (u16), receive window (u16), node id (u32), message bytes (u32),
/// FNV-1a hash of the cluster id (u64), the connector's nonce (16 bytes) and the
/// first 16 bytes of the proof over that nonce.
struct RdmaConnectRequest {
  NodeId nodeId = 0;
  uint32_t receiveWindow = 0;
  uint32_t messageBytes = 0;
  uint64_t clusterIdHash = 0;
  std::array<uint8_t, 16> nonce{};
  std::array<uint8_t, 16> proof{};
};
inline constexpr size_t kRdmaConnectRequestBytes = 56;

void encodeRdmaConnectRequest(const RdmaConnectRequest& request, std::byte* out);
bool decodeRdmaConnectRequest(const std::byte* in, size_t bytes, RdmaConnectRequest* request);
uint64_t clusterIdHash(const std::string& clusterId);

}  // namespace shoal::multiplexer
