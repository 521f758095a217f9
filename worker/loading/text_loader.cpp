#include "worker/loading/text_loader.h"

#include <algorithm>
#include <optional>

#include "common/status.h"
#include "proto/plan_codec.h"

namespace shoal::worker {
namespace {

/// `columns`, checked against the table; every column when empty.
std::vector<size_t> checkedColumns(const proto::TableLayout& layout, std::vector<size_t> columns) {
  std::vector<bool> seen(static_cast<size_t>(layout.columns_size()), false);
  for (size_t column : columns) {
    if (column >= seen.size() || seen[column]) {
      SHOAL_USER_FAIL(SqlState::kDataCorrupted, "COPY names column {} of {}'s {} columns twice or out of range", column,
                      layout.table_name(), seen.size());
    }
    seen[column] = true;
  }
  if (columns.empty()) {
    for (size_t column = 0; column < seen.size(); ++column) columns.push_back(column);
  }
  return columns;
}

std::vector<engine::LogicalType> columnTypesOf(const proto::TableLayout& layout, const std::vector<size_t>& columns) {
  std::vector<engine::LogicalType> types;
  for (size_t column : columns) types.push_back(proto::decodeType(layout.columns(static_cast<int>(column)).type()));
  return types;
}

std::vector<std::string> columnNamesOf(const proto::TableLayout& layout, const std::vector<size_t>& columns) {
  std::vector<std::string> names;
  for (size_t column : columns) names.push_back(layout.columns(static_cast<int>(column)).name());
  return names;
}

}  // namespace

TextLoader::TextLoader(uint64_t loadId, const proto::TableLayout& layout, std::vector<size_t> columns,
                       TextFormatOptions format, std::string sourceName, const std::string& selfAddress,
                       StorageManager& storage, PeerChannels& peers)
    : layout_(layout),
      columns_(checkedColumns(layout, std::move(columns))),
      parser_(columnTypesOf(layout, columns_), columnNamesOf(layout, columns_), format, std::move(sourceName)),
      router_(loadId, layout_, selfAddress, storage, peers) {}

void TextLoader::load(std::string_view block, uint64_t firstLineNumber) {
  chunks_.clear();
  parser_.parse(block, firstLineNumber, chunks_);
  const auto tableColumns = static_cast<size_t>(layout_.columns_size());
  for (auto& parsed : chunks_) {
    rows_ += parsed.size();
    if (columns_.size() == tableColumns && std::is_sorted(columns_.begin(), columns_.end())) {
      router_.route(std::move(parsed));
      continue;
    }
    // COPY t (b, a): the parsed fields go to their columns, and the columns not named are NULL (storage
    // then refuses a NOT NULL one with 23502, as PostgreSQL does).
    std::vector<std::optional<engine::Vector>> placed(tableColumns);
    for (size_t field = 0; field < columns_.size(); ++field) placed[columns_[field]] = std::move(parsed.column(field));
    engine::Chunk chunk(parsed.size());
    for (size_t column = 0; column < tableColumns; ++column) {
      if (!placed[column]) {
        placed[column].emplace(proto::decodeType(layout_.columns(static_cast<int>(column)).type()), parsed.size());
        for (size_t row = 0; row < parsed.size(); ++row) placed[column]->setNull(row, true);
      }
      chunk.addColumn(std::move(*placed[column]));
    }
    router_.route(std::move(chunk));
  }
}

}  // namespace shoal::worker
