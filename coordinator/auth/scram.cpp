#include "coordinator/auth/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <charconv>
#include <vector>

#include "common/status.h"

namespace shoal::coordinator {
namespace {

constexpr int kIterations = 4096;  // PostgreSQL's scram_iterations default
constexpr size_t kSaltBytes = 16;
constexpr size_t kNonceBytes = 18;

std::string randomBytes(size_t count) {
  std::string bytes(count, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(bytes.data()), static_cast<int>(count)) != 1) {
    SHOAL_USER_FAIL(SqlState::kInternalError, "could not generate random bytes for SCRAM");
  }
  return bytes;
}

std::string hmac(std::string_view key, std::string_view message) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
       message.size(), out, &length);
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string sha256(std::string_view bytes) {
  unsigned char out[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), out);
  return std::string(reinterpret_cast<const char*>(out), sizeof(out));
}

/// Hi() of RFC 5802: PBKDF2 with HMAC-SHA-256. PostgreSQL applies SASLprep to the password first; for
/// passwords of printable ASCII, which is what this accepts unchanged, SASLprep is the identity.
std::string saltedPassword(std::string_view password, std::string_view salt, int iterations) {
  std::string out(SHA256_DIGEST_LENGTH, '\0');
  PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()), static_cast<int>(salt.size()), iterations,
                    EVP_sha256(), static_cast<int>(out.size()), reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

/// The value of attribute `name` ("r" in "r=abc") among a message's comma-separated attributes.
std::optional<std::string_view> attribute(std::string_view message, char name) {
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find(',', start);
    if (end == std::string_view::npos) end = message.size();
    std::string_view part = message.substr(start, end - start);
    if (part.size() >= 2 && part[0] == name && part[1] == '=') return part.substr(2);
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace

std::string base64Encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int written =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(written));
  return out;
}

std::optional<std::string> base64Decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  // At most two '=', and only at the end.
  const size_t firstPad = text.find('=');
  if (firstPad != std::string_view::npos &&
      (text.size() - firstPad > 2 || text.find_first_not_of('=', firstPad) != std::string_view::npos)) {
    return std::nullopt;
  }
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '/' && c != '=') return std::nullopt;
  }
  std::string out(3 * text.size() / 4, '\0');
  const int written =
      EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(text.data()),
                      static_cast<int>(text.size()));
  size_t padding = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) ++padding;
  if (written < 0 || static_cast<size_t>(written) < padding) return std::nullopt;
  out.resize(static_cast<size_t>(written) - padding);
  return out;
}

std::string makeScramVerifier(std::string_view password) {
  const std::string salt = randomBytes(kSaltBytes);
  const std::string salted = saltedPassword(password, salt, kIterations);
  const std::string storedKey = sha256(hmac(salted, "Client Key"));
  const std::string serverKey = hmac(salted, "Server Key");
  return "SCRAM-SHA-256$" + std::to_string(kIterations) + ":" + base64Encode(salt) + "$" + base64Encode(storedKey) +
         ":" + base64Encode(serverKey);
}

bool isScramVerifier(std::string_view text) {
  return ScramExchange::validVerifier(text);
}

std::optional<ScramExchange::Verifier> ScramExchange::parse(std::string_view text) {
  constexpr std::string_view kPrefix = "SCRAM-SHA-256$";
  if (!text.starts_with(kPrefix)) return std::nullopt;
  text.remove_prefix(kPrefix.size());
  const size_t colon = text.find(':');
  const size_t dollar = text.find('$');
  const size_t lastColon = text.rfind(':');
  if (colon == std::string_view::npos || dollar == std::string_view::npos || dollar < colon || lastColon < dollar) {
    return std::nullopt;
  }
  Verifier verifier;
  auto [end, error] = std::from_chars(text.data(), text.data() + colon, verifier.iterations);
  if (error != std::errc() || end != text.data() + colon || verifier.iterations < 1) return std::nullopt;
  auto salt = base64Decode(text.substr(colon + 1, dollar - colon - 1));
  auto storedKey = base64Decode(text.substr(dollar + 1, lastColon - dollar - 1));
  auto serverKey = base64Decode(text.substr(lastColon + 1));
  if (!salt || !storedKey || !serverKey || storedKey->size() != SHA256_DIGEST_LENGTH ||
      serverKey->size() != SHA256_DIGEST_LENGTH) {
    return std::nullopt;
  }
  verifier.salt = std::move(*salt);
  verifier.storedKey = std::move(*storedKey);
  verifier.serverKey = std::move(*serverKey);
  return verifier;
}

