#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "engine/pipeline/pipeline.h"
#include "engine/types/value.h"

namespace shoal::engine {

/// The set-returning functions that can stand in FROM.
enum class TableFunction : uint8_t {
  kGenerateSeries,      // generate_series(start, stop [, step]) over integer or bigint
  kUnnest,              // unnest(array): its elements, in order
  kGenerateSubscripts,  // generate_subscripts(array, dimension [, reverse]): the array's subscripts
};
inline constexpr TableFunction kLastTableFunction = TableFunction::kGenerateSubscripts;

std::string_view tableFunctionName(TableFunction function);

/// The rows one call of a set-returning function gives for its argument values, as PostgreSQL 15 gives them:
/// a NULL argument gives none; generate_series fails with 22023 on a step of 0. Row i is computed when asked
/// for, so a long series is never held in memory.
class SetFunctionRows {
 public:
  SetFunctionRows(TableFunction function, std::span<const Value> arguments, LogicalType valueType);

  uint64_t size() const { return numRows_; }
  /// Writes row `row` of the function into row `at` of `out` (of the function's value type).
  void write(uint64_t row, Vector& out, size_t at) const;

 private:
  TableFunction function_;
  LogicalType valueType_;
  uint64_t numRows_ = 0;
  // generate_series and generate_subscripts: value i is start_ + i * step_.
  int64_t start_ = 0;
  int64_t step_ = 1;
  // unnest: the elements.
  std::vector<Value> elements_;
};

/// The rows of a table function in FROM whose arguments are known before it runs (constants and parameters):
/// one column of `valueType`, plus a BIGINT ordinality column (1, 2, ...) when `withOrdinality`. Rows are made
/// a morsel (kVectorSize rows) at a time.
class TableFunctionSource final : public ChunkSource {
 public:
  TableFunctionSource(TableFunction function, std::vector<Value> arguments, LogicalType valueType, bool withOrdinality);

  size_t numMorsels() const override { return (rows_.size() + kRowsPerMorsel - 1) / kRowsPerMorsel; }
  void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const override;

 private:
  static constexpr size_t kRowsPerMorsel = 2048;  // kVectorSize

  LogicalType valueType_;
  bool withOrdinality_;
  SetFunctionRows rows_;
};

}  // namespace shoal::engine
