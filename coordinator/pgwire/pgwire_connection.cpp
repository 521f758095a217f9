#include "coordinator/pgwire/pgwire_connection.h"
#include "coordinator/pgwire/value_codec.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <random>

#include <spdlog/spdlog.h>

#include "coordinator/pgwire/message_reader.h"
#include "coordinator/pgwire/pgwire_server.h"
#include "coordinator/pgwire/startup_options.h"
#include "coordinator/query/copy_out_writer.h"
#include "coordinator/query/statement_timer.h"

namespace shoal::coordinator {
namespace {

// Startup packet codes (protocol "versions" that are really requests).
constexpr int32_t kProtocolVersion3 = 196608;  // 3.0
constexpr int32_t kSslRequestCode = 80877103;
constexpr int32_t kGssEncRequestCode = 80877104;
constexpr int32_t kCancelRequestCode = 80877102;
// PostgreSQL's own limit on startup packets; anything larger is garbage or an attack.
constexpr int32_t kMaxStartupPacketBytes = 10000;
constexpr std::string_view kInvalidAuthorization = "28000";
// Results are flushed every so often, so that a large one never sits whole in the buffer.
constexpr size_t kFlushBytes = 256 * 1024;

/// Thrown to end the connection after a protocol violation has been reported.
struct ConnectionEnded {};

/// COPY FROM STDIN's input: the client's CopyData messages until CopyDone.
class PgwireCopyIn final : public CopyInput {
 public:
  using ReadMessage = std::function<bool(char&, std::vector<uint8_t>&)>;
  explicit PgwireCopyIn(ReadMessage readMessage) : readMessage_(std::move(readMessage)) {}

  size_t read(char* buffer, size_t capacity) override {
    while (offset_ == message_.size()) {
      if (done_) return 0;
      char type;
      if (!readMessage_(type, message_)) throw ConnectionEnded{};
      offset_ = 0;
      switch (type) {
        case 'd':  // CopyData
          break;
        case 'c':  // CopyDone
          done_ = true;
          message_.clear();
          break;
        case 'f': {  // CopyFail
          MessageReader reader(message_);
          SHOAL_USER_FAIL(SqlState::kQueryCanceled, "COPY from stdin failed: {}", reader.readString());
        }
        case 'H':  // Flush and Sync may arrive in copy mode; they mean nothing here
        case 'S':
          message_.clear();
          break;
        default:
          SHOAL_USER_FAIL(SqlState::kProtocolViolation, "unexpected message type {} during COPY from stdin",
                          static_cast<int>(static_cast<unsigned char>(type)));
      }
    }
    size_t n = std::min(capacity, message_.size() - offset_);
    std::memcpy(buffer, message_.data() + offset_, n);
    offset_ += n;
    return n;
  }
  std::string sourceName() const override { return "STDIN"; }

