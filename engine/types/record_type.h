#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types/logical_type.h"

namespace shoal::engine {

// PostgreSQL's anonymous records: what a function with OUT parameters returns, such as
// information_schema._pg_expandarray(anyarray, OUT x anyelement, OUT n int). A record value (TypeId::kRecord)
// holds its fields' texts, NULL or not, encoded as a text[] (array_value.h), so that it travels through
// exchanges and plans like any string. Its fields' names and types, which the binder needs to select a field,
// are the record type's shape: registered once per process by the coordinator that binds, and named in the
// type by its number. Executing a plan never needs the shape.

struct RecordField {
  std::string name;
  LogicalType type;
};

/// The number of the shape with these fields, registering it when new.
uint32_t registerRecordShape(const std::vector<RecordField>& fields);
/// The fields of shape `shape`; fails with XX000 for a number that was never registered here.
std::vector<RecordField> recordShape(uint32_t shape);

/// A record value's bytes from its fields' texts (nullopt: NULL).
std::string encodeRecord(std::span<const std::optional<std::string>> fields);
/// Field `index` (0-based) of a record's bytes, nullopt when NULL or past the last field.
std::optional<std::string> recordFieldText(std::string_view bytes, size_t index);
/// PostgreSQL's record_out: (1,abc), ("a b",,"x""y"): a field is quoted when empty or when it holds a quote,
/// a backslash, a parenthesis, a comma or white space; a NULL field is empty.
void appendRecordText(std::string_view bytes, std::string& out);

}  // namespace shoal::engine
