#include "multiplexer/wire_format.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstring>
#include <random>

namespace shoal::multiplexer {
namespace {

template <typename T>
void put(std::byte*& out, T value) {
  std::memcpy(out, &value, sizeof(T));  // the wire is little-endian, like every host Shoal supports
  out += sizeof(T);
}

template <typename T>
T get(const std::byte*& in) {
  T value;
  std::memcpy(&value, in, sizeof(T));
  in += sizeof(T);
  return value;
}

void putBytes(std::byte*& out, const uint8_t* bytes, size_t count) {
  std::memcpy(out, bytes, count);
  out += count;
}

void getBytes(const std::byte*& in, uint8_t* bytes, size_t count) {
  std::memcpy(bytes, in, count);
  in += count;
}

bool checkMagic(const std::byte*& in) {
  uint32_t magic = get<uint32_t>(in);
  uint32_t version = get<uint32_t>(in);
  return magic == kHandshakeMagic && version == kProtocolVersion;
}

void putMagic(std::byte*& out) {
  put<uint32_t>(out, kHandshakeMagic);
  put<uint32_t>(out, kProtocolVersion);
}

}  // namespace

void encodeFrameHeader(const FrameHeader& header, std::byte* out) {
  put<uint32_t>(out, header.payloadBytes);
  put<uint8_t>(out, static_cast<uint8_t>(header.kind));
  put<uint8_t>(out, header.flags);
  put<uint16_t>(out, 0);
  put<uint64_t>(out, header.value);
}

bool decodeFrameHeader(const std::byte* in, FrameHeader* header) {
  header->payloadBytes = get<uint32_t>(in);
  uint8_t kind = get<uint8_t>(in);
  header->flags = get<uint8_t>(in);
  get<uint16_t>(in);
  header->value = get<uint64_t>(in);
  if (kind < static_cast<uint8_t>(FrameKind::kData) || kind > static_cast<uint8_t>(FrameKind::kPhaseSync)) return false;
  header->kind = static_cast<FrameKind>(kind);
  return header->kind == FrameKind::kData || header->payloadBytes == 0;
}

const char* frameKindName(FrameKind kind) {
  switch (kind) {
    case FrameKind::kData:
      return "data";
    case FrameKind::kCredit:
      return "credit";
    case FrameKind::kPhaseDone:
      return "phase-done";
    case FrameKind::kHeartbeat:
      return "heartbeat";
    case FrameKind::kGoodbye:
      return "goodbye";
    case FrameKind::kPhaseSync:
      return "phase-sync";
  }
  return "unknown";
}

void encodeChallenge(const Challenge& challenge, std::byte* out) {
  putMagic(out);
  putBytes(out, challenge.nonce.data(), challenge.nonce.size());
}

bool decodeChallenge(const std::byte* in, Challenge* challenge) {
  if (!checkMagic(in)) return false;
  getBytes(in, challenge->nonce.data(), challenge->nonce.size());
  return true;
}

void encodeHello(const Hello& hello, std::byte* out) {
  putMagic(out);
  put<uint32_t>(out, hello.nodeId);
  put<uint32_t>(out, hello.receiveWindow);
  put<uint32_t>(out, hello.messageBytes);
  size_t idBytes = std::min(hello.clusterId.size(), kClusterIdMaxBytes);
  put<uint8_t>(out, static_cast<uint8_t>(idBytes));
  std::memset(out, 0, kClusterIdMaxBytes);
  std::memcpy(out, hello.clusterId.data(), idBytes);
  out += kClusterIdMaxBytes;
  putBytes(out, hello.proof.data(), hello.proof.size());
}

bool decodeHello(const std::byte* in, Hello* hello) {
  if (!checkMagic(in)) return false;
  hello->nodeId = get<uint32_t>(in);
  hello->receiveWindow = get<uint32_t>(in);
  hello->messageBytes = get<uint32_t>(in);
  size_t idBytes = get<uint8_t>(in);
  if (idBytes > kClusterIdMaxBytes) return false;
  hello->clusterId.assign(reinterpret_cast<const char*>(in), idBytes);
  in += kClusterIdMaxBytes;
  getBytes(in, hello->proof.data(), hello->proof.size());
  return true;
}

void encodeWelcome(const Welcome& welcome, std::byte* out) {
  putMagic(out);
  put<uint32_t>(out, welcome.nodeId);
  put<uint32_t>(out, welcome.receiveWindow);
}

bool decodeWelcome(const std::byte* in, Welcome* welcome) {
  if (!checkMagic(in)) return false;
  welcome->nodeId = get<uint32_t>(in);
  welcome->receiveWindow = get<uint32_t>(in);
  return true;
}

std::array<uint8_t, 32> handshakeProof(const std::string& secret, const std::string& clusterId, NodeId nodeId,
                                       const std::array<uint8_t, 16>& nonce) {
  std::string input = clusterId;
  input.append(reinterpret_cast<const char*>(&nodeId), sizeof(nodeId));
  input.append(reinterpret_cast<const char*>(nonce.data()), nonce.size());
  std::array<uint8_t, 32> proof{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const uint8_t*>(input.data()),
       input.size(), proof.data(), &length);
  return proof;
}

std::array<uint8_t, 16> randomNonce() {
  static thread_local std::random_device device;
  std::array<uint8_t, 16> nonce{};
  for (size_t i = 0; i < nonce.size(); i += 4) {
    uint32_t word = device();
    std::memcpy(nonce.data() + i, &word, 4);
  }
  return nonce;
}

void encodeRdmaConnectRequest(const RdmaConnectRequest& request, std::byte* out) {
  put<uint32_t>(out, kHandshakeMagic);
  put<uint16_t>(out, static_cast<uint16_t>(kProtocolVersion));
  put<uint16_t>(out, static_cast<uint16_t>(request.receiveWindow));
  put<uint32_t>(out, request.nodeId);
  put<uint32_t>(out, request.messageBytes);
  put<uint64_t>(out, request.clusterIdHash);
  putBytes(out, request.nonce.data(), request.nonce.size());
  putBytes(out, request.proof.data(), request.proof.size());
}

bool decodeRdmaConnectRequest(const std::byte* in, size_t bytes, RdmaConnectRequest* request) {
  if (bytes < kRdmaConnectRequestBytes) return false;
  if (get<uint32_t>(in) != kHandshakeMagic || get<uint16_t>(in) != kProtocolVersion) return false;
  request->receiveWindow = get<uint16_t>(in);
  request->nodeId = get<uint32_t>(in);
  request->messageBytes = get<uint32_t>(in);
  request->clusterIdHash = get<uint64_t>(in);
  getBytes(in, request->nonce.data(), request->nonce.size());
  getBytes(in, request->proof.data(), request->proof.size());
  return true;
}

uint64_t clusterIdHash(const std::string& clusterId) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : clusterId) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

}  // namespace shoal::multiplexer
