#include "worker/storage/segment.h"

namespace shoal::worker {

std::unique_ptr<Segment> Segment::build(std::span<const engine::LogicalType> types,
                                        std::span<const engine::Chunk> chunks, uint32_t numaNode,
                                        SegmentMemory& memory) {
  size_t numRows = 0;
  for (const auto& chunk : chunks) numRows += chunk.size();
  SHOAL_CHECK(numRows <= kSegmentRows, "segment of {} rows", numRows);
  std::vector<std::unique_ptr<ColumnSegment>> columns;
  std::vector<const engine::Vector*> sources(chunks.size());
  for (size_t c = 0; c < types.size(); ++c) {
    for (size_t i = 0; i < chunks.size(); ++i) {
      SHOAL_CHECK(chunks[i].column(c).size() == chunks[i].size(), "column of {} rows in a chunk of {}",
                  chunks[i].column(c).size(), chunks[i].size());
      sources[i] = &chunks[i].column(c);
    }
    columns.push_back(std::make_unique<ColumnSegment>(types[c], sources, numRows, numaNode, memory));
  }
  return std::make_unique<Segment>(std::move(columns), numRows, numaNode);
}

void Segment::read(size_t start, size_t count, std::span<const size_t> columnIndexes, engine::Chunk& out) const {
  SHOAL_DCHECK(out.numColumns() == columnIndexes.size());
  for (size_t i = 0; i < columnIndexes.size(); ++i) {
    columns_[columnIndexes[i]]->read(start, count, out.column(i));
  }
  out.setSize(count);
}

size_t Segment::memoryBytes() const {
  size_t bytes = 0;
  for (const auto& column : columns_) bytes += column->memoryBytes();
  return bytes;
}

}  // namespace shoal::worker
