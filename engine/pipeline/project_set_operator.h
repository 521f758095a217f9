#pragma once

#include <optional>
#include <vector>

#include "engine/expression/expression.h"
#include "engine/pipeline/pipeline.h"
#include "engine/pipeline/table_function_source.h"

namespace shoal::engine {

/// One set-returning function in a select list (`SELECT unnest(conkey) FROM pg_constraint`): its arguments
/// are expressions over the input row.
struct SetFunctionCall {
  TableFunction function;
  std::vector<ExpressionPtr> arguments;
  LogicalType valueType;
  /// WITH ORDINALITY: a BIGINT column after the values, numbering each input row's rows of the function from 1.
  bool withOrdinality = false;
};

/// PostgreSQL's ProjectSet: each input row becomes as many rows as its longest function gives, the input
/// columns repeated, then one column per function, which is NULL once that function has run out (functions
/// run in lockstep, as since PostgreSQL 10). A row for which every function gives nothing disappears. A function
/// WITH ORDINALITY adds the number of its row (NULL past its end) after its column.
class ProjectSetOperator final : public ChunkOperator {
 public:
  explicit ProjectSetOperator(std::vector<SetFunctionCall> calls);
  void execute(Chunk& chunk) const override;

 private:
  std::vector<SetFunctionCall> calls_;
  /// The rows of each call whose arguments are all constants (generate_series(0, 2) repeating every row for
  /// each grouping set), the same for every input row: computed once.
  std::vector<std::optional<SetFunctionRows>> constantRows_;
};

}  // namespace shoal::engine
