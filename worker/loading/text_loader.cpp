#include "worker/loading/text_loader.h"

#include "proto/plan_codec.h"

namespace shoal::worker {
namespace {

std::vector<engine::LogicalType> columnTypesOf(const proto::TableLayout& layout) {
  std::vector<engine::LogicalType> types;
  for (const auto& column : layout.columns()) types.push_back(proto::decodeType(column.type()));
  return types;
}

std::vector<std::string> columnNamesOf(const proto::TableLayout& layout) {
  std::vector<std::string> names;
  for (const auto& column : layout.columns()) names.push_back(column.name());
  return names;
}

}  // namespace

TextLoader::TextLoader(uint64_t loadId, const proto::TableLayout& layout, TextFormatOptions format,
                       std::string sourceName, const std::string& selfAddress, StorageManager& storage,
                       PeerChannels& peers)
    : layout_(layout),
      parser_(columnTypesOf(layout), columnNamesOf(layout), format, std::move(sourceName)),
      router_(loadId, layout_, selfAddress, storage, peers) {}

void TextLoader::load(std::string_view block, uint64_t firstLineNumber) {
  chunks_.clear();
  parser_.parse(block, firstLineNumber, chunks_);
  for (auto& chunk : chunks_) {
    rows_ += chunk.size();
    router_.route(std::move(chunk));
  }
}

}  // namespace shoal::worker
