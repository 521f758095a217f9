#include "proto/internal_tls.h"

#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include <grpcpp/grpcpp.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include "common/status.h"

namespace shoal::proto {
namespace {

constexpr std::string_view kConfigFileError = "F0000";

struct InternalTls {
  std::string ca;
  std::string certificate;
  std::string key;
};

std::mutex& tlsMutex() {
  static std::mutex mutex;
  return mutex;
}

std::optional<InternalTls>& installedTls() {
  static std::optional<InternalTls> tls;
  return tls;
}

std::string readPem(const std::string& path, std::string_view what) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  if (!file || text.str().find("-----BEGIN") == std::string::npos) {
    SHOAL_USER_FAIL(kConfigFileError, "cannot read the {} \"{}\" (a PEM file)", what, path);
  }
  return text.str();
}

}  // namespace

void installInternalTls(const std::string& caFile, const std::string& certificateFile, const std::string& keyFile) {
  InternalTls tls{readPem(caFile, "cluster CA"), readPem(certificateFile, "node certificate"),
                  readPem(keyFile, "node key")};
  std::lock_guard lock(tlsMutex());
  installedTls() = std::move(tls);
}

bool internalTlsInstalled() {
  std::lock_guard lock(tlsMutex());
  return installedTls().has_value();
}

std::shared_ptr<grpc::ChannelCredentials> internalChannelCredentials() {
  std::lock_guard lock(tlsMutex());
  const auto& tls = installedTls();
  if (!tls) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = tls->ca;
  options.pem_private_key = tls->key;
  options.pem_cert_chain = tls->certificate;
  return grpc::SslCredentials(options);
}

std::shared_ptr<grpc::ServerCredentials> internalServerCredentials() {
  std::lock_guard lock(tlsMutex());
  const auto& tls = installedTls();
  if (!tls) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = tls->ca;
  options.pem_key_cert_pairs.push_back({tls->key, tls->certificate});
  return grpc::SslServerCredentials(options);
}

}  // namespace shoal::proto
