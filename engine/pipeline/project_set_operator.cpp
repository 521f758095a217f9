#include "engine/pipeline/project_set_operator.h"

#include <algorithm>
#include <deque>

#include "engine/expression/expression_evaluator.h"
#include "engine/pipeline/query_memory.h"

namespace shoal::engine {

ProjectSetOperator::ProjectSetOperator(std::vector<SetFunctionCall> calls) : calls_(std::move(calls)) {
  for (const auto& call : calls_) {
    std::vector<Value> constants;
    for (const auto& argument : call.arguments) {
      if (argument->kind() != ExpressionKind::kConstant) break;
      constants.push_back(static_cast<const ConstantExpression&>(*argument).value());
    }
    if (constants.size() == call.arguments.size()) {
      constantRows_.emplace_back(std::in_place, call.function, constants, call.valueType);
    } else {
      constantRows_.emplace_back(std::nullopt);
    }
  }
}

void ProjectSetOperator::execute(Chunk& chunk) const {
  ExpressionEvaluator evaluator;
  std::vector<std::vector<Vector>> arguments(calls_.size());
  for (size_t j = 0; j < calls_.size(); ++j) {
    if (constantRows_[j]) continue;
    for (const auto& argument : calls_[j].arguments) arguments[j].push_back(evaluator.evaluate(*argument, chunk));
  }
  // Each input row's function rows (kept in `computed`, or the constant ones), and the input row each output
  // row repeats.
  std::deque<SetFunctionRows> computed;
  std::vector<std::vector<const SetFunctionRows*>> rowsOf(chunk.size());
  std::vector<uint32_t> inputRow;
  std::vector<Value> values;
  const uint64_t bytesPerRow = sizeof(uint32_t) + (chunk.numColumns() + calls_.size()) * 16;
  uint64_t reserved = 0;
  for (size_t row = 0; row < chunk.size(); ++row) {
    uint64_t longest = 0;
    for (size_t j = 0; j < calls_.size(); ++j) {
      if (constantRows_[j]) {
        rowsOf[row].push_back(&*constantRows_[j]);
      } else {
        values.clear();
        for (const auto& argument : arguments[j]) values.push_back(argument.getValue(row));
        rowsOf[row].push_back(&computed.emplace_back(calls_[j].function, values, calls_[j].valueType));
      }
      longest = std::max(longest, rowsOf[row].back()->size());
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
    std::optional<Vector> ordinality;
    if (calls_[j].withOrdinality) ordinality.emplace(LogicalType::bigInt(), inputRow.size());
    // Each input row's stretch of output rows: the function's rows, then NULLs up to the longest function's.
    size_t at = 0;
    for (size_t row = 0; row < chunk.size(); ++row) {
      const SetFunctionRows& rows = *rowsOf[row][j];
      for (uint64_t index = 0; at < inputRow.size() && inputRow[at] == row; ++at, ++index) {
        if (index < rows.size()) {
          rows.write(index, results, at);
          if (ordinality) ordinality->data<int64_t>()[at] = static_cast<int64_t>(index + 1);
        } else {
          results.setNull(at, true);
          if (ordinality) ordinality->setNull(at, true);
        }
      }
    }
    out.addColumn(std::move(results));
    if (ordinality) out.addColumn(std::move(*ordinality));
  }
  chunk = std::move(out);
  releaseQueryMemory(reserved);  // the chunk moves on; whoever keeps its rows charges them
}

}  // namespace shoal::engine
