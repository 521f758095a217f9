#include "coordinator/auth/tls_context.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "common/status.h"
#include "coordinator/auth/auth_states.h"

namespace shoal::coordinator {
namespace {

std::string opensslError() {
  const unsigned long code = ERR_get_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

std::string certificateEndPoint(X509* certificate) {
  int digestId = NID_undef;
  int keyId = NID_undef;
  const EVP_MD* digest = nullptr;
  if (X509_get_signature_info(certificate, &digestId, &keyId, nullptr, nullptr) == 1 && digestId != NID_md5 &&
      digestId != NID_sha1) {
    digest = EVP_get_digestbynid(digestId);
  }
  if (digest == nullptr) digest = EVP_sha256();
  unsigned char hash[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  X509_digest(certificate, digest, hash, &length);
  return std::string(reinterpret_cast<const char*>(hash), length);
}

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using CertificatePtr = std::unique_ptr<X509, decltype(&X509_free)>;

KeyPtr makeKey() {
  KeyPtr key(EVP_EC_gen("P-256"), &EVP_PKEY_free);
  if (!key) SHOAL_USER_FAIL(auth_state::kConfigFileError, "cannot make a key: {}", opensslError());
  return key;
}

void addExtension(X509* certificate, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  if (extension == nullptr) SHOAL_USER_FAIL(auth_state::kConfigFileError, "bad extension {}", value);
  X509_add_ext(certificate, extension, -1);
  X509_EXTENSION_free(extension);
}

CertificatePtr makeCertificate(EVP_PKEY* key, const std::string& commonName, X509* issuer, EVP_PKEY* issuerKey,
                               bool authority, const std::vector<std::string>& names, long serial) {
  CertificatePtr certificate(X509_new(), &X509_free);
  X509_set_version(certificate.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(certificate.get()), serial);
  X509_gmtime_adj(X509_getm_notBefore(certificate.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(certificate.get()), 60L * 60 * 24 * 825);
  X509_set_pubkey(certificate.get(), key);
  X509_NAME* subject = X509_get_subject_name(certificate.get());
  X509_NAME_add_entry_by_txt(subject, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("Shoal"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(commonName.c_str()),
                             -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : certificate.get();
  X509_set_issuer_name(certificate.get(), X509_get_subject_name(signer));
  if (authority) {
    addExtension(certificate.get(), signer, NID_basic_constraints, "critical,CA:TRUE");
    addExtension(certificate.get(), signer, NID_key_usage, "critical,keyCertSign,cRLSign");
  } else {
    addExtension(certificate.get(), signer, NID_basic_constraints, "critical,CA:FALSE");
    addExtension(certificate.get(), signer, NID_ext_key_usage, "serverAuth,clientAuth");
    std::string alternatives;
    for (const auto& name : names) {
      in_addr address{};
      const bool ip = ::inet_pton(AF_INET, name.c_str(), &address) == 1;
      alternatives += (alternatives.empty() ? "" : ",") + std::string(ip ? "IP:" : "DNS:") + name;
    }
    addExtension(certificate.get(), signer, NID_subject_alt_name, alternatives);
  }
  addExtension(certificate.get(), signer, NID_subject_key_identifier, "hash");
  if (X509_sign(certificate.get(), issuerKey, EVP_sha256()) == 0) {
    SHOAL_USER_FAIL(auth_state::kConfigFileError, "cannot sign a certificate: {}", opensslError());
  }
  return certificate;
}

/// Writes with `write` to a new file `path`, owner-only when `secret`.
template <class Write>
void writeNewFile(const std::filesystem::path& path, bool secret, Write&& write) {
  if (std::filesystem::exists(path)) {
    SHOAL_USER_FAIL(auth_state::kConfigFileError, "{} exists already: certs init never overwrites a file",
                    path.string());
  }
  // O_EXCL: never over an existing file (nor one made meanwhile); a key is owner-only from its first byte.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, secret ? 0600 : 0644);
  FILE* file = fd >= 0 ? ::fdopen(fd, "w") : nullptr;
  if (file == nullptr) {
    if (fd >= 0) ::close(fd);
    SHOAL_USER_FAIL(auth_state::kConfigFileError, "cannot write {}", path.string());
  }
  const bool written = write(file);
  std::fclose(file);
  if (!written) SHOAL_USER_FAIL(auth_state::kConfigFileError, "cannot write {}: {}", path.string(), opensslError());
}

}  // namespace

std::shared_ptr<TlsContext> TlsContext::load(const std::string& certificateFile, const std::string& keyFile) {
  std::shared_ptr<TlsContext> tls(new TlsContext());
  tls->context_ = SSL_CTX_new(TLS_server_method());
  if (tls->context_ == nullptr) SHOAL_USER_FAIL(auth_state::kConfigFileError, "TLS: {}", opensslError());
  SSL_CTX_set_min_proto_version(tls->context_, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(tls->context_, certificateFile.c_str()) != 1) {
    SHOAL_USER_FAIL(auth_state::kConfigFileError, "cannot load the TLS certificate {}: {}", certificateFile,
                    opensslError());
  }
  if (SSL_CTX_use_PrivateKey_file(tls->context_, keyFile.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(tls->context_) != 1) {
    SHOAL_USER_FAIL(auth_state::kConfigFileError, "cannot load the TLS key {} (or it does not match {}): {}", keyFile,
                    certificateFile, opensslError());
  }
  tls->endPoint_ = certificateEndPoint(SSL_CTX_get0_certificate(tls->context_));
  return tls;
}

TlsContext::~TlsContext() {
  if (context_ != nullptr) SSL_CTX_free(context_);
}

void writeClusterCertificates(const std::string& directory, const std::vector<std::string>& hosts) {
  const std::filesystem::path dir(directory);
  std::filesystem::create_directories(dir);
  KeyPtr caKey = makeKey();
  // Each CA's name is its own, so that a client trusting another cluster's CA fails verification plainly.
  unsigned char random[6];
  RAND_bytes(random, sizeof(random));
  std::string suffix;
  for (unsigned char byte : random) suffix += fmt::format("{:02x}", byte);
  CertificatePtr ca = makeCertificate(caKey.get(), "Shoal cluster CA " + suffix, nullptr, caKey.get(), true, {}, 1);
  KeyPtr nodeKey = makeKey();
  std::vector<std::string> names = {"localhost", "127.0.0.1"};
  for (const auto& host : hosts) names.push_back(host);
  CertificatePtr node =
      makeCertificate(nodeKey.get(), names.size() > 2 ? names[2] : "localhost", ca.get(), caKey.get(), false, names, 2);
  writeNewFile(dir / "ca.key", true, [&](FILE* file) {
    return PEM_write_PrivateKey(file, caKey.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1;
  });
  writeNewFile(dir / "ca.crt", false, [&](FILE* file) { return PEM_write_X509(file, ca.get()) == 1; });
  writeNewFile(dir / "node.key", true, [&](FILE* file) {
    return PEM_write_PrivateKey(file, nodeKey.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1;
  });
  writeNewFile(dir / "node.crt", false, [&](FILE* file) { return PEM_write_X509(file, node.get()) == 1; });
}

}  // namespace shoal::coordinator
