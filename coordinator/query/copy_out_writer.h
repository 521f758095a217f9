#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/types/time_zone.h"
#include "engine/vector/chunk.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

/// Writes a query's rows as the lines of COPY ... TO: PostgreSQL's text format (backslash escapes, \N for
/// NULL) or CSV (quoted where needed, FORCE_QUOTE), byte for byte as PostgreSQL 15 writes them.
class CopyOutWriter {
 public:
  /// `zone` shows timestamptz values (the session's TimeZone; nullptr: UTC).
  CopyOutWriter(sql::CopyFormat format, size_t numColumns, const engine::TimeZone* zone = nullptr);

  /// The column names as a header line, with its newline.
  void appendHeader(const std::vector<std::string>& names, std::string& out);
  /// Row `row` of `chunk` as one line, with its newline.
  void appendRow(const engine::Chunk& chunk, size_t row, std::string& out);

 private:
  void appendField(std::string_view value, size_t column, std::string& out) const;
  void appendTextField(std::string_view value, std::string& out) const;
  void appendCsvField(std::string_view value, bool quote, std::string& out) const;

  sql::CopyFormat format_;
  size_t numColumns_;
  const engine::TimeZone* zone_;
  std::string value_;  // scratch: one value's text output
};

}  // namespace shoal::coordinator
