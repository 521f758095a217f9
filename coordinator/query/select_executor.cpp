#include "coordinator/query/select_executor.h"

#include <numeric>

#include "engine/expression/expression_evaluator.h"

namespace shoal::coordinator {
namespace {

engine::Chunk selectRows(const engine::Chunk& chunk, std::span<const uint32_t> rows) {
  engine::Chunk selected(rows.size());
  for (size_t column = 0; column < chunk.numColumns(); ++column) {
    selected.addColumn(chunk.column(column).select(rows));
  }
  return selected;
}

}  // namespace

QueryResult SelectExecutor::run(const sql::BoundSelect& select) const {
  QueryResult result;
  for (size_t i = 0; i < select.projections.size(); ++i) {
    result.columns.push_back(ResultColumn{select.columnNames[i], select.projections[i]->type()});
  }
  std::vector<engine::Chunk> input;
  if (select.from) {
    input = catalog_.scan(select.from->name);
  } else {
    input.emplace_back(1);  // SELECT without FROM: one row of no columns
  }
  engine::ExpressionEvaluator evaluator(parameters_);
  auto rowsToSkip = static_cast<uint64_t>(select.offset);
  // No LIMIT is a limit no result reaches.
  uint64_t rowsLeft = select.limit ? static_cast<uint64_t>(*select.limit) : UINT64_MAX;
  std::vector<uint32_t> rows;
  for (auto& chunk : input) {
    if (cancelRequested_.load(std::memory_order_relaxed)) {
      SHOAL_USER_FAIL(SqlState::kQueryCanceled, "canceling statement due to user request");
    }
    if (rowsLeft == 0) break;
    rows.resize(chunk.size());
    std::iota(rows.begin(), rows.end(), 0);
    if (select.where) {
      engine::Vector predicate = evaluator.evaluate(*select.where, chunk);
      const uint8_t* matches = predicate.data<uint8_t>();
      std::erase_if(rows, [&](uint32_t row) { return predicate.isNull(row) || !matches[row]; });
    }
    size_t skip = std::min<uint64_t>(rowsToSkip, rows.size());
    rowsToSkip -= skip;
    rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(skip));
    rows.resize(std::min<uint64_t>(rows.size(), rowsLeft));
    rowsLeft -= rows.size();
    if (rows.empty()) continue;
    engine::Chunk filtered = rows.size() == chunk.size() ? std::move(chunk) : selectRows(chunk, rows);
    engine::Chunk projected(filtered.size());
    for (const auto& projection : select.projections) {
      projected.addColumn(evaluator.evaluate(*projection, filtered));
    }
    result.chunks.push_back(std::move(projected));
  }
  return result;
}

}  // namespace shoal::coordinator
