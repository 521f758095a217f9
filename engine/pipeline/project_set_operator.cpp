#include "engine/pipeline/project_set_operator.h"

#include <algorithm>

#include "engine/expression/expression_evaluator.h"
#include "engine/pipeline/query_memory.h"

namespace shoal::engine {

void ProjectSetOperator::execute(Chunk& chunk) const {
  ExpressionEvaluator evaluator;
  std::vector<std::vector<Vector>> arguments(calls_.size());
  for (size_t j = 0; j < calls_.size(); ++j) {
    for (const auto& argument : calls_[j].arguments) arguments[j].push_back(evaluator.evaluate(*argument, chunk));
  }
  // Each input row's function rows, and the input row each output row repeats.
  std::vector<std::vector<SetFunctionRows>> rowsOf(chunk.size());
  std::vector<uint32_t> inputRow;
  std::vector<Value> values;
  const uint64_t bytesPerRow = sizeof(uint32_t) + (chunk.numColumns() + calls_.size()) * 16;
  uint64_t reserved = 0;
  for (size_t row = 0; row < chunk.size(); ++row) {
    uint64_t longest = 0;
    for (size_t j = 0; j < calls_.size(); ++j) {
      values.clear();
      for (const auto& argument : arguments[j]) values.push_back(argument.getValue(row));
      rowsOf[row].emplace_back(calls_[j].function, values, calls_[j].valueType);
      longest = std::max(longest, rowsOf[row].back().size());
    }
    // The output chunk is laid out whole: a long series fails cleanly at the query's memory limit first.
    reserveQueryMemory(longest * bytesPerRow);
    reserved += longest * bytesPerRow;
    inputRow.insert(inputRow.end(), longest, static_cast<uint32_t>(row));
  }
  Chunk out(inputRow.size());
  for (size_t column = 0; column < chunk.numColumns(); ++column) out.addColumn(chunk.column(column).select(inputRow));
  for (size_t j = 0; j < calls_.size(); ++j) {
    Vector results(calls_[j].valueType, inputRow.size());
    // Each input row's stretch of output rows: the function's rows, then NULLs up to the longest function's.
    size_t at = 0;
    for (size_t row = 0; row < chunk.size(); ++row) {
      const SetFunctionRows& rows = rowsOf[row][j];
      for (uint64_t index = 0; at < inputRow.size() && inputRow[at] == row; ++at, ++index) {
        if (index < rows.size()) {
          rows.write(index, results, at);
        } else {
          results.setNull(at, true);
        }
      }
    }
    out.addColumn(std::move(results));
  }
  chunk = std::move(out);
  releaseQueryMemory(reserved);  // the chunk moves on; whoever keeps its rows charges them
}

}  // namespace shoal::engine
