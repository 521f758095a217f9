#include "proto/internal_auth.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <mutex>

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/client_interceptor.h>
#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "common/status.h"
#include "proto/internal_tls.h"

namespace shoal::proto {
namespace {

constexpr const char* kTokenMetadataKey = "x-shoal-cluster-token";
constexpr size_t kGeneratedSecretBytes = 32;

struct InstalledSecret {
  std::mutex mutex;
  std::string secret;
  /// HMAC-SHA256(secret, a fixed label), hex: what calls present. Derived, so that a token seen on a
  /// plaintext channel does not give away the secret the multiplexer's handshake also uses.
  std::string token;
};

InstalledSecret& installed() {
  static InstalledSecret state;
  return state;
}

std::string deriveToken(const std::string& secret) {
  static constexpr std::string_view kLabel = "shoal internal gRPC token v1";
  std::array<uint8_t, 32> digest{};
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const uint8_t*>(kLabel.data()),
       kLabel.size(), digest.data(), &length);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string currentToken() {
  std::lock_guard lock(installed().mutex);
  return installed().token;
}

/// Adds the cluster token to the initial metadata of every call of a channel.
class TokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit TokenInterceptor(std::string token) : token_(std::move(token)) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({kTokenMetadataKey, token_});
    }
    methods->Proceed();
  }

 private:
  std::string token_;
};

class TokenInterceptorFactory final : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateClientInterceptor(grpc::experimental::ClientRpcInfo*) override {
    return new TokenInterceptor(currentToken());
  }
};

}  // namespace

std::string readClusterSecretFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue,
                    "cannot read the cluster secret file \"{}\": {} (make one with: shoal secret init FILE)", path,
                    strerror(errno));
  }
  struct stat info {};
  std::string secret;
  if (::fstat(fd, &info) == 0) {
    if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
      ::close(fd);
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue,
                      "the cluster secret file \"{}\" is readable by others than its owner (chmod 600 it)", path);
    }
    char buffer[4096];
    for (ssize_t got; (got = ::read(fd, buffer, sizeof(buffer))) > 0;) secret.append(buffer, static_cast<size_t>(got));
  }
  ::close(fd);
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.size() < kMinClusterSecretBytes) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "the cluster secret in \"{}\" is shorter than {} bytes", path,
                    kMinClusterSecretBytes);
  }
  return secret;
}

void writeClusterSecretFile(const std::string& path) {
  std::array<uint8_t, kGeneratedSecretBytes> random{};
  if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1) {
    SHOAL_USER_FAIL(SqlState::kInternalError, "cannot draw random bytes for a cluster secret");
  }
  std::string hex;
  for (uint8_t byte : random) hex += fmt::format("{:02x}", byte);
  hex += '\n';
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "cannot create the cluster secret file \"{}\": {}", path,
                    strerror(errno));
  }
  bool written = ::write(fd, hex.data(), hex.size()) == static_cast<ssize_t>(hex.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!written) SHOAL_USER_FAIL(SqlState::kIoError, "cannot write the cluster secret file \"{}\"", path);
}

void installClusterSecret(const std::string& secret) {
  std::lock_guard lock(installed().mutex);
  installed().secret = secret;
  installed().token = deriveToken(secret);
}

std::string clusterSecret() {
  std::lock_guard lock(installed().mutex);
  return installed().secret;
}

std::shared_ptr<grpc::Channel> createInternalChannel(const std::string& address,
                                                     const grpc::ChannelArguments& arguments) {
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<TokenInterceptorFactory>());
  return grpc::experimental::CreateCustomChannelWithInterceptors(address, internalChannelCredentials(), arguments,
                                                                 std::move(interceptors));
}

grpc::Status checkInternalCall(const grpc::ServerContext& context) {
  std::string expected = currentToken();
  const auto& metadata = context.client_metadata();
  auto presented = metadata.find(kTokenMetadataKey);
  // Constant time: a wrong token must not reveal how many of its leading characters were right.
  if (!expected.empty() && presented != metadata.end() && presented->second.size() == expected.size() &&
      CRYPTO_memcmp(presented->second.data(), expected.data(), expected.size()) == 0) {
    return grpc::Status::OK;
  }
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "not a member of this cluster (no valid cluster token)");
}

}  // namespace shoal::proto
