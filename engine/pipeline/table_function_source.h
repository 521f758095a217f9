#pragma once

#include <cstdint>
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

/// The rows of a table function whose arguments are known before it runs (constants and parameters), as
/// PostgreSQL 15 gives them: one column of `valueType`, plus a BIGINT ordinality column (1, 2, ...) when
/// `withOrdinality`. A NULL argument gives no rows; generate_series fails with 22023 on a step of 0.
/// Rows are made a morsel (kVectorSize rows) at a time, so a long series is never held in memory.
class TableFunctionSource final : public ChunkSource {
 public:
  TableFunctionSource(TableFunction function, std::vector<Value> arguments, LogicalType valueType, bool withOrdinality);

  size_t numMorsels() const override { return (numRows_ + kRowsPerMorsel - 1) / kRowsPerMorsel; }
  void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const override;

 private:
  static constexpr size_t kRowsPerMorsel = 2048;  // kVectorSize

  TableFunction function_;
  LogicalType valueType_;
  bool withOrdinality_;
  uint64_t numRows_ = 0;
  // generate_series and generate_subscripts: value i is start_ + i * step_.
  int64_t start_ = 0;
  int64_t step_ = 1;
  // unnest: the elements.
  std::vector<Value> elements_;
};

}  // namespace shoal::engine
