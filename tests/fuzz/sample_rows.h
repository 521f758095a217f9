#pragma once

// Rows of given types made from text, for the fuzzers' inputs and seeds: each text is cast as a literal of the
// column's type would be ('1' to 1, 1.00, 2000-01-01's day 1 ...); a text the type refuses gives NULL.

#include <string>
#include <vector>

#include "common/status.h"
#include "engine/types/text_format.h"
#include "engine/vector/chunk.h"

namespace shoal::fuzz {

inline engine::Chunk sampleRows(const std::vector<engine::LogicalType>& types, const std::vector<std::string>& texts) {
  std::vector<engine::Vector> columns;
  for (const auto& type : types) {
    engine::Vector column(type, texts.size() + 1);
    column.setValue(0, engine::Value::null(type));
    for (size_t row = 0; row < texts.size(); ++row) {
      try {
        column.setValue(row + 1, engine::parseValue(texts[row], type));
      } catch (const ShoalError&) {
        column.setValue(row + 1, engine::Value::null(type));
      }
    }
    columns.push_back(std::move(column));
  }
  return engine::Chunk(std::move(columns), texts.size() + 1);
}

}  // namespace shoal::fuzz
