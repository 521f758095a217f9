#include "engine/expression/quote_functions.h"

#include "common/status.h"
#include "engine/expression/sql_keywords.h"

namespace shoal::engine {
namespace {

std::string quoteLiteral(std::string_view text) {
  const bool escaped = text.find('\\') != std::string_view::npos;
  std::string out = escaped ? "E'" : "'";
  for (char c : text) {
    if (c == '\'' || (c == '\\' && escaped)) out += c;
    out += c;
  }
  return out + "'";
}

[[noreturn]] void badFormat(std::string message, std::string hint = {}) {
  throw ShoalError(Status(SqlState::kInvalidParameterValue, std::move(message)).withHint(std::move(hint)));
}

/// One row of format(): `arguments[0]` is the format string, the rest its values (nullopt for NULL).
std::string formatRow(std::string_view format, const std::vector<std::optional<std::string>>& values) {
  std::string out;
  size_t nextValue = 0;
  auto readNumber = [&](size_t& pos) -> std::optional<size_t> {
    if (pos >= format.size() || format[pos] < '0' || format[pos] > '9') return std::nullopt;
    size_t number = 0;
    while (pos < format.size() && format[pos] >= '0' && format[pos] <= '9') {
      number = number * 10 + static_cast<size_t>(format[pos++] - '0');
      if (number > 100000000) badFormat("number is out of range");
    }
    return number;
  };
  auto valueAt = [&](size_t index) -> const std::optional<std::string>& {
    if (index >= values.size()) badFormat("too few arguments for format()");
    return values[index];
  };
  // An argument named by position (n$ after a number) or the next one.
  auto takeArgument = [&](size_t& pos) -> size_t {
    size_t save = pos;
    if (auto number = readNumber(pos); number && pos < format.size() && format[pos] == '$') {
      ++pos;
      if (*number == 0) badFormat("format specifies argument 0, but arguments are numbered from 1");
      nextValue = *number;
      return *number - 1;
    }
    pos = save;
    return nextValue++;
  };
  for (size_t pos = 0; pos < format.size(); ++pos) {
    if (format[pos] != '%') {
      out += format[pos];
      continue;
    }
    if (++pos >= format.size()) badFormat("unterminated format() type specifier", "For a single \"%\" use \"%%\".");
    if (format[pos] == '%') {
      out += '%';
      continue;
    }
    // %[n$][-][width|*|*n$]type
    std::optional<size_t> argument;
    size_t save = pos;
    if (auto number = readNumber(pos); number && pos < format.size() && format[pos] == '$') {
      if (*number == 0) badFormat("format specifies argument 0, but arguments are numbered from 1");
      argument = *number - 1;
      ++pos;
    } else {
      pos = save;
    }
    bool leftAlign = false;
    while (pos < format.size() && format[pos] == '-') {
      leftAlign = true;
      ++pos;
    }
    int64_t width = 0;
    if (pos < format.size() && format[pos] == '*') {
      ++pos;
      const auto& widthValue = valueAt(takeArgument(pos));
      if (widthValue) {
        width = std::stoll(*widthValue);
        if (width < 0) {
          leftAlign = true;
          width = -width;
        }
      }
    } else if (auto number = readNumber(pos)) {
      width = static_cast<int64_t>(*number);
    }
    if (pos >= format.size()) badFormat("unterminated format() type specifier", "For a single \"%\" use \"%%\".");
    const char type = format[pos];
    if (type != 's' && type != 'I' && type != 'L') {
      badFormat(fmt::format("unrecognized format() type specifier \"{}\"", type), "For a single \"%\" use \"%%\".");
    }
    size_t index = argument ? *argument : nextValue;
    if (argument) {
      nextValue = *argument + 1;
    } else {
      ++nextValue;
    }
    const auto& value = valueAt(index);
    std::string text;
    if (type == 'I') {
      if (!value) {
        throw ShoalError(
            Status(SqlState::kNullValueNotAllowed, "null values cannot be formatted as an SQL identifier"));
      }
      text = quoteIdentifier(*value);
    } else if (type == 'L') {
      text = value ? quoteLiteral(*value) : "NULL";
    } else if (value) {
      text = *value;
    }
    // Width counts characters (UTF-8 lead bytes).
    int64_t characters = 0;
    for (char c : text) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (characters < width && !leftAlign) out.append(static_cast<size_t>(width - characters), ' ');
    out += text;
    if (characters < width && leftAlign) out.append(static_cast<size_t>(width - characters), ' ');
  }
  return out;
}

}  // namespace

Vector evaluateQuote(ScalarFunction function, const Vector& input) {
  Vector out(LogicalType::text(), input.size());
  for (size_t row = 0; row < input.size(); ++row) {
    if (input.isNull(row)) {
      if (function == ScalarFunction::kQuoteNullable) {
        out.setString(row, "NULL");
      } else {
        out.setNull(row, true);
      }
      continue;
    }
    std::string_view text = input.data<StringRef>()[row].view();
    out.setString(row, function == ScalarFunction::kQuoteIdent ? quoteIdentifier(text) : quoteLiteral(text));
  }
  return out;
}

Vector evaluateFormat(std::span<const Vector* const> arguments) {
  const size_t numRows = arguments[0]->size();
  Vector out(LogicalType::text(), numRows);
  std::vector<std::optional<std::string>> values(arguments.size() - 1);
  for (size_t row = 0; row < numRows; ++row) {
    if (arguments[0]->isNull(row)) {
      out.setNull(row, true);
      continue;
    }
    for (size_t i = 1; i < arguments.size(); ++i) {
      if (arguments[i]->isNull(row)) {
        values[i - 1].reset();
      } else {
        values[i - 1] = std::string(arguments[i]->data<StringRef>()[row].view());
      }
    }
    out.setString(row, formatRow(arguments[0]->data<StringRef>()[row].view(), values));
  }
  return out;
}

}  // namespace shoal::engine
