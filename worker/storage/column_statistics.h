#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/aggregate/hyper_log_log.h"
#include "engine/types/logical_type.h"
#include "engine/types/value.h"

namespace shoal::engine {
class Vector;
}  // namespace shoal::engine

namespace shoal::worker {

/// Statistics of one column, collected while loading: rows, NULLs, min and max
/// of the non-NULL values, and a HyperLogLog of their hash64 for the number of
/// distinct values. The optimizer reads them for selectivity and join-size
/// estimates; the catalog stores them serialized.
///
/// Ordering follows the engine's: strings compare byte-wise (C collation), CHAR
/// values without their trailing spaces; DOUBLE NaN sorts above every number,
/// as in PostgreSQL. Equal values hash equally (-0.0 and 0.0, every NaN; CHAR
/// 'a' and 'a  '), so they count once.
///
/// Not thread-safe: each loading thread updates its own instance, then merges.
class ColumnStatistics {
 public:
  explicit ColumnStatistics(engine::LogicalType type);

  const engine::LogicalType& type() const { return type_; }

  /// Adds rows [0, numRows) of `vector`, whose type must have this column's
  /// type id and physical type (XX000 otherwise). Typed loops; no Value per row.
  void update(const engine::Vector& vector, size_t numRows);
  /// update() without the range: for rows whose smallest and largest values
  /// are known already (a segment's zone map), given to widenRange, so that
  /// only the distinct-count sketch reads the values.
  void updateDistinct(const engine::Vector& vector, size_t numRows);
  /// Widens the range to [min, max] (non-NULL values of this column's type;
  /// NULLs, the range of rows that are all NULL, change nothing).
  void widenRange(const engine::Value& min, const engine::Value& max);

  /// Counts rows whose values were already added (they move no min, max or
  /// distinct count) and NULL rows: a dictionary-coded segment adds its
  /// dictionary with update() and the rest of its rows here.
  void addRepeatedRows(uint64_t repeatedRows, uint64_t nullRows) {
    rowCount_ += repeatedRows + nullRows;
    nullCount_ += nullRows;
  }

  /// Folds in the statistics of other rows of the same column (XX000 on a type mismatch).
  void merge(const ColumnStatistics& other);

  uint64_t rowCount() const { return rowCount_; }
  uint64_t nullCount() const { return nullCount_; }
  uint64_t nonNullCount() const { return rowCount_ - nullCount_; }
  /// Returns the estimated number of distinct non-NULL values (HyperLogLog,
  /// about 1 % error), clamped to [1, nonNullCount()] when any row is non-NULL, else 0.
  uint64_t distinctCount() const;

  /// The smallest and largest non-NULL values, of this column's type; NULL values while none was seen.
  const engine::Value& min() const { return min_; }
  const engine::Value& max() const { return max_; }

  const engine::HyperLogLog& sketch() const { return sketch_; }

  /// Returns a self-describing, versioned and checksummed byte string.
  std::string serialize() const;
  /// Rebuilds statistics of a column of `type` from serialize()'s bytes. Fails
  /// with XX001 (data corrupted) on truncated, malformed or checksum-failing
  /// bytes, or bytes written for a column of another type.
  static ColumnStatistics deserialize(engine::LogicalType type, std::string_view bytes);

  /// Describes the statistics (counts, min, max, distinct), for EXPLAIN and debugging.
  std::string toString() const;

 private:
  void scan(const engine::Vector& vector, size_t numRows, bool trackRange);

  engine::LogicalType type_;
  uint64_t rowCount_ = 0;
  uint64_t nullCount_ = 0;
  engine::Value min_;
  engine::Value max_;
  engine::HyperLogLog sketch_;
};

}  // namespace shoal::worker
