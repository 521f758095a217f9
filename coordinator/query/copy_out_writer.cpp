#include "coordinator/query/copy_out_writer.h"

namespace shoal::coordinator {

CopyOutWriter::CopyOutWriter(sql::CopyFormat format, size_t numColumns, const engine::TimeZone* zone)
    : format_(std::move(format)), numColumns_(numColumns), zone_(zone) {
  format_.forceQuote.resize(numColumns, false);
}

void CopyOutWriter::appendHeader(const std::vector<std::string>& names, std::string& out) {
  for (size_t column = 0; column < names.size(); ++column) {
    if (column > 0) out += format_.delimiter;
    if (format_.kind == sql::CopyFormat::Kind::kCsv) {
      appendCsvField(names[column], false, out);  // FORCE_QUOTE does not apply to names
    } else {
      appendTextField(names[column], out);
    }
  }
  out += '\n';
}

void CopyOutWriter::appendRow(const engine::Chunk& chunk, size_t row, std::string& out) {
  for (size_t column = 0; column < numColumns_; ++column) {
    if (column > 0) out += format_.delimiter;
    const engine::Vector& vector = chunk.column(column);
    if (vector.isNull(row)) {
      out += format_.nullText;  // written as it is, never escaped or quoted
      continue;
    }
    value_.clear();
    vector.appendText(row, value_, zone_);
    appendField(value_, column, out);
  }
  out += '\n';
}

void CopyOutWriter::appendField(std::string_view value, size_t column, std::string& out) const {
  if (format_.kind != sql::CopyFormat::Kind::kCsv) {
    appendTextField(value, out);
    return;
  }
  appendCsvField(value, format_.forceQuote[column], out);
}

void CopyOutWriter::appendTextField(std::string_view value, std::string& out) const {
  for (char c : value) {
    switch (c) {
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\v':
        out += "\\v";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c == format_.delimiter) out += '\\';
        out += c;
    }
  }
}

void CopyOutWriter::appendCsvField(std::string_view value, bool quote, std::string& out) const {
  // A value that reads like NULL is quoted, so that it reads back as itself (names too, as PostgreSQL does).
  quote = quote || value == format_.nullText;
  if (!quote) {
    // "\." alone on a line would read as the end of the data.
    quote = numColumns_ == 1 && value == "\\.";
    for (char c : value) {
      if (c == format_.delimiter || c == format_.quote || c == '\n' || c == '\r') {
        quote = true;
        break;
      }
    }
  }
  if (!quote) {
    out += value;
    return;
  }
  out += format_.quote;
  for (char c : value) {
    if (c == format_.quote || c == format_.escape) out += format_.escape;
    out += c;
  }
  out += format_.quote;
}

}  // namespace shoal::coordinator
