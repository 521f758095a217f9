#pragma once

#include <string>
#include <vector>

#include "engine/vector/vector.h"

namespace shoal::engine {

/// A horizontal slice of a relation: one Vector per column, all of `size()` rows.
/// A chunk with no columns still has a row count (SELECT without FROM has one row).
class Chunk {
 public:
  Chunk() = default;
  explicit Chunk(size_t numRows) : size_(numRows) {}
  Chunk(std::vector<Vector> columns, size_t numRows) : columns_(std::move(columns)), size_(numRows) {}

  size_t size() const { return size_; }
  void setSize(size_t numRows) { size_ = numRows; }
  size_t numColumns() const { return columns_.size(); }
  Vector& column(size_t index) { return columns_[index]; }
  const Vector& column(size_t index) const { return columns_[index]; }
  void addColumn(Vector column) { columns_.push_back(std::move(column)); }
  /// Bytes its columns hold, for memory accounting.
  size_t memoryBytes() const {
    size_t bytes = 0;
    for (const auto& column : columns_) bytes += column.memoryBytes();
    return bytes;
  }

  std::string toString() const;

 private:
  std::vector<Vector> columns_;
  size_t size_ = 0;
};

}  // namespace shoal::engine
