// PgwireConnection's login: the host rules (--hba-file) pick trust, SCRAM-SHA-256 or reject for the client's
// address, user and database; SCRAM runs PostgreSQL's SASL exchange (AuthenticationSASL, SASLContinue,
// SASLFinal) against the role's verifier. Failures end the connection with PostgreSQL's FATAL messages and
// SQLSTATEs, are logged with the client's address, and too many from one address within a minute refuse it
// for the rest of that minute.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <spdlog/spdlog.h>

#include "coordinator/auth/auth_states.h"
#include "coordinator/auth/scram.h"
#include "coordinator/pgwire/message_reader.h"
#include "coordinator/pgwire/pgwire_connection.h"
#include "coordinator/pgwire/pgwire_server.h"

namespace shoal::coordinator {
namespace {

constexpr int32_t kAuthenticationOk = 0;
constexpr int32_t kAuthenticationSasl = 10;
constexpr int32_t kAuthenticationSaslContinue = 11;
constexpr int32_t kAuthenticationSaslFinal = 12;
constexpr std::string_view kScramMechanism = "SCRAM-SHA-256";
constexpr std::string_view kScramPlusMechanism = "SCRAM-SHA-256-PLUS";
// PostgreSQL's PG_MAX_AUTH_TOKEN_LENGTH: no client that has not logged in makes the server hold more.
constexpr uint32_t kMaxAuthMessageBytes = 65535;

/// The client's IPv4 address in host byte order (0 for another family), and its address as text: an IPv6
/// client is known by its own address too, so that the failed-login limit is per client, not shared.
std::pair<uint32_t, std::string> peerAddress(int socket) {
  sockaddr_storage peer{};
  socklen_t length = sizeof(peer);
  if (::getpeername(socket, reinterpret_cast<sockaddr*>(&peer), &length) != 0) return {0, "unknown"};
  if (peer.ss_family == AF_INET6) {
    const auto& address = reinterpret_cast<const sockaddr_in6&>(peer);
    char text[INET6_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET6, &address.sin6_addr, text, sizeof(text));
    return {0, text};
  }
  if (peer.ss_family != AF_INET) return {0, "unknown"};
  const auto& address = reinterpret_cast<const sockaddr_in&>(peer);
  char text[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &address.sin_addr, text, sizeof(text));
  return {ntohl(address.sin_addr.s_addr), text};
}

}  // namespace

bool PgwireConnection::authenticate(const std::string& user, const std::string& database) {
  const auto peer = peerAddress(socket_);
  const auto& address = peer.first;
  const std::string& addressText = peer.second;  // a name, not a structured binding: lambdas capture it
  auto refuse = [&](std::string_view sqlState, const std::string& message, bool countsAsFailure) {
    if (countsAsFailure) server_.recordFailedLogin(addressText);
    spdlog::warn("login refused for user \"{}\", database \"{}\" from {}: {}", user, database, addressText, message);
    sendError(Status(sqlState, message));
    flush();
    return false;
  };
  auto tooMany = [&] {
    const int wait = server_.loginBlockedFor(addressText).value_or(1);
    return refuse(auth_state::kInvalidAuthorization,
                  fmt::format("too many failed logins from {}: try again in {} s", addressText, wait), false);
  };
  if (server_.loginBlockedFor(addressText)) return tooMany();
  const HostRules::Rule* rule = server_.options().hostRules.match(address, encrypted(), database, user);
  const std::string where = fmt::format("host \"{}\", user \"{}\", database \"{}\", {}", addressText, user, database,
                                        encrypted() ? "SSL encryption" : "no encryption");
  if (rule == nullptr) return refuse(auth_state::kInvalidAuthorization, "no pg_hba.conf entry for " + where, true);
  if (rule->method == LoginMethod::kReject) {
    return refuse(auth_state::kInvalidAuthorization, "pg_hba.conf rejects connection for " + where, true);
  }
  const std::optional<RoleEntry> role = server_.cluster().tables.findRole(user);
  if (rule->method == LoginMethod::kScramSha256) {
    const std::string failed = fmt::format("password authentication failed for user \"{}\"", user);
    writer_.begin('R');
    writer_.writeInt32(kAuthenticationSasl);
    if (encrypted()) writer_.writeString(kScramPlusMechanism);  // offered first, as PostgreSQL does
    writer_.writeString(kScramMechanism);
    writer_.writeByte(0);
    writer_.end();
    flush();
    // An unknown role, or one without a password, goes through the exchange all the same and fails at its
    // proof, as on PostgreSQL: a client learns nothing of which roles exist.
    ScramExchange exchange(user, role ? role->password : std::nullopt,
                           encrypted() ? std::optional(server_.options().tls->endPoint()) : std::nullopt);
    std::vector<uint8_t> body;
    char type = 0;
    if (!readMessage(type, body, kMaxAuthMessageBytes)) return false;
    if (type != 'p')
      return refuse(SqlState::kProtocolViolation, "expected SASL response, got message type " + std::string(1, type),
                    false);
    MessageReader initial(body);
    const std::string mechanism(initial.readString());
    if (mechanism != kScramMechanism && !(encrypted() && mechanism == kScramPlusMechanism)) {
      return refuse(SqlState::kProtocolViolation, "client selected an invalid SASL authentication mechanism", false);
    }
    const int32_t length = initial.readInt32();
    if (length < 0 || static_cast<size_t>(length) > initial.remaining()) {
      return refuse(SqlState::kProtocolViolation, "malformed SASL message", false);
    }
    auto clientFirst = initial.readBytes(static_cast<size_t>(length));
    auto serverFirst = exchange.serverFirst(
        std::string_view(reinterpret_cast<const char*>(clientFirst.data()), clientFirst.size()), mechanism);
    if (!serverFirst) return refuse(SqlState::kProtocolViolation, "malformed SCRAM message", false);
    writer_.begin('R');
    writer_.writeInt32(kAuthenticationSaslContinue);
    writer_.writeBytes(serverFirst->data(), serverFirst->size());
    writer_.end();
    flush();
    if (!readMessage(type, body, kMaxAuthMessageBytes)) return false;
    if (type != 'p') return refuse(SqlState::kProtocolViolation, "expected SASL response", false);
    // Counted as a failure before the check: logins sent at once cannot all check a guess past the limit.
    if (!server_.claimPasswordCheck(addressText)) return tooMany();
    auto serverFinal = exchange.serverFinal(std::string_view(reinterpret_cast<const char*>(body.data()), body.size()));
    if (!serverFinal) return refuse(auth_state::kInvalidPassword, failed, false);
    server_.passwordWasRight(addressText);
    writer_.begin('R');
    writer_.writeInt32(kAuthenticationSaslFinal);
    writer_.writeBytes(serverFinal->data(), serverFinal->size());
    writer_.end();
  } else if (!role) {
    return refuse(auth_state::kInvalidAuthorization, fmt::format("role \"{}\" does not exist", user), true);
  }
  if (!role->login) {
    return refuse(auth_state::kInvalidAuthorization, fmt::format("role \"{}\" is not permitted to log in", user), true);
  }
  writer_.begin('R');
  writer_.writeInt32(kAuthenticationOk);
  writer_.end();
  return true;
}

}  // namespace shoal::coordinator
