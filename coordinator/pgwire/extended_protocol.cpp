// The extended query protocol's messages: Parse, Bind, Describe, Execute (with its portal's row limit) and
// Close, as PgwireConnection handles them.

#include "coordinator/pgwire/message_reader.h"
#include "coordinator/pgwire/pgwire_connection.h"
#include "coordinator/pgwire/pgwire_server.h"
#include "coordinator/pgwire/value_codec.h"
#include "coordinator/query/statement_timer.h"

namespace shoal::coordinator {
namespace {

constexpr std::string_view kDuplicateCursor = "42P03";

std::vector<WireFormat> readFormats(MessageReader& reader) {
  int16_t count = reader.readInt16();
  if (count < 0) SHOAL_USER_FAIL(SqlState::kProtocolViolation, "invalid format code count {}", count);
  std::vector<WireFormat> formats;
  for (int16_t i = 0; i < count; ++i) {
    int16_t code = reader.readInt16();
    if (code != 0 && code != 1) SHOAL_USER_FAIL(SqlState::kProtocolViolation, "unsupported format code: {}", code);
    formats.push_back(static_cast<WireFormat>(code));
  }
  return formats;
}

}  // namespace

void PgwireConnection::handleParse(std::span<const uint8_t> body) {
  MessageReader reader(body);
  std::string name(reader.readString());
  std::string text(reader.readString());
  int16_t numTypes = reader.readInt16();
  std::vector<engine::LogicalType> declaredTypes;
  for (int16_t i = 0; i < numTypes; ++i) {
    declaredTypes.push_back(engine::logicalTypeFromPostgresOid(static_cast<uint32_t>(reader.readInt32())));
  }
  if (!name.empty() && session_->findPrepared(name)) {
    SHOAL_USER_FAIL(SqlState::kDuplicatePreparedStatement, "prepared statement \"{}\" already exists", name);
  }
  auto script = std::make_shared<const sql::ParsedScript>(sql::ParsedScript::parse(std::move(text)));
  if (script->numStatements() > 1) {
    SHOAL_USER_FAIL(SqlState::kSyntaxError, "cannot insert multiple commands into a prepared statement");
  }
  session_->addPrepared(name, session_->prepare(script, 0, std::move(declaredTypes)));
  writer_.begin('1');  // ParseComplete
  writer_.end();
}

void PgwireConnection::handleBind(std::span<const uint8_t> body) {
  MessageReader reader(body);
  std::string portalName(reader.readString());
  std::string statementName(reader.readString());
  std::shared_ptr<const PreparedStatement> statement = session_->findPrepared(statementName);
  if (!statement) {
    SHOAL_USER_FAIL(SqlState::kInvalidSqlStatementName, "prepared statement \"{}\" does not exist", statementName);
  }
  std::vector<WireFormat> parameterFormats = readFormats(reader);
  int16_t numParameters = reader.readInt16();
  size_t expected = statement->bound ? statement->bound->parameterTypes.size() : 0;
  if (numParameters < 0 || static_cast<size_t>(numParameters) != expected) {
    SHOAL_USER_FAIL(SqlState::kProtocolViolation,
                    "bind message supplies {} parameters, but prepared statement \"{}\" requires {}", numParameters,
                    statementName, expected);
  }
  if (parameterFormats.size() > 1 && parameterFormats.size() != expected) {
    SHOAL_USER_FAIL(SqlState::kProtocolViolation, "bind message has {} parameter formats but {} parameters",
                    parameterFormats.size(), expected);
  }
  Portal portal;
  portal.statement = statement;
  for (int16_t i = 0; i < numParameters; ++i) {
    int32_t length = reader.readInt32();
    const auto& type = statement->bound->parameterTypes[i];
    if (length == -1) {
      portal.parameters.push_back(engine::Value::null(type));
      continue;
    }
    if (length < 0) SHOAL_USER_FAIL(SqlState::kProtocolViolation, "invalid parameter length {}", length);
    auto bytes = reader.readBytes(static_cast<size_t>(length));
    portal.parameters.push_back(
        decodeParameter(bytes, formatFor(parameterFormats, i), type, &session_->settings().timeZone()));
  }
  portal.resultFormats = readFormats(reader);
  if (portal.resultFormats.size() > 1 && portal.resultFormats.size() != statement->resultColumns.size()) {
    SHOAL_USER_FAIL(SqlState::kProtocolViolation, "bind message has {} result formats but query has {} columns",
                    portal.resultFormats.size(), statement->resultColumns.size());
  }
  if (!portalName.empty() && portals_.contains(portalName)) {
    SHOAL_USER_FAIL(kDuplicateCursor, "cursor \"{}\" already exists", portalName);
  }
  portals_[portalName] = std::move(portal);
  writer_.begin('2');  // BindComplete
  writer_.end();
}

void PgwireConnection::handleDescribe(std::span<const uint8_t> body) {
  MessageReader reader(body);
  char kind = static_cast<char>(reader.readByte());
  std::string name(reader.readString());
  if (kind == 'S') {
    std::shared_ptr<const PreparedStatement> found = session_->findPrepared(name);
    if (!found) {
      SHOAL_USER_FAIL(SqlState::kInvalidSqlStatementName, "prepared statement \"{}\" does not exist", name);
    }
    const auto& statement = *found;
    writer_.begin('t');  // ParameterDescription
    const auto* types = statement.bound ? &statement.bound->parameterTypes : nullptr;
    writer_.writeInt16(static_cast<int16_t>(types ? types->size() : 0));
    if (types) {
      for (const auto& type : *types) writer_.writeInt32(static_cast<int32_t>(type.postgresOid()));
    }
    writer_.end();
    if (statement.resultColumns.empty()) {
      writer_.begin('n');  // NoData
      writer_.end();
    } else {
      sendRowDescription(statement.resultColumns, {});
    }
    return;
  }
  if (kind != 'P') SHOAL_USER_FAIL(SqlState::kProtocolViolation, "invalid DESCRIBE message subtype {}", kind);
  auto found = portals_.find(name);
  if (found == portals_.end()) {
    // A cursor that DECLARE opened is a portal too (psycopg describes its named cursors so).
    if (auto columns = session_->cursorColumns(name)) {
      sendRowDescription(*columns, {});
      return;
    }
    SHOAL_USER_FAIL(SqlState::kInvalidCursorName, "portal \"{}\" does not exist", name);
  }
  const Portal& portal = found->second;
  if (portal.statement->resultColumns.empty()) {
    writer_.begin('n');
    writer_.end();
  } else {
    sendRowDescription(portal.statement->resultColumns, portal.resultFormats);
  }
}

void PgwireConnection::handleExecute(std::span<const uint8_t> body) {
  MessageReader reader(body);
  std::string name(reader.readString());
  int32_t maxRows = reader.readInt32();
  auto found = portals_.find(name);
  if (found == portals_.end()) SHOAL_USER_FAIL(SqlState::kInvalidCursorName, "portal \"{}\" does not exist", name);
  Portal& portal = found->second;
  if (!portal.statement->bound) {
    writer_.begin('I');  // EmptyQueryResponse
    writer_.end();
    return;
  }
  if (!portal.query) {
    activity_.started(*session_, textOf(*portal.statement));
    portal.query.emplace(session_->queryLog().start(textOf(*portal.statement), session_->user()));
  }
  session_->clearCancelRequest();
  StatementTimer timer(session_->settings().statementTimeout(), [this] { session_->requestCancel(); });
  try {
    executePortal(portal, maxRows);
  } catch (const ShoalError& error) {
    portal.query->finish(failedState(error));
    // The portal is spent: a later Execute of it fails (34000) rather than reporting an empty success.
    portals_.erase(found);
    throwAsTimeoutIfItWas(timer, error);
  }
}

void PgwireConnection::executePortal(Portal& portal, int32_t maxRows) {
  if (!portal.outcome) {
    portal.outcome = session_->execute(*portal.statement, portal.parameters,
                                       [this](size_t n, bool binary) { return openCopyIn(n, binary); });
    sendOutcomeMessages(*portal.outcome);
    if (portal.outcome->result) {
      portal.query->addShuffle(portal.outcome->result->shuffle);
    }
  }
  StatementOutcome& outcome = *portal.outcome;
  std::string tag = outcome.commandTag;
  if (outcome.copyOut) {
    size_t sent = sendCopyOut(*outcome.result, *outcome.copyOut);  // whole, whatever maxRows says
    portal.query->addRows(sent);
    tag = "COPY " + std::to_string(sent);
  } else if (outcome.result) {
    bool exhausted = false;
    size_t sent = sendDataRows(*outcome.result, maxRows > 0 ? static_cast<size_t>(maxRows) : 0, portal.resultFormats,
                               portal.partialChunk, portal.partialRow, exhausted);
    portal.rowsSent += sent;
    portal.query->addRows(sent);
    if (!exhausted) {
      writer_.begin('s');  // PortalSuspended
      writer_.end();
      return;
    }
    tag = resultTag(outcome.commandTag, sent);
  }
  portal.query->finish("done");
  writer_.begin('C');
  writer_.writeString(tag);
  writer_.end();
}

void PgwireConnection::handleClose(std::span<const uint8_t> body) {
  MessageReader reader(body);
  char kind = static_cast<char>(reader.readByte());
  std::string name(reader.readString());
  if (kind == 'S') {
    session_->dropPrepared(name);
  } else if (kind == 'P') {
    portals_.erase(name);
  } else {
    SHOAL_USER_FAIL(SqlState::kProtocolViolation, "invalid CLOSE message subtype {}", kind);
  }
  writer_.begin('3');  // CloseComplete
  writer_.end();
}

}  // namespace shoal::coordinator
