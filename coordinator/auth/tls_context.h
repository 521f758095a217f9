#pragma once

#include <memory>
#include <string>
#include <vector>

typedef struct ssl_ctx_st SSL_CTX;

namespace shoal::coordinator {

/// The SQL port's TLS: the server certificate and key (--tls-cert, --tls-key, PEM), loaded once, and the
/// certificate's hash that SCRAM-SHA-256-PLUS binds a login to (RFC 5929's tls-server-end-point).
class TlsContext {
 public:
  /// Fails with F0000 when either file cannot be read or the key does not match the certificate.
  static std::shared_ptr<TlsContext> load(const std::string& certificateFile, const std::string& keyFile);
  ~TlsContext();

  SSL_CTX* context() const { return context_; }
  /// The tls-server-end-point channel binding data: the certificate hashed with its signature's hash
  /// (SHA-256 for MD5 and SHA-1 signatures).
  const std::string& endPoint() const { return endPoint_; }

 private:
  TlsContext() = default;

  SSL_CTX* context_ = nullptr;
  std::string endPoint_;
};

/// `shoal certs init DIR`: a private CA (ca.crt, ca.key) and a node certificate signed by it (node.crt,
/// node.key) valid for localhost, 127.0.0.1 and each of `hosts`, for a test or a small cluster. Keys are
/// P-256, written owner-only; an existing file is never overwritten (F0000).
void writeClusterCertificates(const std::string& directory, const std::vector<std::string>& hosts);

}  // namespace shoal::coordinator
