#pragma once

#include <cstdint>
#include <string>

#include "coordinator/query/session.h"
#include "coordinator/query/session_registry.h"

namespace shoal::coordinator {

/// Tells the coordinator's SessionRegistry what one connection's session does, as PostgreSQL's backends
/// report to pg_stat_activity: opened, running a statement, waiting for its client. Its entry goes when
/// the reporter does.
class ActivityReporter {
 public:
  ActivityReporter(SessionRegistry& registry, int32_t processId, int socket);
  ~ActivityReporter();
  ActivityReporter(const ActivityReporter&) = delete;
  ActivityReporter& operator=(const ActivityReporter&) = delete;

  /// The session started (its login done): it appears, idle.
  void opened(Session& session, const std::string& database);
  /// A statement starts running.
  void started(Session& session, std::string query);
  /// The session waits for its client (ReadyForQuery).
  void waiting(Session& session);
  /// The connection ended: the session is gone at once (the connection object itself goes later).
  void closed();

 private:
  SessionRegistry& registry_;
  int32_t processId_;
  int socket_;
  int64_t backendStart_;
  bool registered_ = false;
};

}  // namespace shoal::coordinator
