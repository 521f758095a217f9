#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace shoal::coordinator {

/// What one client session is doing, as pg_stat_activity shows it. Times are microseconds since 1970 UTC.
struct SessionActivity {
  int32_t processId = 0;
  std::string database;
  std::string user;
  std::string applicationName;
  std::string clientAddress;  // empty for a Unix socket
  int32_t clientPort = -1;
  int64_t backendStart = 0;
  std::optional<int64_t> transactionStart;
  std::optional<int64_t> queryStart;
  int64_t stateChange = 0;
  /// PostgreSQL's states: "active", "idle", "idle in transaction", "idle in transaction (aborted)".
  std::string state = "idle";
  /// The running statement's text, or the last one's.
  std::string query;
};

/// The coordinator's open client sessions (pg_stat_activity). Each connection thread updates its own entry;
/// readers take a snapshot. Thread-safe.
class SessionRegistry {
 public:
  /// The current time as the registry records it.
  static int64_t nowMicros();

  void add(SessionActivity activity);
  void remove(int32_t processId);
  /// A statement starts: the session is active, running `query` since now (its transaction since
  /// `transactionStart`, or since the same now when the statement is its own transaction).
  void startQuery(int32_t processId, std::string query, std::optional<int64_t> transactionStart);
  /// The session waits for its client again (ReadyForQuery): `state`, with `transactionStart` while a
  /// transaction block is open, and its application_name as it now stands.
  void becomeIdle(int32_t processId, std::string state, std::optional<int64_t> transactionStart,
                  std::string applicationName);
  std::vector<SessionActivity> snapshot() const;

 private:
  mutable std::mutex mutex_;
  std::map<int32_t, SessionActivity> sessions_;  // by backend process id
};

}  // namespace shoal::coordinator
