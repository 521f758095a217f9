#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::worker {

enum class TextFileFormat : uint32_t {
  kTbl = 0,  // dbgen: fields end with the delimiter, the last one too ("1|abc|\n"); no quoting; empty is NULL
  kCsv = 1,  // RFC 4180 quoting; an unquoted empty field is NULL, a quoted one ("") the empty string
};

struct TextFormatOptions {
  TextFileFormat format = TextFileFormat::kTbl;
  char delimiter = '|';  // callers set ',' for CSV
  char quote = '"';      // CSV only
  bool header = false;   // CSV only: the caller skips the first line of the file; the parser never sees it
};

/// The offset just past the last '\n' of `text` that ends a whole line, so that a byte stream can be cut
/// into blocks of whole lines; 0 when there is none. For CSV, a '\n' inside quotes is data and does not
/// count: quotes are tracked from the start of `text`, which must itself start at a line boundary.
size_t endOfLastCompleteLine(std::string_view text, const TextFormatOptions& options);

/// Parses blocks of whole lines into chunks of at most kVectorSize rows of the table's column types.
/// Integers, decimals and ISO dates take fast paths straight from the bytes into the vectors; unusual
/// text (a '+', spaces, exponents, more fraction digits than the scale) and errors take the exact path of
/// the SQL casts (engine/types/text_format.h), so values and SQLSTATEs are those of a cast. NULLs are
/// allowed in every column: NOT NULL is the caller's check. Not thread-safe: one parser per thread.
class DelimitedTextParser {
 public:
  /// `sourceName` appears verbatim in error messages ("COPY from <sourceName>, line 3, column x: ..."):
  /// a quoted path ("'/data/lineitem.tbl'") or STDIN.
  DelimitedTextParser(std::vector<engine::LogicalType> columnTypes, std::vector<std::string> columnNames,
                      TextFormatOptions options, std::string sourceName);

  /// Parses every line of `block` (the last one may lack its '\n'; "\r\n" line ends are accepted; empty
  /// lines at the end are ignored), whose first line is line `firstLineNumber` (1-based) of the source,
  /// appending the rows to `out` in chunks of up to kVectorSize rows. A bad row fails with the SQLSTATE of
  /// its problem (22P04 wrong number of fields, 22P02/22007 bad syntax, 22003 out of range, 22001 too
  /// long, 22008 no such date), naming the source, the line and the column; `out` is then unspecified.
  void parse(std::string_view block, uint64_t firstLineNumber, std::vector<engine::Chunk>& out);

 private:
  void startChunk();
  void finishChunk(std::vector<engine::Chunk>& out);

  /// Parse one line (a CSV row may span several) starting at `cursor`; return where the next one starts.
  const char* parseTblLine(const char* cursor, const char* end);
  const char* parseCsvLine(const char* cursor, const char* end);

  void setNull(size_t column) { current_.column(column).validity().setValid(row_, false); }
  /// Stores the text of one non-NULL field in `column` at the current row, or fails naming it.
  void setField(size_t column, std::string_view text);

  /// Fails with `sqlState` at the current line; `column` == number of columns means "no column".
  [[noreturn]] void failRow(std::string_view sqlState, size_t column, const std::string& message) const;

  std::vector<engine::LogicalType> types_;
  std::vector<std::string> names_;
  TextFormatOptions options_;
  std::string sourceName_;
  engine::Chunk current_;
  size_t row_ = 0;           // in current_
  uint64_t lineNumber_ = 0;  // of the row being parsed, for errors
  std::string unquoted_;     // scratch for quoted CSV fields
};

}  // namespace shoal::worker
