#include "worker/storage/delimited_text_parser.h"

#include <charconv>
#include <cstring>
#include <limits>

#include "common/status.h"
#include "engine/types/date.h"
#include "engine/types/decimal.h"
#include "engine/types/text_format.h"

namespace shoal::worker {

using engine::LogicalType;
using engine::PhysicalType;
using engine::TypeId;

namespace {

inline bool isDigit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

/// Plain optionally-negative decimal digits into an int64; false for anything else (or overflow).
inline bool fastInteger(std::string_view text, int64_t& value) {
  const char* p = text.data();
  const char* end = p + text.size();
  bool negative = p != end && *p == '-';
  if (negative) ++p;
  if (p == end || end - p > 18) return false;
  int64_t result = 0;
  for (; p != end; ++p) {
    if (!isDigit(*p)) return false;
    result = result * 10 + (*p - '0');
  }
  value = negative ? -result : result;
  return true;
}

/// [-]digits[.digits] with at most `scale` fraction digits and at most 18 digits in all, scaled to `scale`.
inline bool fastDecimal(std::string_view text, int precision, int scale, int64_t& value) {
  const char* p = text.data();
  const char* end = p + text.size();
  bool negative = p != end && *p == '-';
  if (negative) ++p;
  int64_t result = 0;
  int integerDigits = 0;
  int fractionDigits = 0;
  bool sawDigit = false;
  for (; p != end && isDigit(*p); ++p) {
    result = result * 10 + (*p - '0');
    if (result != 0) ++integerDigits;  // leading zeros do not count against the precision
    sawDigit = true;
    if (integerDigits > 18) return false;
  }
  if (p != end) {
    if (*p != '.') return false;
    for (++p; p != end; ++p) {
      if (!isDigit(*p) || fractionDigits == scale) return false;  // more digits than the scale: round exactly
      result = result * 10 + (*p - '0');
      ++fractionDigits;
      sawDigit = true;
    }
  }
  if (!sawDigit || integerDigits > precision - scale || integerDigits + scale > 18) return false;
  for (int i = fractionDigits; i < scale; ++i) result *= 10;
  value = negative ? -result : result;
  return true;
}

/// YYYY-MM-DD, validated; false for any other layout.
inline bool fastDate(std::string_view text, int32_t& days) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!isDigit(text[i])) return false;
  }
  int32_t year = (text[0] - '0') * 1000 + (text[1] - '0') * 100 + (text[2] - '0') * 10 + (text[3] - '0');
  uint32_t month = static_cast<uint32_t>((text[5] - '0') * 10 + (text[6] - '0'));
  uint32_t day = static_cast<uint32_t>((text[8] - '0') * 10 + (text[9] - '0'));
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > engine::daysInMonth(year, month)) return false;
  days = engine::daysFromCivil(engine::CivilDate{year, month, day});
  return true;
}

/// Characters (not bytes) of UTF-8 text, counted only when the byte length could exceed `limit`.
inline bool exceedsCharacters(std::string_view text, uint32_t limit) {
  if (text.size() <= limit) return false;
  size_t characters = 0;
  for (char c : text) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return characters > limit;
}

}  // namespace

size_t endOfLastCompleteLine(std::string_view text, const TextFormatOptions& options) {
  if (options.format != TextFileFormat::kCsv) {
    size_t end = text.rfind('\n');
    return end == std::string_view::npos ? 0 : end + 1;
  }
  // CSV: a newline inside quotes is data. Track the quote state from the start.
  bool inQuotes = false;
  size_t last = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == options.quote) {
      inQuotes = !inQuotes;  // a doubled quote flips twice
    } else if (c == '\n' && !inQuotes) {
      last = i + 1;
    }
  }
  return last;
}

DelimitedTextParser::DelimitedTextParser(std::vector<LogicalType> columnTypes, std::vector<std::string> columnNames,
                                         TextFormatOptions options, std::string sourceName)
    : types_(std::move(columnTypes)),
      names_(std::move(columnNames)),
      options_(options),
      sourceName_(std::move(sourceName)) {
  SHOAL_CHECK(types_.size() == names_.size() && !types_.empty(), "parser of {} types and {} names", types_.size(),
              names_.size());
}

