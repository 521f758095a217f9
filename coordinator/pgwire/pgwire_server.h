#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "coordinator/auth/host_rules.h"
#include "coordinator/auth/tls_context.h"
#include "coordinator/cluster/cluster_context.h"

namespace shoal::coordinator {

class PgwireConnection;

struct PgwireOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 5433;  // 0: any free port
  size_t maxConnections = 100;
  /// A client must finish its startup (startup packet, and a login when there is one) within this time from
  /// its connect, however it trickles its bytes (PostgreSQL's authentication_timeout).
  int startupTimeoutSeconds = 60;
  /// At most this many connections may be in their startup at once: when a new one would exceed it, the one
  /// that has been starting up longest is dropped, so that idle or trickling sockets never lock out a client
  /// that completes its startup in milliseconds.
  size_t maxStartupConnections = 20;
  /// Largest message a client may send; larger ones end the connection (08P01).
  uint32_t maxMessageBytes = 256u << 20;
  /// Who may log in, and how (--hba-file; without one, HostRules::defaults()).
  HostRules hostRules = HostRules::defaults();
  /// TLS on the SQL port (--tls-cert, --tls-key); null: clients are answered 'N' to SSLRequest.
  std::shared_ptr<TlsContext> tls;
};

/// Accepts PostgreSQL clients and serves each on its own thread. Routes
/// CancelRequests (which arrive on a new connection) to the target session.
class PgwireServer {
 public:
  PgwireServer(PgwireOptions options, ClusterContext& cluster);
  ~PgwireServer();

  /// Binds and starts accepting; fails with a clear message if the port is taken.
  void start();
  /// Stops accepting, closes every connection and joins their threads.
  void stop();
  /// The port actually bound (useful with port 0).
  uint16_t port() const { return boundPort_; }

  const PgwireOptions& options() const { return options_; }
  ClusterContext& cluster() const { return cluster_; }
  /// Delivers a cancel request; ignored unless the key matches, as in PostgreSQL.
  void cancel(int32_t processId, int32_t secretKey);
  /// A new backend process id for a connection.
  int32_t nextProcessId() { return nextProcessId_.fetch_add(1); }
  /// The seconds `address` must wait before it may try to log in again, when it failed too often lately.
  std::optional<int> loginBlockedFor(const std::string& address);
  /// Counts a failed login from `address` (a rejecting rule, a role that may not log in; any thread).
  void recordFailedLogin(const std::string& address);
  /// Before a password is checked: counts it as failed up front, so that logins running at once cannot all
  /// check a guess past the limit; false (and nothing checked) when the limit is reached.
  bool claimPasswordCheck(const std::string& address);
  /// The claimed check found the password right: it does not count.
  void passwordWasRight(const std::string& address);

 private:
  struct ConnectionSlot {
    int socket;
    std::unique_ptr<PgwireConnection> connection;
    std::thread thread;
    std::atomic<bool> finished{false};
    /// Its socket was shut down to make room: it no longer counts against either limit.
    bool evicted = false;
  };

  void acceptLoop();
  void reapFinishedLocked();
  /// Drops the connection that has been in its startup longest when `startingUp` connections are, or all
  /// `open` ones are taken, so that a new client fits; false when none is in its startup.
  bool makeRoomLocked(size_t startingUp, size_t open);

  PgwireOptions options_;
  ClusterContext& cluster_;
  int listenSocket_ = -1;
  uint16_t boundPort_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int32_t> nextProcessId_{1000};
  std::thread acceptThread_;
  std::mutex mutex_;
  std::list<ConnectionSlot> connections_;  // guarded by mutex_
  /// Failed logins per client address within the current window.
  struct LoginAttempts {
    std::chrono::steady_clock::time_point windowStart;
    int failures = 0;
  };
  /// `address`'s count, starting a new window when the last one ended. Needs loginMutex_.
  LoginAttempts& attemptsLocked(const std::string& address);
  std::mutex loginMutex_;
  std::map<std::string, LoginAttempts> loginAttempts_;  // guarded by loginMutex_
};

}  // namespace shoal::coordinator
