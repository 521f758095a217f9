#include "engine/types/json_text.h"

#include <fmt/format.h>

#include "common/status.h"
#include "engine/types/json_parser.h"

namespace shoal::engine {

void requireValidJson(std::string_view text) {
  JsonReader(text).wholeValue();
}

void appendJsonString(std::string_view text, std::string& out) {
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
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
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace shoal::engine