ScramExchange::ScramExchange(std::string_view user, std::optional<std::string> verifier,
                             std::optional<std::string> channelBinding)
    : channelBinding_(std::move(channelBinding)) {
  if (verifier) {
    if (auto parsed = parse(*verifier)) {
      verifier_ = std::move(*parsed);
      real_ = true;
    }
  }
  if (!real_) {  // a made-up verifier: the proof fails as for a wrong password
    static const std::string kMockSecret = randomBytes(32);
    verifier_.iterations = kIterations;
    verifier_.salt = hmac(kMockSecret, "salt:" + std::string(user)).substr(0, kSaltBytes);
    verifier_.storedKey = randomBytes(SHA256_DIGEST_LENGTH);
    verifier_.serverKey = randomBytes(SHA256_DIGEST_LENGTH);
  }
}

std::optional<std::string> ScramExchange::serverFirst(std::string_view clientFirst, std::string_view mechanism) {
  // gs2 header: "n,," (no channel binding), "y,," (the client could bind but thinks we cannot: a downgrade
  // when we can) or "p=tls-server-end-point,," (SCRAM-SHA-256-PLUS).
  constexpr std::string_view kBound = "p=tls-server-end-point,,";
  const bool plus = mechanism == "SCRAM-SHA-256-PLUS";
  if (plus) {
    if (!channelBinding_ || !clientFirst.starts_with(kBound)) return std::nullopt;
    gs2Header_ = std::string(kBound);
  } else if (mechanism != "SCRAM-SHA-256") {
    return std::nullopt;
  } else if (clientFirst.starts_with("n,,") || (clientFirst.starts_with("y,,") && !channelBinding_)) {
    gs2Header_ = std::string(clientFirst.substr(0, 3));
  } else {
    return std::nullopt;
  }
  clientFirstBare_ = std::string(clientFirst.substr(gs2Header_.size()));
  auto clientNonce = attribute(clientFirstBare_, 'r');
  if (!clientNonce || clientNonce->empty()) return std::nullopt;
  for (char c : *clientNonce) {
    if (c < 0x21 || c > 0x7e || c == ',') return std::nullopt;
  }
  nonce_ = std::string(*clientNonce) + base64Encode(randomBytes(kNonceBytes));
  serverFirst_ = "r=" + nonce_ + ",s=" + base64Encode(verifier_.salt) + ",i=" + std::to_string(verifier_.iterations);
  return serverFirst_;
}

std::optional<std::string> ScramExchange::serverFinal(std::string_view clientFinal) {
  if (serverFirst_.empty()) return std::nullopt;
  const size_t proofAt = clientFinal.rfind(",p=");
  if (proofAt == std::string_view::npos) return std::nullopt;
  const std::string_view withoutProof = clientFinal.substr(0, proofAt);
  auto binding = attribute(withoutProof, 'c');
  auto nonce = attribute(withoutProof, 'r');
  // c= is the header the client sent first, followed by the channel binding data when it binds.
  const std::string expected =
      base64Encode(gs2Header_ + (gs2Header_.starts_with("p=") ? *channelBinding_ : std::string()));
  if (!binding || *binding != expected || !nonce || *nonce != nonce_) return std::nullopt;
  auto proof = base64Decode(clientFinal.substr(proofAt + 3));
  if (!proof || proof->size() != SHA256_DIGEST_LENGTH) return std::nullopt;
  const std::string authMessage = clientFirstBare_ + "," + serverFirst_ + "," + std::string(withoutProof);
  const std::string clientSignature = hmac(verifier_.storedKey, authMessage);
  std::string clientKey(SHA256_DIGEST_LENGTH, '\0');
  for (size_t i = 0; i < clientKey.size(); ++i) clientKey[i] = static_cast<char>((*proof)[i] ^ clientSignature[i]);
  const std::string computed = sha256(clientKey);
  if (!real_ || CRYPTO_memcmp(computed.data(), verifier_.storedKey.data(), computed.size()) != 0) return std::nullopt;
  return "v=" + base64Encode(hmac(verifier_.serverKey, authMessage));
}

}  // namespace shoal::coordinator
