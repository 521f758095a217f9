#include "sql/parser/parsed_script.h"

#include <pg_query.h>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/parser/nesting_estimate.h"

#include <google/protobuf/io/coded_stream.h>

namespace shoal::sql {

ParsedScript::ParsedScript(ParsedScript&&) noexcept = default;
ParsedScript& ParsedScript::operator=(ParsedScript&&) noexcept = default;
ParsedScript::~ParsedScript() = default;

ParsedScript ParsedScript::parse(std::string text) {
  ParsedScript script;
  script.text_ = std::move(text);
  checkParserStack(script.text_);
  PgQueryProtobufParseResult result = pg_query_parse_protobuf(script.text_.c_str());
  // Free the C result on every path, including the throwing ones.
  struct ResultGuard {
    PgQueryProtobufParseResult& result;
    ~ResultGuard() { pg_query_free_protobuf_parse_result(result); }
  } guard{result};
  if (result.error != nullptr) {
    // libpg_query's cursorpos is already PostgreSQL's 1-based character position.
    std::string message = result.error->message;
    int position = result.error->cursorpos;
    // libpg_query reports every grammar error as 42601; the grammar raises the frame clause's own as 42P20.
    const std::string_view sqlState = message.starts_with("frame start") || message.starts_with("frame end") ||
                                              message.starts_with("frame starting from")
                                          ? SqlState::kWindowingError
                                          : SqlState::kSyntaxError;
    if (position > 0) {
      SHOAL_USER_FAIL_AT(sqlState, position, "{}", message);
    }
    SHOAL_USER_FAIL(sqlState, "{}", message);
  }
  script.tree_ = std::make_unique<pg_query::ParseResult>();
  // Protobuf stops at 100 levels by default; long expressions (a + b + ... ) nest one level per operator.
  constexpr int kMaxNesting = 10000;
  google::protobuf::io::CodedInputStream input(reinterpret_cast<const uint8_t*>(result.parse_tree.data),
                                               static_cast<int>(result.parse_tree.len));
  input.SetRecursionLimit(kMaxNesting);
  if (!script.tree_->ParseFromCodedStream(&input)) {
    SHOAL_USER_FAIL(SqlState::kStatementTooComplex, "statement is too complex: it nests more than {} levels",
                    kMaxNesting);
  }
  return script;
}

size_t ParsedScript::numStatements() const {
  return static_cast<size_t>(tree_->stmts_size());
}

const pg_query::Node& ParsedScript::statement(size_t index) const {
  return tree_->stmts(static_cast<int>(index)).stmt();
}

std::string_view ParsedScript::statementText(size_t index) const {
  const auto& raw = tree_->stmts(static_cast<int>(index));
  std::string_view all(text_);
  size_t begin = static_cast<size_t>(raw.stmt_location());
  // stmt_len 0 means "to the end of the string".
  size_t length = raw.stmt_len() == 0 ? all.size() - begin : static_cast<size_t>(raw.stmt_len());
  std::string_view statement = all.substr(begin, length);
  while (!statement.empty() && std::isspace(static_cast<unsigned char>(statement.front()))) statement.remove_prefix(1);
  return statement;
}

int characterPosition(std::string_view text, int byteOffset) {
  if (byteOffset < 0) {
    return 0;
  }
  int characters = 0;
  for (size_t i = 0; i < text.size() && i < static_cast<size_t>(byteOffset); ++i) {
    characters += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
  }
  return characters + 1;
}

}  // namespace shoal::sql
