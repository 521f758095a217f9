#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::worker {

enum class TextFileFormat : uint32_t {
  kTbl = 0,   // dbgen: fields end with the delimiter, the last one too ("1|abc|\n"); no quoting; empty is NULL
  kCsv = 1,   // RFC 4180 quoting; an unquoted empty field is NULL, a quoted one ("") the empty string
  kText = 2,  // PostgreSQL's text format: backslash escapes (\t, \n, \\, \ooo, \xhh ...); \N is NULL; a "\." line ends
};

struct TextFormatOptions {
  TextFileFormat format = TextFileFormat::kTbl;
  char delimiter = '|';  // callers set ',' for CSV, '\t' for text
  char quote = '"';      // CSV only
  bool header = false;   // CSV only: the caller skips the first line of the file; the parser never sees it
  /// COPY's NULL option: the raw field text that stands for NULL (an unquoted one in CSV); nullopt: the
  /// format's own ("\\N" in text, the empty field in CSV and tbl).
  std::optional<std::string> nullText;
  /// CSV, one flag per field (empty: none): FORCE_NOT_NULL (an unquoted null string is a value) and
  /// FORCE_NULL (a quoted null string is NULL too).
  std::vector<bool> forceNotNull;
  std::vector<bool> forceNull;
  /// The TimeZone setting a timestamptz field without a zone of its own is read in.
  std::string timeZone = "UTC";
};

/// The offset just past the last '\n' of `text` that ends a whole line, so that a byte stream can be cut
/// into blocks of whole lines; 0 when there is none. For CSV, a '\n' inside quotes is data and does not
/// count: quotes are tracked from the start of `text`, which must itself start at a line boundary.
size_t endOfLastCompleteLine(std::string_view text, const TextFormatOptions& options);

/// Parses blocks of whole lines into chunks of at most kVectorSize rows of the table's column types.
/// Field ends are found 64 bytes at a time (AVX2); integers, decimals, ISO dates and strings take fast
/// paths straight from the bytes into the vectors; unusual text (a '+', spaces, exponents, more fraction
/// digits than the scale) and errors take the exact path of the SQL casts (engine/types/text_format.h), so
/// values and SQLSTATEs are those of a cast. NULLs are allowed in every column: NOT NULL is the caller's
/// check. Not thread-safe: one parser per thread.
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
  /// How a column's text becomes a value, decided once from its type so that each field costs one switch on
  /// a small enum rather than a look at the LogicalType.
  enum class Kind : uint8_t {
    kBoolean,
    kInt16,
    kInt32,
    kInt64,
    kDecimal64,
    kDecimal128,
    kDouble,
    kDate,
    kTimestamp,
    kVarchar,
    kChar
  };

  struct Column {
    Kind kind;
    uint8_t scale;
    uint32_t maxLength;         // characters of CHAR(n)/VARCHAR(n); 0 for TEXT
    int maxFastIntegerDigits;   // DECIMAL: integer digits that still fit in an int64 once scaled, or -1
    uint64_t integerPartLimit;  // DECIMAL: 10^(precision - scale), the integer part must stay below it
    uint32_t width;             // bytes per value
    // The current chunk's vector, written straight through these.
    std::byte* values = nullptr;
    uint64_t* validity = nullptr;
    engine::StringHeap* heap = nullptr;
    // Strings too long to sit inline in a StringRef, gathered back to back and copied into the vector's heap
    // once per chunk: a StringHeap::add per string costs more than its bytes.
    std::string longText;  // the first longTextSize bytes; the rest is slack for whole 64-byte copies
    size_t longTextSize = 0;
    std::vector<std::pair<uint32_t, uint32_t>> longStrings;  // (row, length) of each, in order
  };

  /// Bytes around a field that the fast paths may read past its ends: the block, or for a quoted CSV field
  /// the padded scratch it was unquoted into.
  struct Readable {
    const char* begin;
    const char* end;
  };

  void startChunk();
  void finishChunk(std::vector<engine::Chunk>& out);

  /// Finds the delimiters, newlines and (CSV) quotes of a block 64 bytes at a time (defined in the .cpp).
  class BoundaryScanner;

  /// Parse one line (a CSV row may span several) starting at `cursor`; return where the next one starts.
  const char* parseTblLine(const char* cursor, BoundaryScanner& scanner);
  const char* parseCsvLine(const char* cursor, BoundaryScanner& scanner);
  const char* parseTextLine(const char* cursor, BoundaryScanner& scanner);

  /// Copies the text of a quoted CSV field that has doubled quotes, starting at `content` (after the opening
  /// quote), into unquoted_; returns where it ends, after the closing quote. `column` and `startLine` are for
  /// errors.
  const char* unquote(const char* content, size_t column, uint64_t startLine);
  /// Copies the text-format field [begin, end), which has backslash escapes, into unquoted_ with them
  /// resolved as PostgreSQL's COPY does.
  void unescape(const char* begin, const char* end, size_t column);

  /// The vectors start uninitialized (every field writes its value): a NULL writes zeros, which for a
  /// string is an empty handle.
  void setNull(size_t column) {
    Column& target = columns_[column];
    target.validity[row_ / 64] &= ~(uint64_t{1} << (row_ % 64));
    std::memset(target.values + row_ * target.width, 0, target.width);
  }
  /// Stores the text [begin, end) of one non-NULL field in `column` at the current row, or fails naming it.
  void setField(size_t column, const char* begin, const char* end, Readable readable);
  /// Stores a string of more than StringRef::kInlineBytes in `column` at the current row (finishChunk
  /// copies it into the vector's heap).
  void addLongString(Column& column, std::string_view text, Readable readable);
  /// The exact path of the SQL casts, for the text that setField's fast paths leave (and for every error).
  [[gnu::noinline]] void setFieldExactly(size_t column, std::string_view text);

  /// Fails with `sqlState` at the current line; `column` == number of columns means "no column".
  [[noreturn]] void failRow(std::string_view sqlState, size_t column, const std::string& message) const;
  /// The .tbl line starting at `lineStart` ended (at `lineEnd`, its '\n' or the end of the block) before
  /// field `column` did, which started at `fieldStart`.
  [[noreturn]] void failShortTblLine(size_t column, const char* lineStart, const char* fieldStart,
                                     const char* lineEnd) const;

  std::vector<engine::LogicalType> types_;
  std::vector<std::string> names_;
  TextFormatOptions options_;
  const engine::TimeZone* timeZone_;  // options_.timeZone's
  /// The text that stands for NULL (options_.nullText or the format's own).
  std::string nullText_;
  std::string sourceName_;
  std::vector<Column> columns_;
  engine::Chunk current_;
  size_t row_ = 0;           // in current_
  uint64_t lineNumber_ = 0;  // of the row being parsed, for errors
  std::string
      unquoted_;  // scratch for quoted CSV fields and escaped text fields, between kUnquotedPadding bytes on each side
  static constexpr size_t kUnquotedPadding = 64;
  const char* begin_ = nullptr;  // of the block being parsed
  const char* end_ = nullptr;
};

}  // namespace shoal::worker
