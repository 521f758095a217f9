#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "coordinator/pgwire/activity_reporter.h"
#include "coordinator/pgwire/message_writer.h"
#include "coordinator/pgwire/value_codec.h"
#include "coordinator/query/session.h"

typedef struct ssl_st SSL;

namespace shoal::coordinator {

class PgwireServer;
class StatementTimer;

/// One client connection speaking the PostgreSQL v3 protocol: startup, the
/// simple and the extended query protocols, errors with SQLSTATE and
/// position, and cancellation. Runs on its own thread; a malformed or
/// hostile client ends only its own connection.
class PgwireConnection {
 public:
  PgwireConnection(int socket, PgwireServer& server);
  ~PgwireConnection();

  /// Serves the client until it leaves, misbehaves or the server stops.
  void run();

  /// Forwards a cancel request to the session (any thread).
  void cancel() {
    if (session_) session_->requestCancel();
  }
  int32_t processId() const { return processId_; }
  int32_t secretKey() const { return secretKey_; }
  /// Whether the session runs over TLS.
  bool encrypted() const { return tls_ != nullptr; }
  /// Whether the client has not finished its startup yet (any thread).
  bool inStartup() const { return inStartup_.load(); }
  int64_t millisecondsSinceAccept() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - acceptedAt_)
        .count();
  }

 private:
  /// A bound statement with its parameter values (pgwire's portal).
  struct Portal {
    std::shared_ptr<const PreparedStatement> statement;
    std::vector<engine::Value> parameters;
    std::vector<WireFormat> resultFormats;
    std::optional<StatementOutcome> outcome;  // computed by the first Execute
    size_t rowsSent = 0;
    /// The chunk an Execute with a row limit stopped in, and the first of its rows not yet sent.
    std::optional<engine::Chunk> partialChunk;
    size_t partialRow = 0;
    /// The statement's shoal_queries entry, from the first Execute until its last row (or the portal's end).
    std::optional<QueryLog::Handle> query;
  };

  /// Result of reading the startup phase.
  enum class StartupResult { kReady, kClose };

  StartupResult runStartup();
  /// Logs the client in as the host rules say (authentication.cpp): true once AuthenticationOk is written;
  /// false after a FATAL error was sent, or the client left.
  bool authenticate(const std::string& user, const std::string& database);
  /// The TLS handshake after an SSLRequest, within the startup's deadline; false when it failed.
  bool startTls();
  /// Runs a TLS step of the startup (`step`: SSL_accept or SSL_read) on a non-blocking socket, waiting for
  /// the socket between tries, until the startup's absolute deadline: a client that trickles a TLS record a
  /// byte at a time cannot stretch it. Returns the step's result, or 0 past the deadline or on an error.
  int tlsStartupStep(const std::function<int()>& step);
  /// Reads exactly `size` bytes; false when the client went away, or, in the startup, its deadline passed.
  bool readExact(void* buffer, size_t size);
  /// Reads one message; a length past `maxBytes` (0: the server's cap) ends the connection with 08P01.
  bool readMessage(char& type, std::vector<uint8_t>& body, uint32_t maxBytes = 0);
  void flush();

  void handleSimpleQuery(std::string_view text);
  void handleParse(std::span<const uint8_t> body);
  void handleBind(std::span<const uint8_t> body);
  void handleDescribe(std::span<const uint8_t> body);
  void handleExecute(std::span<const uint8_t> body);
  /// Execute's work on an open portal: runs its statement on the first call, then sends up to maxRows rows.
  void executePortal(Portal& portal, int32_t maxRows);
  void handleClose(std::span<const uint8_t> body);

  /// Binds, plans and runs statement `index` of a simple query under one statement_timeout.
  void prepareAndRun(const std::shared_ptr<const sql::ParsedScript>& script, size_t index);
  void runAndSendAll(const PreparedStatement& statement, QueryLog::Handle& query);
  /// Enters copy-in mode (CopyInResponse) and returns the CopyData stream as COPY's input.
  std::unique_ptr<CopyInput> openCopyIn(size_t numColumns, bool binary);
  /// Sends the notices and setting changes.
  void sendOutcomeMessages(const StatementOutcome& outcome);
  void sendRowDescription(const std::vector<ResultColumn>& columns, const std::vector<WireFormat>& formats);
  /// CommandComplete's tag for a statement that returned `rows` rows: SHOW and EXPLAIN keep theirs, FETCH and
  /// queries carry the count, as PostgreSQL's do.
  static std::string resultTag(const std::string& commandTag, size_t rows);
  /// How shoal_queries names the end of a statement that failed.
  static std::string_view failedState(const ShoalError& error);
  static std::string textOf(const PreparedStatement& statement);
  /// Rethrows `error`, saying why when it is the cancel that statement_timeout caused.
  [[noreturn]] static void throwAsTimeoutIfItWas(const StatementTimer& timer, const ShoalError& error);
  /// Sends rows [begin, end) of the result; returns how many it sent.
  /// Sends up to `maxRows` rows (0: all) of `result` as DataRows, taking its chunks as they come
  /// (a streamed result's rows are sent while the worker still computes the rest). A chunk cut
  /// short by the limit is kept in `partialChunk` and `partialRow` for the next call. Returns
  /// the rows sent; `exhausted` tells whether the result has no rows left.
  size_t sendDataRows(QueryResult& result, size_t maxRows, const std::vector<WireFormat>& formats,
                      std::optional<engine::Chunk>& partialChunk, size_t& partialRow, bool& exhausted);
  /// Sends `result` as COPY TO STDOUT's data (CopyOutResponse, a CopyData per line, CopyDone); returns the rows.
  size_t sendCopyOut(QueryResult& result, const sql::CopyFormat& format);
  /// COPY ... TO STDOUT (FORMAT binary)'s data, after its CopyOutResponse.
  size_t sendBinaryCopyOut(QueryResult& result);
  void sendError(const Status& status);
  /// Reports a failed statement and readies the session for the next one; false when the connection must close.
  bool reportStatementError(const Status& status, bool extended);
  void sendNotice(const Notice& notice);
  void sendReadyForQuery();

  int socket_;
  PgwireServer& server_;
  const std::chrono::steady_clock::time_point acceptedAt_ = std::chrono::steady_clock::now();
  /// The startup's absolute deadline: acceptedAt_ plus the startup timeout.
  const std::chrono::steady_clock::time_point startupDeadline_;
  std::atomic<bool> inStartup_{true};
  /// The session's TLS, after an SSLRequest on a server with --tls-cert; nullptr in the clear.
  SSL* tls_ = nullptr;
  int32_t processId_;
  int32_t secretKey_;
  /// pg_stat_activity's row of this connection; declared before the session, so it goes after it.
  ActivityReporter activity_;
  std::unique_ptr<Session> session_;
  MessageWriter writer_;
  std::map<std::string, Portal> portals_;
  /// After an error in the extended protocol, messages are skipped until Sync.
  bool skipUntilSync_ = false;
};

}  // namespace shoal::coordinator