void DelimitedTextParser::failRow(std::string_view sqlState, size_t column, const std::string& message) const {
  if (column < names_.size()) {
    SHOAL_USER_FAIL(sqlState, "COPY from {}, line {}, column {}: {}", sourceName_, lineNumber_, names_[column],
                    message);
  }
  SHOAL_USER_FAIL(sqlState, "COPY from {}, line {}: {}", sourceName_, lineNumber_, message);
}

void DelimitedTextParser::startChunk() {
  current_ = engine::Chunk(0);
  for (const auto& type : types_) current_.addColumn(engine::Vector(type, engine::kVectorSize));
  row_ = 0;
}

void DelimitedTextParser::finishChunk(std::vector<engine::Chunk>& out) {
  if (row_ == 0) return;
  for (size_t c = 0; c < current_.numColumns(); ++c) current_.column(c).resize(row_);
  current_.setSize(row_);
  out.push_back(std::move(current_));
  row_ = 0;
}

void DelimitedTextParser::setField(size_t column, std::string_view text) {
  engine::Vector& vector = current_.column(column);
  const LogicalType& type = types_[column];
  try {
    switch (type.id()) {
      case TypeId::kInteger: {
        int64_t value;
        if (fastInteger(text, value) && value >= std::numeric_limits<int32_t>::min() &&
            value <= std::numeric_limits<int32_t>::max()) {
          vector.data<int32_t>()[row_] = static_cast<int32_t>(value);
        } else {
          vector.data<int32_t>()[row_] = engine::parseInteger(text);
        }
        return;
      }
      case TypeId::kBigInt: {
        int64_t value;
        vector.data<int64_t>()[row_] = fastInteger(text, value) ? value : engine::parseBigInt(text);
        return;
      }
      case TypeId::kDecimal: {
        int64_t value;
        if (type.physicalType() == PhysicalType::kInt64) {
          vector.data<int64_t>()[row_] =
              fastDecimal(text, type.precision(), type.scale(), value)
                  ? value
                  : static_cast<int64_t>(engine::parseDecimal(text, type.precision(), type.scale()));
        } else {
          vector.data<engine::int128_t>()[row_] = fastDecimal(text, type.precision(), type.scale(), value)
                                                      ? value
                                                      : engine::parseDecimal(text, type.precision(), type.scale());
        }
        return;
      }
      case TypeId::kDouble: {
        double value;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        vector.data<double>()[row_] = error == std::errc() && end == text.data() + text.size() && std::isfinite(value)
                                          ? value
                                          : engine::parseDouble(text);
        return;
      }
      case TypeId::kDate: {
        int32_t days;
        vector.data<int32_t>()[row_] = fastDate(text, days) ? days : engine::parseDate(text);
        return;
      }
      case TypeId::kBoolean:
        vector.data<uint8_t>()[row_] = engine::parseBoolean(text);
        return;
      case TypeId::kVarchar:
        if (type.maxLength() > 0 && exceedsCharacters(text, type.maxLength())) {
          SHOAL_USER_FAIL(SqlState::kStringDataRightTruncation, "value too long for type character varying({})",
                          type.maxLength());
        }
        vector.setString(row_, text);
        return;
      case TypeId::kChar: {
        std::string_view stripped = engine::stripTrailingSpaces(text);
        if (exceedsCharacters(stripped, type.maxLength())) {
          SHOAL_USER_FAIL(SqlState::kStringDataRightTruncation, "value too long for type character({})",
                          type.maxLength());
        }
        vector.setString(row_, stripped);
        return;
      }
      case TypeId::kUnknown:
        break;
    }
  } catch (const ShoalError& error) {
    failRow(error.status().sqlState(), column, error.status().message());
  }
  SHOAL_UNREACHABLE("column of type {}", type.toString());
}

