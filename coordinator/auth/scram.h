#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace shoal::coordinator {

// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it, server side. A role's password is kept only as
// PostgreSQL's verifier, "SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>" (base64 parts), so
// pg_authid.rolpassword reads as it does on PostgreSQL, and a verifier made by PostgreSQL's own
// client tools (psql's \password) is accepted as a password as it is.

/// A verifier for `password`, with a fresh random salt and PostgreSQL's 4096 iterations.
std::string makeScramVerifier(std::string_view password);
/// Whether `text` is a SCRAM-SHA-256 verifier (then CREATE ROLE ... PASSWORD keeps it as it is).
bool isScramVerifier(std::string_view text);

/// One login's exchange: the client-first message in, the server-first out; then the client-final in and,
/// when its proof holds, the server-final out. Without a verifier (an unknown role, or one without a
/// password) the exchange runs with a made-up one and fails at the proof, so that a client cannot tell
/// which roles exist: its salt is the same for the same user name at every try (derived, as PostgreSQL's
/// mock salt is, from a secret of the server's and the name) and its iterations are the default.
class ScramExchange {
 public:
  /// `channelBinding`: over TLS, the tls-server-end-point data that SCRAM-SHA-256-PLUS binds the login to.
  ScramExchange(std::string_view user, std::optional<std::string> verifier,
                std::optional<std::string> channelBinding = {});

  /// The server-first message for `clientFirst` ("n,,n=user,r=nonce") of `mechanism` (SCRAM-SHA-256, or
  /// SCRAM-SHA-256-PLUS with "p=tls-server-end-point,,"); nullopt for a malformed one, a binding that does
  /// not fit the mechanism, or a client that says it could bind when this server can ("y,," over TLS).
  std::optional<std::string> serverFirst(std::string_view clientFirst, std::string_view mechanism = "SCRAM-SHA-256");
  /// The server-final message ("v=signature") when `clientFinal`'s proof is right; nullopt otherwise.
  std::optional<std::string> serverFinal(std::string_view clientFinal);

  /// Whether `text` parses as a verifier (iterations, salt and both keys).
  static bool validVerifier(std::string_view text) { return parse(text).has_value(); }

 private:
  struct Verifier {
    int iterations = 0;
    std::string salt;       // raw bytes
    std::string storedKey;  // raw bytes
    std::string serverKey;  // raw bytes
  };
  static std::optional<Verifier> parse(std::string_view verifier);

  Verifier verifier_;
  bool real_ = false;
  std::optional<std::string> channelBinding_;
  std::string gs2Header_;  // "n,,", "y,," or "p=tls-server-end-point,,"
  std::string clientFirstBare_;
  std::string serverFirst_;
  std::string nonce_;
};

std::string base64Encode(std::string_view bytes);
/// nullopt for text that is not base64.
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace shoal::coordinator
