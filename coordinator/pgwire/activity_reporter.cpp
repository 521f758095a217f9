#include "coordinator/pgwire/activity_reporter.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace shoal::coordinator {
namespace {

/// The client's address and port, as pg_stat_activity's client_addr and client_port show them.
void peerOf(int socket, std::string& address, int32_t& port) {
  sockaddr_storage peer{};
  socklen_t length = sizeof(peer);
  if (::getpeername(socket, reinterpret_cast<sockaddr*>(&peer), &length) != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (peer.ss_family == AF_INET) {
    const auto* ip = reinterpret_cast<const sockaddr_in*>(&peer);
    ::inet_ntop(AF_INET, &ip->sin_addr, text, sizeof(text));
    port = ntohs(ip->sin_port);
  } else if (peer.ss_family == AF_INET6) {
    const auto* ip = reinterpret_cast<const sockaddr_in6*>(&peer);
    ::inet_ntop(AF_INET6, &ip->sin6_addr, text, sizeof(text));
    port = ntohs(ip->sin6_port);
  } else {
    return;  // a Unix socket: no address, port -1
  }
  address = text;
}

std::string stateOf(Session::TransactionState state) {
  switch (state) {
    case Session::TransactionState::kInBlock:
      return "idle in transaction";
    case Session::TransactionState::kFailed:
      return "idle in transaction (aborted)";
    case Session::TransactionState::kIdle:
      break;
  }
  return "idle";
}

}  // namespace

ActivityReporter::ActivityReporter(SessionRegistry& registry, int32_t processId, int socket)
    : registry_(registry), processId_(processId), socket_(socket), backendStart_(SessionRegistry::nowMicros()) {}

ActivityReporter::~ActivityReporter() {
  closed();
}

void ActivityReporter::closed() {
  if (registered_) registry_.remove(processId_);
  registered_ = false;
}

void ActivityReporter::opened(Session& session, const std::string& database) {
  SessionActivity activity;
  activity.processId = processId_;
  activity.database = database;
  activity.user = session.user();
  activity.applicationName = session.settings().show("application_name");
  peerOf(socket_, activity.clientAddress, activity.clientPort);
  activity.backendStart = backendStart_;
  activity.stateChange = SessionRegistry::nowMicros();
  registry_.add(std::move(activity));
  registered_ = true;
}

void ActivityReporter::started(Session& session, std::string query) {
  const bool inBlock = session.transactionState() != Session::TransactionState::kIdle;
  registry_.startQuery(processId_, std::move(query),
                       inBlock ? std::optional<int64_t>(session.transactionStart()) : std::nullopt);
}

void ActivityReporter::waiting(Session& session) {
  const Session::TransactionState state = session.transactionState();
  std::optional<int64_t> transactionStart;
  if (state != Session::TransactionState::kIdle) transactionStart = session.transactionStart();
  registry_.becomeIdle(processId_, stateOf(state), transactionStart, session.settings().show("application_name"));
}

}  // namespace shoal::coordinator