const char* DelimitedTextParser::parseTblLine(const char* cursor, const char* end) {
  const char* lineEnd = static_cast<const char*>(std::memchr(cursor, '\n', static_cast<size_t>(end - cursor)));
  if (!lineEnd) lineEnd = end;
  const char* next = lineEnd == end ? end : lineEnd + 1;
  if (lineEnd > cursor && lineEnd[-1] == '\r') --lineEnd;
  const char delimiter = options_.delimiter;
  for (size_t column = 0; column < types_.size(); ++column) {
    const char* fieldEnd =
        static_cast<const char*>(std::memchr(cursor, delimiter, static_cast<size_t>(lineEnd - cursor)));
    if (!fieldEnd) {
      // Every .tbl field ends with the delimiter, the last one too: without it the line is short.
      if (cursor == lineEnd) {
        failRow(SqlState::kBadCopyFileFormat, column, "missing data (the line has too few fields)");
      }
      failRow(SqlState::kBadCopyFileFormat, column, fmt::format("field does not end with '{}'", delimiter));
    }
    if (fieldEnd == cursor) {
      setNull(column);
    } else {
      setField(column, std::string_view(cursor, static_cast<size_t>(fieldEnd - cursor)));
    }
    cursor = fieldEnd + 1;
  }
  if (cursor != lineEnd) failRow(SqlState::kBadCopyFileFormat, types_.size(), "extra data after last expected column");
  return next;
}

const char* DelimitedTextParser::parseCsvLine(const char* cursor, const char* end) {
  const char delimiter = options_.delimiter;
  const char quote = options_.quote;
  const uint64_t startLine = lineNumber_;
  for (size_t column = 0;; ++column) {
    if (column == types_.size()) {
      lineNumber_ = startLine;
      failRow(SqlState::kBadCopyFileFormat, types_.size(), "extra data after last expected column");
    }
    std::string_view field;
    bool quoted = false;
    if (cursor != end && *cursor == quote) {
      quoted = true;
      unquoted_.clear();
      ++cursor;
      while (true) {
        const char* close = static_cast<const char*>(std::memchr(cursor, quote, static_cast<size_t>(end - cursor)));
        if (!close) {
          lineNumber_ = startLine;
          failRow(SqlState::kBadCopyFileFormat, column, "unterminated CSV quoted field");
        }
        unquoted_.append(cursor, close);
        cursor = close + 1;
        if (cursor != end && *cursor == quote) {  // a doubled quote is one literal quote
          unquoted_ += quote;
          ++cursor;
          continue;
        }
        break;
      }
      for (char c : unquoted_) lineNumber_ += c == '\n';
      field = unquoted_;
    } else {
      const char* fieldEnd = cursor;
      while (fieldEnd != end && *fieldEnd != delimiter && *fieldEnd != '\n') ++fieldEnd;
      field = std::string_view(cursor, static_cast<size_t>(fieldEnd - cursor));
      if (!field.empty() && field.back() == '\r' && (fieldEnd == end || *fieldEnd == '\n')) field.remove_suffix(1);
      cursor = fieldEnd;
    }
    if (field.empty() && !quoted) {
      setNull(column);
    } else {
      setField(column, field);
    }
    if (cursor != end && *cursor == '\r' && cursor + 1 != end && cursor[1] == '\n') ++cursor;
    if (cursor == end || *cursor == '\n') {
      if (column + 1 != types_.size()) {
        lineNumber_ = startLine;
        failRow(SqlState::kBadCopyFileFormat, column + 1, "missing data (the line has too few fields)");
      }
      return cursor == end ? end : cursor + 1;
    }
    if (*cursor != delimiter) {
      lineNumber_ = startLine;
      failRow(SqlState::kBadCopyFileFormat, column, "unexpected characters after a quoted CSV field");
    }
    ++cursor;
  }
}

void DelimitedTextParser::parse(std::string_view block, uint64_t firstLineNumber, std::vector<engine::Chunk>& out) {
  const char* cursor = block.data();
  const char* end = cursor + block.size();
  // Trailing empty lines (a final newline) end the block; empty lines elsewhere are rows with missing data.
  while (end != cursor && (end[-1] == '\n' || end[-1] == '\r')) {
    if (end - 1 != cursor && end[-1] == '\n' && end[-2] != '\n' && end[-2] != '\r') break;
    --end;
  }
  lineNumber_ = firstLineNumber;
  startChunk();
  while (cursor < end) {
    cursor = options_.format == TextFileFormat::kCsv ? parseCsvLine(cursor, end) : parseTblLine(cursor, end);
    ++lineNumber_;
    if (++row_ == engine::kVectorSize) {
      finishChunk(out);
      startChunk();
    }
  }
  finishChunk(out);
}

}  // namespace shoal::worker
