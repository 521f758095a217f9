#include "worker/scan_executor.h"

#include <algorithm>
#include <numeric>

#include "common/status.h"
#include "engine/aggregate/scalar_aggregate.h"
#include "engine/expression/expression_evaluator.h"
#include "proto/plan_codec.h"

namespace shoal::worker {

using engine::Chunk;
using engine::ExpressionPtr;
using engine::LogicalType;

namespace {

/// The rows of `chunk` where `condition` is true (not false, not NULL).
std::vector<uint32_t> selectedRows(const engine::Vector& condition, size_t numRows) {
  std::vector<uint32_t> rows;
  rows.reserve(numRows);
  const uint8_t* values = condition.data<uint8_t>();
  for (uint32_t row = 0; row < numRows; ++row) {
    if (values[row] && condition.validity().isValid(row)) rows.push_back(row);
  }
  return rows;
}

}  // namespace

void runScan(const proto::ScanFragment& fragment, const TablePartition* partition,
             std::span<const VisibleSegment> segments, const std::function<void(Chunk)>& emit,
             const std::function<bool()>& isCancelled) {
  std::vector<LogicalType> columnTypes;
  for (const auto& type : fragment.column_types()) columnTypes.push_back(proto::decodeType(type));
  if (partition) partition->checkReadable(columnTypes);
  ExpressionPtr filter;
  if (fragment.has_filter()) filter = proto::decodeExpression(fragment.filter(), columnTypes);
  std::vector<ExpressionPtr> projections;
  for (const auto& projection : fragment.projections()) {
    projections.push_back(proto::decodeExpression(projection, columnTypes));
  }
  std::vector<ExpressionPtr> aggregateArguments;
  std::vector<engine::ScalarAggregate> aggregates;
  for (const auto& aggregate : fragment.aggregates()) {
    if (aggregate.function() > static_cast<uint32_t>(engine::AggregateFunction::kMax)) {
      SHOAL_USER_FAIL(SqlState::kDataCorrupted, "unknown aggregate function {}", aggregate.function());
    }
    auto function = static_cast<engine::AggregateFunction>(aggregate.function());
    ExpressionPtr argument;
    if (aggregate.has_argument()) argument = proto::decodeExpression(aggregate.argument(), columnTypes);
    LogicalType argumentType = argument ? argument->type() : LogicalType::bigInt();
    aggregates.emplace_back(function, argumentType, proto::decodeType(aggregate.result_type()));
    aggregateArguments.push_back(std::move(argument));
  }
  const bool aggregating = !aggregates.empty();
  int64_t remaining = fragment.limit() < 0 ? std::numeric_limits<int64_t>::max() : fragment.limit();

  engine::ExpressionEvaluator evaluator;
  std::vector<size_t> allColumns(columnTypes.size());
  std::iota(allColumns.begin(), allColumns.end(), 0);
  Chunk input;
  for (const auto& type : columnTypes) input.addColumn(engine::Vector(type, engine::kVectorSize));

  if (partition) {
    for (const auto& visible : segments) {
      const Segment* segment = visible.segment.get();
      for (size_t start = 0; start < segment->size() && remaining > 0; start += engine::kVectorSize) {
        if (isCancelled()) SHOAL_USER_FAIL(SqlState::kQueryCanceled, "canceling statement due to user request");
        size_t count = std::min(engine::kVectorSize, segment->size() - start);
        segment->read(start, count, allColumns, input);
        Chunk live;
        if (!visible.deletedRows.empty()) {
          // Rows the snapshot sees deleted are dropped before the filter sees them.
          std::vector<uint32_t> kept;
          auto deleted = std::lower_bound(visible.deletedRows.begin(), visible.deletedRows.end(), start);
          for (uint32_t row = 0; row < count; ++row) {
            if (deleted != visible.deletedRows.end() && *deleted == start + row) {
              ++deleted;
              continue;
            }
            kept.push_back(row);
          }
          if (kept.empty()) continue;
          if (kept.size() < count) {
            live = Chunk(kept.size());
            for (size_t c = 0; c < input.numColumns(); ++c) live.addColumn(input.column(c).select(kept));
            count = kept.size();
          }
        }
        const Chunk& scanned = live.numColumns() > 0 ? live : input;
        const Chunk* rows = &scanned;
        Chunk filtered;
        if (filter) {
          engine::Vector condition = evaluator.evaluate(*filter, scanned);
          std::vector<uint32_t> selection = selectedRows(condition, count);
          if (selection.empty()) continue;
          if (selection.size() < count) {
            filtered = Chunk(selection.size());
            for (size_t c = 0; c < scanned.numColumns(); ++c) filtered.addColumn(scanned.column(c).select(selection));
            rows = &filtered;
          }
        }
        if (aggregating) {
          for (size_t i = 0; i < aggregates.size(); ++i) {
            if (!aggregateArguments[i]) {
              aggregates[i].update(nullptr, rows->size());
              continue;
            }
            engine::Vector argument = evaluator.evaluate(*aggregateArguments[i], *rows);
            aggregates[i].update(&argument, rows->size());
          }
          continue;
        }
        size_t emitted = std::min<size_t>(rows->size(), static_cast<size_t>(remaining));
        Chunk output(emitted);
        for (const auto& projection : projections) {
          engine::Vector column = evaluator.evaluate(*projection, *rows);
          column.resize(emitted);
          output.addColumn(std::move(column));
        }
        remaining -= static_cast<int64_t>(emitted);
        emit(std::move(output));
      }
    }
  }
  if (aggregating) {
    Chunk partial(1);
    for (const auto& aggregate : aggregates) aggregate.writePartial(partial);
    emit(std::move(partial));
  }
}

}  // namespace shoal::worker
