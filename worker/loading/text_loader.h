#pragma once

#include <memory>
#include <string>
#include <vector>

#include "proto/storage.pb.h"
#include "worker/loading/row_router.h"
#include "worker/storage/delimited_text_parser.h"

namespace shoal::worker {

/// Parses blocks of one table's text and routes the rows to their owners.
/// One per thread and table.
class TextLoader {
 public:
  /// `columns`: the table columns a line's fields fill, in order (COPY t (b, a)), the others NULL; empty:
  /// every column in table order. Fails with XX001 on indexes that are not the table's.
  TextLoader(uint64_t loadId, const proto::TableLayout& layout, std::vector<size_t> columns, TextFormatOptions format,
             std::string sourceName, const std::string& selfAddress, StorageManager& storage, PeerChannels& peers);

  void load(std::string_view block, uint64_t firstLineNumber);
  /// Flushes the rows still on their way to peers; fails with a peer's error.
  void finish() { router_.finish(); }
  uint64_t rows() const { return rows_; }

 private:
  proto::TableLayout layout_;
  std::vector<size_t> columns_;  // empty: all
  DelimitedTextParser parser_;
  RowRouter router_;
  std::vector<engine::Chunk> chunks_;
  uint64_t rows_ = 0;
};

}  // namespace shoal::worker