 private:
  ReadMessage readMessage_;
  std::vector<uint8_t> message_;
  size_t offset_ = 0;
  bool done_ = false;
};

}  // namespace

PgwireConnection::PgwireConnection(int socket, PgwireServer& server)
    : socket_(socket),
      server_(server),
      startupDeadline_(acceptedAt_ + std::chrono::seconds(server.options().startupTimeoutSeconds)),
      processId_(server.nextProcessId()),
      activity_(server.cluster().sessions, processId_, socket) {
  std::random_device random;
  secretKey_ = static_cast<int32_t>(random());
}

PgwireConnection::~PgwireConnection() {
  if (tls_ != nullptr) SSL_free(tls_);
}

std::string PgwireConnection::resultTag(const std::string& commandTag, size_t rows) {
  if (commandTag == "SHOW" || commandTag == "EXPLAIN") return commandTag;
  // FETCH, and DELETE or UPDATE ... RETURNING: the rows sent are the rows the command counts.
  if (commandTag == "FETCH" || commandTag == "DELETE" || commandTag == "UPDATE")
    return commandTag + " " + std::to_string(rows);
  return "SELECT " + std::to_string(rows);
}

bool PgwireConnection::readExact(void* buffer, size_t size) {
  auto* cursor = static_cast<uint8_t*>(buffer);
  while (size > 0) {
    if (inStartup_.load() && !(tls_ != nullptr && SSL_pending(tls_) > 0)) {
      // The startup's deadline is absolute: a client trickling a byte at a time does not extend it.
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(startupDeadline_ - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd readable{socket_, POLLIN, 0};
      const int ready = ::poll(&readable, 1, static_cast<int>(std::min<int64_t>(left.count(), INT32_MAX)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return false;
      if (tls_ != nullptr) {
        // A TLS record may need more bytes than the poll saw: read it against the deadline too.
        const int received =
            tlsStartupStep([&] { return SSL_read(tls_, cursor, static_cast<int>(std::min<size_t>(size, INT32_MAX))); });
        if (received <= 0) return false;
        cursor += received;
        size -= static_cast<size_t>(received);
        continue;
      }
    }
    if (tls_ != nullptr) {
      const int received = SSL_read(tls_, cursor, static_cast<int>(std::min<size_t>(size, INT32_MAX)));
      if (received <= 0) return false;  // the client went away, a timeout, or a TLS error
      cursor += received;
      size -= static_cast<size_t>(received);
      continue;
    }
    ssize_t received = ::recv(socket_, cursor, size, 0);
    if (received == 0) return false;  // the client went away, possibly mid-message
    if (received < 0) {
      if (errno == EINTR) continue;
      return false;  // reset, timeout or shutdown by the server
    }
    cursor += received;
    size -= static_cast<size_t>(received);
  }
  return true;
}

int PgwireConnection::tlsStartupStep(const std::function<int()>& step) {
  const int flags = ::fcntl(socket_, F_GETFL);
  ::fcntl(socket_, F_SETFL, flags | O_NONBLOCK);
  int result = 0;
  while (true) {
    result = step();
    if (result > 0) break;
    const int error = SSL_get_error(tls_, result);
    if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
      result = 0;
      break;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(startupDeadline_ - std::chrono::steady_clock::now());
    pollfd ready{socket_, static_cast<short>(error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT), 0};
    const int polled =
        left.count() > 0 ? ::poll(&ready, 1, static_cast<int>(std::min<int64_t>(left.count(), INT32_MAX))) : 0;
    if (polled < 0 && errno == EINTR) continue;
    if (polled <= 0) {
      result = 0;
      break;
    }
  }
  ::fcntl(socket_, F_SETFL, flags);
  return result;
}

bool PgwireConnection::startTls() {
  tls_ = SSL_new(server_.options().tls->context());
  if (tls_ == nullptr || SSL_set_fd(tls_, socket_) != 1) return false;
  // The handshake is part of the startup, and its deadline.
  if (tlsStartupStep([&] { return SSL_accept(tls_); }) != 1) {
    const char* reason = ERR_reason_error_string(ERR_get_error());
    spdlog::debug("TLS handshake with a client failed: {}", reason != nullptr ? reason : "connection closed");
    return false;
  }
  return true;
}

void PgwireConnection::flush() {
  const auto& bytes = writer_.buffer();
  size_t sent = 0;
  while (tls_ != nullptr && sent < bytes.size()) {
    const int written =
        SSL_write(tls_, bytes.data() + sent, static_cast<int>(std::min<size_t>(bytes.size() - sent, INT32_MAX)));
    if (written <= 0) {
      writer_.clear();
      throw ConnectionEnded{};
    }
    sent += static_cast<size_t>(written);
  }
  while (sent < bytes.size()) {
    ssize_t written = ::send(socket_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (written < 0) {
      if (errno == EINTR) continue;
      writer_.clear();
      throw ConnectionEnded{};
    }
    sent += static_cast<size_t>(written);
  }
  writer_.clear();
}

bool PgwireConnection::readMessage(char& type, std::vector<uint8_t>& body, uint32_t maxBytes) {
  uint8_t header[5];
  if (!readExact(header, sizeof(header))) return false;
  type = static_cast<char>(header[0]);
  MessageReader reader(std::span<const uint8_t>(header + 1, 4));
  int32_t length = reader.readInt32();
  if (length < 4 || static_cast<uint32_t>(length) > (maxBytes != 0 ? maxBytes : server_.options().maxMessageBytes)) {
    sendError(Status(SqlState::kProtocolViolation, fmt::format("invalid message length {}", length)));
    flush();
    return false;
  }
  // The body grows as its bytes arrive, a chunk at a time: a declared length reserves nothing by itself.
  constexpr size_t kChunkBytes = size_t{1} << 20;
  if (body.capacity() > 8 * kChunkBytes) std::vector<uint8_t>().swap(body);  // a past large message's buffer
  body.clear();
  size_t remaining = static_cast<size_t>(length) - 4;
  while (remaining > 0) {
    const size_t chunk = std::min(remaining, kChunkBytes);
    const size_t filled = body.size();
    body.resize(filled + chunk);
    if (!readExact(body.data() + filled, chunk)) return false;
    remaining -= chunk;
  }
  return true;
}

void PgwireConnection::run() {
  struct LeaveActivity {
    ActivityReporter& activity;
    ~LeaveActivity() { activity.closed(); }
  } leaveActivity{activity_};
  // A client gone in the middle of a transaction block: its writes go now, not when the connection is reaped.
  struct RollBackOnExit {
    std::unique_ptr<Session>& session;
    ~RollBackOnExit() {
      if (session) session->rollBackOpenTransaction();
    }
  } rollBack{session_};
  try {
    if (runStartup() != StartupResult::kReady) return;
    std::vector<uint8_t> body;
    char type;
    while (readMessage(type, body)) {
      if (skipUntilSync_ && type != 'S' && type != 'X') continue;
      bool extended = type == 'P' || type == 'B' || type == 'D' || type == 'E' || type == 'C';
      try {
        switch (type) {
          case 'Q': {
            MessageReader reader(body);
            handleSimpleQuery(reader.readString());
            break;
          }
          case 'P':
            handleParse(body);
            break;
          case 'B':
            handleBind(body);
            break;
          case 'D':
            handleDescribe(body);
            break;
          case 'E':
            handleExecute(body);
            break;
          case 'C':
            handleClose(body);
            break;
          case 'S':
            skipUntilSync_ = false;
            if (session_->transactionState() == Session::TransactionState::kIdle) portals_.clear();
            sendReadyForQuery();
            flush();
            break;
          case 'H':
            flush();
            break;
          case 'd':  // CopyData, CopyDone, CopyFail after a COPY FROM STDIN failed: dropped, as PostgreSQL does
          case 'c':
          case 'f':
            break;
          case 'X':
            return;
          default:
            SHOAL_USER_FAIL(SqlState::kProtocolViolation, "invalid frontend message type {}",
                            static_cast<int>(static_cast<unsigned char>(type)));
        }
      } catch (ShoalError& error) {
        if (!reportStatementError(error.status(), extended)) return;
      } catch (const std::bad_alloc&) {
        reportStatementError(Status(SqlState::kOutOfMemory, "out of memory"), extended);
      } catch (const std::exception& error) {
        // A bug must cost the statement, not the session: report it as PostgreSQL reports its own internal errors.
        spdlog::error("connection {}: internal error: {}", processId_, error.what());
        reportStatementError(Status(SqlState::kInternalError, fmt::format("internal error: {}", error.what())),
                             extended);
      }
    }
  } catch (const ConnectionEnded&) {
  } catch (const ShoalError& error) {
    spdlog::debug("connection {} ended: {}", processId_, error.what());
  } catch (const std::exception& error) {
    spdlog::error("connection {} ended by an internal error: {}", processId_, error.what());
  }
}

bool PgwireConnection::reportStatementError(const Status& status, bool extended) {
  sendError(status);
  if (status.sqlState() == SqlState::kProtocolViolation) {
    flush();
    return false;  // the stream can no longer be trusted
  }
  session_->recordError();
  if (extended) {
    skipUntilSync_ = true;
  } else {
    sendReadyForQuery();
  }
  flush();
  return true;
}

PgwireConnection::StartupResult PgwireConnection::runStartup() {
  while (true) {
    uint8_t lengthBytes[4];
    if (!readExact(lengthBytes, sizeof(lengthBytes))) return StartupResult::kClose;
    int32_t length = MessageReader(lengthBytes).readInt32();
    if (length < 8 || length > kMaxStartupPacketBytes) {
      sendError(Status(SqlState::kProtocolViolation, fmt::format("invalid length of startup packet: {}", length)));
      flush();
      return StartupResult::kClose;
    }
    std::vector<uint8_t> body(static_cast<size_t>(length) - 4);
    if (!readExact(body.data(), body.size())) return StartupResult::kClose;
    MessageReader reader(body);
    int32_t code = reader.readInt32();
    if (code == kSslRequestCode && server_.options().tls && tls_ == nullptr) {
      writer_.writeByte('S');  // then the TLS handshake, and the startup packet over TLS
      flush();
      if (!startTls()) return StartupResult::kClose;
      continue;
    }
    if (code == kSslRequestCode || code == kGssEncRequestCode) {
      writer_.writeByte('N');  // no TLS here (or not twice), no GSSAPI encryption: the client may go on in the clear
      flush();
      continue;
    }
    if (code == kCancelRequestCode) {
      int32_t processId = reader.readInt32();
      int32_t secretKey = reader.readInt32();
      server_.cancel(processId, secretKey);
      return StartupResult::kClose;
    }
    if (code != kProtocolVersion3) {
      sendError(Status(
          SqlState::kFeatureNotSupported,
          fmt::format("unsupported frontend protocol {}.{}: server supports 3.0 to 3.0", code >> 16, code & 0xFFFF)));
      flush();
      return StartupResult::kClose;
    }
    std::map<std::string, std::string> parameters;
    while (reader.remaining() > 0) {
      std::string_view name = reader.readString();
      if (name.empty()) break;
      parameters[std::string(name)] = std::string(reader.readString());
    }
    if (parameters["user"].empty()) {
      sendError(Status(kInvalidAuthorization, "no PostgreSQL user name specified in startup packet"));
      flush();
      return StartupResult::kClose;
    }
    // PostgreSQL's default database is the one named like the user.
    std::string database = parameters["database"].empty() ? parameters["user"] : parameters["database"];
    if (!authenticate(parameters["user"], database)) return StartupResult::kClose;
    session_ = std::make_unique<Session>(
        server_.cluster(), sql::SessionInfo{parameters["user"], std::move(database), processId_, {}, {}, {}, {}, {}});
    // `options` (-c name=value ...) first, as PostgreSQL applies it: a setting of its own in the packet wins.
    // Unlike those, a bad one ends the connection, as it does on PostgreSQL.
    try {
      for (const auto& [name, value] : parseStartupOptions(parameters["options"])) {
        session_->settings().set(name, value, SessionSettings::Source::kClient);
      }
    } catch (const ShoalError& error) {
      session_.reset();  // no session: the error is FATAL
      sendError(error.status());
      flush();
      return StartupResult::kClose;
    }
    for (const auto& [name, value] : parameters) {
      if (name == "user" || name == "database" || name == "options" || name == "replication") continue;
      try {
        session_->settings().set(name, value, SessionSettings::Source::kClient);
      } catch (const ShoalError& error) {
        // Startup settings are advisory: drivers send ones we neither need nor honour (SQL_ASCII, ...).
        spdlog::debug("ignored startup setting {}={}: {}", name, value, error.status().message());
      }
    }
    for (const auto& [name, value] : session_->settings().startupReport()) {
      writer_.begin('S');
      writer_.writeString(name);
      writer_.writeString(value);
      writer_.end();
    }
    writer_.begin('K');
    writer_.writeInt32(processId_);
    writer_.writeInt32(secretKey_);
    writer_.end();
    activity_.opened(*session_, session_->database());
    sendReadyForQuery();
    flush();
    inStartup_.store(false);
    return StartupResult::kReady;
  }
}

namespace {

/// A simple query has no parameter values: the first $n in it (outside quotes) is an error, as in PostgreSQL.
[[noreturn]] void failUnsuppliedParameter(const sql::ParsedScript& script) {
  const std::string& text = script.text();
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '$' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      size_t end = i + 1;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      throw ShoalError(Status(SqlState::kUndefinedParameter,
                              fmt::format("there is no parameter ${}", text.substr(i + 1, end - i - 1)),
                              sql::characterPosition(text, static_cast<int>(i))));
    }
  }
  SHOAL_USER_FAIL(SqlState::kUndefinedParameter, "there is no parameter $1");
}

}  // namespace

void PgwireConnection::handleSimpleQuery(std::string_view text) {
  try {
    auto script = std::make_shared<const sql::ParsedScript>(sql::ParsedScript::parse(std::string(text)));
    if (script->numStatements() == 0) {
      writer_.begin('I');  // EmptyQueryResponse
      writer_.end();
    }
    for (size_t index = 0; index < script->numStatements(); ++index) prepareAndRun(script, index);
  } catch (ShoalError& error) {
    sendError(error.status());
    session_->recordError();
  }
  sendReadyForQuery();
  flush();
}

std::unique_ptr<CopyInput> PgwireConnection::openCopyIn(size_t numColumns, bool binary) {
  writer_.begin('G');  // CopyInResponse: one format for every column
  writer_.writeByte(binary ? 1 : 0);
  writer_.writeInt16(static_cast<int16_t>(numColumns));
  for (size_t i = 0; i < numColumns; ++i) writer_.writeInt16(binary ? 1 : 0);
  writer_.end();
  flush();
  return std::make_unique<PgwireCopyIn>(
      [this](char& type, std::vector<uint8_t>& body) { return readMessage(type, body); });
}

std::string_view PgwireConnection::failedState(const ShoalError& error) {
  return error.status().sqlState() == SqlState::kQueryCanceled ? "cancelled" : "failed";
}

std::string PgwireConnection::textOf(const PreparedStatement& statement) {
  return std::string(statement.script->statementText(statement.statementIndex));
}

namespace {

[[noreturn]] void failCanceled() {
  throw ShoalError(Status(SqlState::kQueryCanceled, "canceling statement due to user request"));
}

}  // namespace

void PgwireConnection::throwAsTimeoutIfItWas(const StatementTimer& timer, const ShoalError& error) {
  if (timer.fired() && error.status().sqlState() == SqlState::kQueryCanceled) {
    throw ShoalError(Status(SqlState::kQueryCanceled, "canceling statement due to statement timeout"));
  }
  throw error;
}

void PgwireConnection::prepareAndRun(const std::shared_ptr<const sql::ParsedScript>& script, size_t index) {
  const std::string text(script->statementText(index));
  activity_.started(*session_, text);
  QueryLog::Handle query = session_->queryLog().start(text, session_->user());
  // Binding and planning count against statement_timeout too: a pathological query can take long to plan.
  StatementTimer timer(session_->settings().statementTimeout(), [this] { session_->requestCancel(); });
  try {
    auto statement = session_->prepare(script, index);
    if (statement->bound && !statement->bound->parameterTypes.empty()) failUnsuppliedParameter(*script);
    runAndSendAll(*statement, query);
    query.finish("done");
  } catch (const ShoalError& error) {
    query.finish(failedState(error));
    throwAsTimeoutIfItWas(timer, error);
  }
}

void PgwireConnection::runAndSendAll(const PreparedStatement& statement, QueryLog::Handle& query) {
  StatementOutcome outcome =
      session_->execute(statement, {}, [this](size_t n, bool binary) { return openCopyIn(n, binary); });
  sendOutcomeMessages(outcome);
  std::string tag = outcome.commandTag;
  if (outcome.copyOut) {
    size_t sent = sendCopyOut(*outcome.result, *outcome.copyOut);
    query.addRows(sent);
    tag = "COPY " + std::to_string(sent);
  } else if (outcome.result) {
    std::vector<WireFormat> textFormats;
    query.addShuffle(outcome.result->shuffle);
    sendRowDescription(outcome.result->columns, textFormats);
    std::optional<engine::Chunk> partialChunk;
    size_t partialRow = 0;
    bool exhausted = false;
    size_t sent = sendDataRows(*outcome.result, 0, textFormats, partialChunk, partialRow, exhausted);
    query.addRows(sent);
    tag = resultTag(outcome.commandTag, sent);
  }
  writer_.begin('C');
  writer_.writeString(tag);
  writer_.end();
}

void PgwireConnection::sendOutcomeMessages(const StatementOutcome& outcome) {
  for (const auto& notice : outcome.notices) {
    sendNotice(notice);
  }
  for (const auto& [name, value] : outcome.parameterChanges) {
    writer_.begin('S');
    writer_.writeString(name);
    writer_.writeString(value);
    writer_.end();
  }
}

void PgwireConnection::sendRowDescription(const std::vector<ResultColumn>& columns,
                                          const std::vector<WireFormat>& formats) {
  writer_.begin('T');
  writer_.writeInt16(static_cast<int16_t>(columns.size()));
  for (size_t i = 0; i < columns.size(); ++i) {
    const auto& type = columns[i].type;
    writer_.writeString(columns[i].name);
    writer_.writeInt32(0);  // table OID: not a plain table column
    writer_.writeInt16(0);  // attribute number
    writer_.writeInt32(static_cast<int32_t>(type.postgresOid()));
    writer_.writeInt16(type.postgresTypeLength());
    writer_.writeInt32(type.postgresTypmod());
    writer_.writeInt16(static_cast<int16_t>(formatFor(formats, i)));
  }
  writer_.end();
}

size_t PgwireConnection::sendDataRows(QueryResult& result, size_t maxRows, const std::vector<WireFormat>& formats,
                                      std::optional<engine::Chunk>& partialChunk, size_t& partialRow, bool& exhausted) {
  size_t sent = 0;
  exhausted = false;
  const engine::TimeZone* zone = &session_->settings().timeZone();
  while (maxRows == 0 || sent < maxRows) {
    if (!partialChunk) {
      partialChunk = result.nextChunk();
      partialRow = 0;
      if (!partialChunk) {
        exhausted = true;
        break;
      }
    }
    // A result computed within the statement timeout may still take long to send (ten million rows).
    if (session_->cancelRequested()) failCanceled();
    const engine::Chunk& chunk = *partialChunk;
    for (; partialRow < chunk.size() && (maxRows == 0 || sent < maxRows); ++partialRow) {
      writer_.begin('D');
      writer_.writeInt16(static_cast<int16_t>(chunk.numColumns()));
      for (size_t column = 0; column < chunk.numColumns(); ++column) {
        writeField(chunk.column(column), partialRow, formatFor(formats, column), writer_, zone);
      }
      writer_.end();
      ++sent;
      if (writer_.size() > kFlushBytes) flush();
    }
    if (partialRow == chunk.size()) partialChunk.reset();
  }
  // A limit that ends exactly at the last row: whether rows remain is known only by looking, which may
  // wait for the worker's next chunk; the client has the rows sent so far meanwhile.
  if (!exhausted && !partialChunk) {
    flush();
    partialChunk = result.nextChunk();
    partialRow = 0;
    exhausted = !partialChunk;
  }
  return sent;
}

size_t PgwireConnection::sendCopyOut(QueryResult& result, const sql::CopyFormat& format) {
  const bool binary = format.kind == sql::CopyFormat::Kind::kBinary;
  writer_.begin('H');  // CopyOutResponse: one format for every column
  writer_.writeByte(binary ? 1 : 0);
  writer_.writeInt16(static_cast<int16_t>(result.columns.size()));
  for (size_t i = 0; i < result.columns.size(); ++i) writer_.writeInt16(binary ? 1 : 0);
  writer_.end();
  if (binary) return sendBinaryCopyOut(result);
  CopyOutWriter lines(format, result.columns.size(), &session_->settings().timeZone());
  std::string line;
  auto sendLine = [&] {  // one CopyData per line, as PostgreSQL sends them (psycopg's rows() relies on it)
    writer_.begin('d');
    writer_.writeBytes(line.data(), line.size());
    writer_.end();
    line.clear();
    if (writer_.size() > kFlushBytes) flush();
  };
  if (format.header) {
    std::vector<std::string> names;
    for (const auto& column : result.columns) names.push_back(column.name);
    lines.appendHeader(names, line);
    sendLine();
  }
  size_t sent = 0;
  while (auto chunk = result.nextChunk()) {
    if (session_->cancelRequested()) failCanceled();
    for (size_t row = 0; row < chunk->size(); ++row) {
      lines.appendRow(*chunk, row, line);
      sendLine();
    }
    sent += chunk->size();
  }
  writer_.begin('c');  // CopyDone
  writer_.end();
  return sent;
}

size_t PgwireConnection::sendBinaryCopyOut(QueryResult& result) {
  // PostgreSQL's binary copy format: the signature, flags and an empty header extension; per row the field
  // count, then each field as a DataRow carries it in binary; the trailer -1. One CopyData per row, as
  // PostgreSQL sends them, the header with the first.
  static constexpr std::string_view kSignature("PGCOPY\n\377\r\n\0", 11);
  const auto numColumns = static_cast<int16_t>(result.columns.size());
  bool header = true;
  auto beginRow = [&] {
    writer_.begin('d');
    if (header) {
      writer_.writeBytes(kSignature.data(), kSignature.size());
      writer_.writeInt32(0);  // flags: no OIDs
      writer_.writeInt32(0);  // no header extension
      header = false;
    }
  };
  size_t sent = 0;
  while (auto chunk = result.nextChunk()) {
    if (session_->cancelRequested()) failCanceled();
    for (size_t row = 0; row < chunk->size(); ++row) {
      beginRow();
      writer_.writeInt16(numColumns);
      for (int16_t c = 0; c < numColumns; ++c) {
        writeField(chunk->column(static_cast<size_t>(c)), row, WireFormat::kBinary, writer_);
      }
      writer_.end();
      if (writer_.size() > kFlushBytes) flush();
    }
    sent += chunk->size();
  }
  beginRow();
  writer_.writeInt16(-1);  // the trailer
  writer_.end();
  writer_.begin('c');  // CopyDone
  writer_.end();
  return sent;
}

void PgwireConnection::sendError(const Status& status) {
  bool fatal = status.sqlState() == SqlState::kProtocolViolation || session_ == nullptr;
  writer_.begin('E');
  writer_.writeByte('S');
  writer_.writeString(fatal ? "FATAL" : "ERROR");
  writer_.writeByte('V');
  writer_.writeString(fatal ? "FATAL" : "ERROR");
  writer_.writeByte('C');
  writer_.writeString(status.sqlState());
  writer_.writeByte('M');
  writer_.writeString(status.message());
  if (!status.detail().empty()) {
    writer_.writeByte('D');
    writer_.writeString(status.detail());
  }
  if (!status.hint().empty()) {
    writer_.writeByte('H');
    writer_.writeString(status.hint());
  }
  if (status.position()) {
    writer_.writeByte('P');
    writer_.writeString(std::to_string(*status.position()));
  }
  writer_.writeByte(0);
  writer_.end();
}

void PgwireConnection::sendNotice(const Notice& notice) {
  writer_.begin('N');
  writer_.writeByte('S');
  writer_.writeString(notice.severity);
  writer_.writeByte('V');
  writer_.writeString(notice.severity);
  writer_.writeByte('C');
  writer_.writeString(notice.sqlState);
  writer_.writeByte('M');
  writer_.writeString(notice.message);
  if (!notice.detail.empty()) {
    writer_.writeByte('D');
    writer_.writeString(notice.detail);
  }
  writer_.writeByte(0);
  writer_.end();
}

void PgwireConnection::sendReadyForQuery() {
  if (session_) {
    activity_.waiting(*session_);
    session_->releaseStatementSnapshot();  // an idle session holds no snapshot back from compaction
  }
  writer_.begin('Z');
  writer_.writeByte(static_cast<uint8_t>(session_->transactionState()));
  writer_.end();
}

}  // namespace shoal::coordinator
