#include "coordinator/query/recursive_queries.h"

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "common/status.h"
#include "coordinator/query/plan_executor.h"
#include "engine/pipeline/collect_sink.h"
#include "sql/optimizer/optimizer.h"
#include "sql/plan/plan_copy.h"

namespace shoal::coordinator {

namespace {

using Rows = std::shared_ptr<const std::vector<engine::Chunk>>;

void collectMaterialized(sql::LogicalOperator& op, std::vector<sql::LogicalMaterialized*>& found) {
  if (op.kind() == sql::LogicalOperatorKind::kMaterialized)
    found.push_back(static_cast<sql::LogicalMaterialized*>(&op));
  for (auto& child : op.children) collectMaterialized(*child, found);
}

bool readsUncomputedQuery(const sql::LogicalOperator& op) {
  if (op.kind() == sql::LogicalOperatorKind::kMaterialized) {
    const auto& node = static_cast<const sql::LogicalMaterialized&>(op);
    if (node.query && !node.rows) return true;
  }
  return std::any_of(op.children.begin(), op.children.end(),
                     [](const auto& child) { return readsUncomputedQuery(*child); });
}

size_t rowCount(const std::vector<engine::Chunk>& chunks) {
  size_t rows = 0;
  for (const auto& chunk : chunks) rows += chunk.size();
  return rows;
}

/// The rows of a result small enough to read in one morsel, in one chunk: the plan that reads them then sees
/// them in the order the steps gave them, as PostgreSQL returns them (a larger one stays in morsels).
constexpr size_t kOneMorselRows = 1 << 16;

std::vector<engine::Chunk> inOneChunk(std::vector<engine::Chunk> chunks, const std::vector<sql::PlanColumn>& columns) {
  const size_t rows = rowCount(chunks);
  if (chunks.size() <= 1 || rows > kOneMorselRows) return chunks;
  engine::Chunk whole(rows);
  for (size_t column = 0; column < columns.size(); ++column) {
    engine::Vector values(columns[column].type, rows);
    size_t row = 0;
    for (const auto& chunk : chunks) {
      for (size_t i = 0; i < chunk.size(); ++i) values.setValue(row++, chunk.column(column).getValue(i));
    }
    whole.addColumn(std::move(values));
  }
  std::vector<engine::Chunk> result;
  result.push_back(std::move(whole));
  return result;
}

class RecursiveQueryRunner {
 public:
  RecursiveQueryRunner(const PlanExecutor& executor, uint64_t maxIterations, uint64_t memoryLimitBytes)
      : executor_(executor), maxIterations_(maxIterations), memoryLimitBytes_(memoryLimitBytes) {}

  /// Fills the result nodes of `root`'s recursive queries; whether there were any.
  bool fillResults(sql::LogicalOperator& root) {
    std::vector<sql::LogicalMaterialized*> nodes;
    collectMaterialized(root, nodes);
    bool any = false;
    for (auto* node : nodes) {
      if (node->role != sql::LogicalMaterialized::Role::kResult || node->rows || !node->query) continue;
      node->rows = compute(*node->query);
      any = true;
    }
    return any;
  }

 private:
  Rows compute(const sql::RecursiveQuery& query) {
    // A query read in several places is computed once per statement, as PostgreSQL evaluates a WITH query once.
    if (auto it = computed_.find(&query); it != computed_.end()) return it->second;
    auto soFar = std::make_shared<std::vector<engine::Chunk>>();
    uint64_t bytes = 0;
    Rows working = runStep(query.nonRecursiveTerm, query, std::make_shared<std::vector<engine::Chunk>>(), soFar);
    // The limit counts the recursive steps that give rows: the step after the last allowed one runs, and fails
    // the query if it gives any.
    for (uint64_t steps = 0; rowCount(*working) > 0;) {
      for (const auto& chunk : *working) {
        bytes += chunk.memoryBytes();
        soFar->push_back(engine::copyOf(chunk));
      }
      if (bytes > memoryLimitBytes_) {
        SHOAL_USER_FAIL(SqlState::kOutOfMemory,
                        "recursive query \"{}\" holds more than the query memory limit ({} MB) after {} iterations",
                        query.name, memoryLimitBytes_ >> 20, steps);
      }
      working = runStep(query.recursiveTerm, query, working, soFar);
      if (++steps > maxIterations_ && rowCount(*working) > 0) {
        throw ShoalError(Status(SqlState::kStatementTooComplex,
                                fmt::format("recursive query \"{}\" did not finish within max_recursive_iterations "
                                            "({}) iterations",
                                            query.name, maxIterations_))
                             .withHint("Make the recursive term stop giving rows, or SET max_recursive_iterations "
                                       "higher."));
      }
    }
    Rows rows = std::make_shared<const std::vector<engine::Chunk>>(inOneChunk(std::move(*soFar), query.columns));
    computed_[&query] = rows;
    return rows;
  }

  /// Runs one step: `term` reading `working` as the working table and `soFar` as the rows given so far.
  Rows runStep(const sql::LogicalPlan& term, const sql::RecursiveQuery& query, const Rows& working, const Rows& soFar) {
    sql::LogicalPlan step{sql::copyPlan(*term.root), term.columnNames};
    std::vector<sql::LogicalMaterialized*> nodes;
    collectMaterialized(*step.root, nodes);
    for (auto* node : nodes) {
      if (node->step != &query) continue;
      node->rows = node->role == sql::LogicalMaterialized::Role::kWorkingTable ? working : soFar;
    }
    // A step can finish before the pipeline runner looks at the cancel flag: look here too.
    executor_.throwIfCancelRequested();
    fillResults(*step.root);  // the other recursive queries the term reads
    sql::optimize(step);
    QueryResult result = executor_.run(step);
    auto rows = std::make_shared<std::vector<engine::Chunk>>();
    while (auto chunk = result.nextChunk()) {
      if (chunk->size() > 0) rows->push_back(std::move(*chunk));
    }
    return rows;
  }

  const PlanExecutor& executor_;
  uint64_t maxIterations_;
  uint64_t memoryLimitBytes_;
  std::map<const sql::RecursiveQuery*, Rows> computed_;
};

}  // namespace

std::optional<sql::LogicalPlan> computeRecursiveQueries(const sql::LogicalPlan& plan, const PlanExecutor& executor,
                                                        uint64_t maxIterations, uint64_t memoryLimitBytes) {
  if (!readsUncomputedQuery(*plan.root)) return std::nullopt;
  sql::LogicalPlan copy{sql::copyPlan(*plan.root), plan.columnNames};
  RecursiveQueryRunner(executor, maxIterations, memoryLimitBytes).fillResults(*copy.root);
  return copy;
}

}  // namespace shoal::coordinator
