#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace pg_query {
class ParseResult;
class Node;
}  // namespace pg_query

namespace shoal::sql {

/// One or more SQL statements parsed by PostgreSQL's own grammar (libpg_query)
/// into its typed protobuf parse tree. Owns the text, so that locations in the
/// tree stay meaningful for error positions.
class ParsedScript {
 public:
  /// Parses `text`; a syntax error fails with 42601 and the character position.
  static ParsedScript parse(std::string text);

  ParsedScript(ParsedScript&&) noexcept;
  ParsedScript& operator=(ParsedScript&&) noexcept;
  ~ParsedScript();

  const std::string& text() const { return text_; }
  size_t numStatements() const;
  /// The statement's root node (SelectStmt, TransactionStmt, ...).
  const pg_query::Node& statement(size_t index) const;
  /// The statement's own text, without the separating semicolons.
  std::string_view statementText(size_t index) const;

 private:
  ParsedScript() = default;

  std::string text_;
  std::unique_ptr<pg_query::ParseResult> tree_;
};

/// Converts a 0-based byte offset into the 1-based character position that
/// PostgreSQL reports (UTF-8 aware). A negative offset (unknown) gives 0.
int characterPosition(std::string_view text, int byteOffset);

}  // namespace shoal::sql
