#include "engine/types/record_type.h"

#include <cctype>
#include <mutex>

#include "common/status.h"
#include "engine/types/array_value.h"
#include "engine/types/value.h"

namespace shoal::engine {
namespace {

struct ShapeRegistry {
  std::mutex mutex;
  std::vector<std::vector<RecordField>> shapes;
};

ShapeRegistry& registry() {
  static auto* const shapes = new ShapeRegistry;
  return *shapes;
}

bool sameFields(const std::vector<RecordField>& a, const std::vector<RecordField>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || !(a[i].type == b[i].type)) return false;
  }
  return true;
}

bool needsQuotes(std::string_view field) {
  if (field.empty()) return true;
  for (char c : field) {
    if (c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' || std::isspace(static_cast<unsigned char>(c))) {
      return true;
    }
  }
  return false;
}

}  // namespace

uint32_t registerRecordShape(const std::vector<RecordField>& fields) {
  auto& shapes = registry();
  std::lock_guard lock(shapes.mutex);
  for (size_t i = 0; i < shapes.shapes.size(); ++i) {
    if (sameFields(shapes.shapes[i], fields)) return static_cast<uint32_t>(i + 1);
  }
  shapes.shapes.push_back(fields);
  return static_cast<uint32_t>(shapes.shapes.size());
}

std::vector<RecordField> recordShape(uint32_t shape) {
  auto& shapes = registry();
  std::lock_guard lock(shapes.mutex);
  if (shape == 0 || shape > shapes.shapes.size()) {
    SHOAL_USER_FAIL(SqlState::kInternalError, "record type {} is not registered", shape);
  }
  return shapes.shapes[shape - 1];
}

std::string encodeRecord(std::span<const std::optional<std::string>> fields) {
  std::vector<Value> texts;
  texts.reserve(fields.size());
  for (const auto& field : fields) texts.push_back(field ? Value::varchar(*field) : Value::null(LogicalType::text()));
  return encodeArray(texts, LogicalType::text());
}

std::optional<std::string> recordFieldText(std::string_view bytes, size_t index) {
  std::vector<Value> fields = decodeArray(bytes, LogicalType::array(LogicalType::text()));
  if (index >= fields.size() || fields[index].isNull()) return std::nullopt;
  return fields[index].asString();
}

void appendRecordText(std::string_view bytes, std::string& out) {
  out += '(';
  bool first = true;
  for (const Value& field : decodeArray(bytes, LogicalType::array(LogicalType::text()))) {
    if (!first) out += ',';
    first = false;
    if (field.isNull()) continue;
    const std::string text = field.asString();
    if (!needsQuotes(text)) {
      out += text;
      continue;
    }
    out += '"';
    for (char c : text) {
      if (c == '"' || c == '\\') out += c;  // doubled, as record_out doubles them
      out += c;
    }
    out += '"';
  }
  out += ')';
}

}  // namespace shoal::engine
