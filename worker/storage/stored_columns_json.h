#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "worker/storage/table_partition.h"

namespace shoal::worker {

// A table's columns as the manifest and every segment file's header write them (docs/storage-format.md):
// [{"name", "type": [type id, precision, scale, max length], "not_null"}, ...].

nlohmann::json storedColumnsToJson(const std::vector<StoredColumn>& columns);
/// Throws nlohmann::json::exception on a malformed list.
std::vector<StoredColumn> storedColumnsFromJson(const nlohmann::json& columns);

}  // namespace shoal::worker
