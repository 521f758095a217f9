#include "worker/partition_scan_source.h"

#include <algorithm>
#include <iterator>
#include <optional>

#include "common/status.h"
#include "engine/pipeline/filter_operator.h"

namespace shoal::worker {

namespace {

using engine::ScalarFunction;

/// Orders two non-NULL values of one exact numeric or date type; nullopt for other types,
/// which zone maps do not prune on (strings compare with padding rules, doubles with NaN).
std::optional<int> compareExact(const engine::Value& a, const engine::Value& b) {
  if (a.isNull() || b.isNull() || a.type() != b.type()) return std::nullopt;
  switch (a.type().id()) {
    case engine::TypeId::kInteger:
    case engine::TypeId::kDate:
    case engine::TypeId::kBigInt:
    case engine::TypeId::kTimestamp:
    case engine::TypeId::kTimestampTz:
    case engine::TypeId::kTime:
    case engine::TypeId::kDecimal: {
      auto exact = [](const engine::Value& value) -> engine::int128_t {
        if (value.type().id() == engine::TypeId::kDecimal) return value.asDecimal();
        if (value.type().physicalType() == engine::PhysicalType::kInt64) return value.asInt64();
        return value.asInt32();
      };
      engine::int128_t x = exact(a);
      engine::int128_t y = exact(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    default:
      return std::nullopt;
  }
}

/// `column op constant`, with the scan's output position of the column.
struct ZoneTest {
  size_t position;
  ScalarFunction comparison;
  engine::Value constant;
};

std::optional<ZoneTest> zoneTestOf(const engine::Expression& filter, const sql::LogicalScan& scan) {
  if (filter.kind() != engine::ExpressionKind::kFunction) return std::nullopt;
  const auto& function = static_cast<const engine::FunctionExpression&>(filter);
  ScalarFunction comparison = function.function();
  switch (comparison) {
    case ScalarFunction::kEqual:
    case ScalarFunction::kLess:
    case ScalarFunction::kLessEqual:
    case ScalarFunction::kGreater:
    case ScalarFunction::kGreaterEqual:
      break;
    default:
      return std::nullopt;
  }
  const engine::Expression* column = function.arguments()[0].get();
  const engine::Expression* constant = function.arguments()[1].get();
  if (column->kind() == engine::ExpressionKind::kConstant) {
    std::swap(column, constant);
    comparison = engine::mirroredComparison(comparison);
  }
  if (column->kind() != engine::ExpressionKind::kColumnRef || constant->kind() != engine::ExpressionKind::kConstant) {
    return std::nullopt;
  }
  auto id = static_cast<sql::ColumnId>(static_cast<const engine::ColumnRefExpression&>(*column).columnIndex());
  for (size_t i = 0; i < scan.columns.size(); ++i) {
    if (scan.columns[i].id == id) {
      return ZoneTest{i, comparison, static_cast<const engine::ConstantExpression&>(*constant).value()};
    }
  }
  return std::nullopt;
}

/// False when no row of a column with this zone map can pass the test.
bool mayMatch(const ZoneTest& test, const ZoneMap& zone) {
  if (test.constant.isNull()) return false;  // a comparison with NULL is never true
  if (!zone.ranged) return true;             // no range kept: any row may match
  if (zone.min.isNull()) return false;       // every row NULL
  std::optional<int> againstMin = compareExact(zone.min, test.constant);
  std::optional<int> againstMax = compareExact(zone.max, test.constant);
  if (!againstMin || !againstMax) return true;
  switch (test.comparison) {
    case ScalarFunction::kEqual:
      return *againstMin <= 0 && *againstMax >= 0;
    case ScalarFunction::kLess:
      return *againstMin < 0;
    case ScalarFunction::kLessEqual:
      return *againstMin <= 0;
    case ScalarFunction::kGreater:
      return *againstMax > 0;
    case ScalarFunction::kGreaterEqual:
      return *againstMax >= 0;
    default:
      return true;
  }
}

}  // namespace

PartitionScanSource::PartitionScanSource(const sql::LogicalScan& scan, std::shared_ptr<const TablePartition> partition,
                                         std::vector<VisibleSegment> segments, uint32_t rowTag)
    : partition_(std::move(partition)), columns_(scan.tableColumns), rowTag_(static_cast<uint64_t>(rowTag) << 48) {
  for (const auto& column : scan.columns) types_.push_back(column.type);
  if (auto rowId = std::find(columns_.begin(), columns_.end(), sql::kRowIdColumn); rowId != columns_.end()) {
    if (rowId + 1 != columns_.end())
      SHOAL_USER_FAIL(SqlState::kDataCorrupted, "a scan's row id is not its last column");
    columns_.pop_back();
    types_.pop_back();
    rowIds_ = true;
  }
  if (!partition_) return;
  std::vector<engine::LogicalType> tableTypes;
  for (const auto& column : scan.table.columns) tableTypes.push_back(column.type);
  partition_->checkReadable(tableTypes);
  std::vector<ZoneTest> tests;
  for (const auto& filter : scan.filters) {
    if (auto test = zoneTestOf(*filter, scan)) tests.push_back(std::move(*test));
  }
  for (auto& segment : segments) {
    bool keep = true;
    for (const auto& test : tests) {
      if (!mayMatch(test, segment.segment->column(columns_[test.position]).zoneMap())) {
        keep = false;
        break;
      }
    }
    if (keep) {
      segments_.push_back(std::move(segment));
    } else {
      ++skipped_;
    }
  }
}

bool PartitionScanSource::absorbFilter(std::shared_ptr<const engine::FilterOperator> filter) {
  filter_ = std::move(filter);
  return true;
}

void PartitionScanSource::appendRowIds(engine::Chunk& chunk, uint64_t segmentId, size_t start,
                                       const std::vector<uint32_t>* offsets) const {
  engine::Vector ids(engine::LogicalType::bigInt(), chunk.size());
  auto* out = ids.data<int64_t>();
  const uint64_t base = rowTag_ | rowKeyOf(segmentId, static_cast<uint32_t>(start));
  for (size_t i = 0; i < chunk.size(); ++i) out[i] = static_cast<int64_t>(base + (offsets ? (*offsets)[i] : i));
  chunk.addColumn(std::move(ids));
}

void PartitionScanSource::produce(size_t morsel, const std::function<void(engine::Chunk&)>& consume) const {
  const Segment& segment = *segments_[morsel].segment;
  const uint64_t segmentId = segments_[morsel].id;
  const std::vector<uint32_t>& deleted = segments_[morsel].deletedRows;
  auto nextDeleted = deleted.begin();
  std::vector<uint32_t> live;
  for (size_t start = 0; start < segment.size(); start += engine::kVectorSize) {
    size_t count = std::min(engine::kVectorSize, segment.size() - start);
    // The rows of this vector that the snapshot sees deleted, as offsets into it.
    auto deletedEnd = nextDeleted;
    while (deletedEnd != deleted.end() && *deletedEnd < start + count) ++deletedEnd;
    const bool anyDeleted = deletedEnd != nextDeleted;
    if (anyDeleted) {
      live.clear();
      auto skip = nextDeleted;
      for (uint32_t row = 0; row < count; ++row) {
        if (skip != deletedEnd && *skip == start + row) {
          ++skip;
          continue;
        }
        live.push_back(row);
      }
      nextDeleted = deletedEnd;
      if (live.empty()) continue;
    }
    if (!filter_ && !anyDeleted) {
      engine::Chunk chunk(count);
      for (const auto& type : types_) chunk.addColumn(engine::Vector::uninitialized(type, count));
      segment.read(start, count, columns_, chunk);
      if (rowIds_) appendRowIds(chunk, segmentId, start, nullptr);
      consume(chunk);
      continue;
    }
    if (!filter_) {
      engine::Chunk chunk(live.size());
      for (size_t column = 0; column < types_.size(); ++column) {
        chunk.addColumn(engine::Vector::uninitialized(types_[column], live.size()));
        segment.column(columns_[column]).gather(start, live, chunk.column(column));
      }
      if (rowIds_) appendRowIds(chunk, segmentId, start, &live);
      consume(chunk);
      continue;
    }
    // Late materialization: the filter's columns first; the rest only for the rows that pass. Deleted rows
    // are never read, so a condition never fails on a row that is gone.
    const std::vector<bool>& read = filter_->columnsRead();
    auto filterReads = [&](size_t column) { return column < read.size() && read[column]; };
    const size_t candidates = anyDeleted ? live.size() : count;
    std::vector<engine::Vector> columns;
    columns.reserve(types_.size());
    for (size_t column = 0; column < types_.size(); ++column) {
      columns.push_back(engine::Vector::uninitialized(types_[column], filterReads(column) ? candidates : 0));
      if (!filterReads(column)) continue;
      if (anyDeleted) {
        segment.column(columns_[column]).gather(start, live, columns.back());
      } else {
        segment.column(columns_[column]).read(start, count, columns.back());
      }
    }
    engine::Chunk chunk(std::move(columns), candidates);
    std::vector<uint32_t> passing = filter_->narrowColumnsRead(chunk);
    if (anyDeleted) {
      for (uint32_t& row : passing) row = live[row];  // back to rows of the vector
    }
    if (passing.empty()) continue;
    const bool allPass = passing.size() == count;
    for (size_t column = 0; column < types_.size(); ++column) {
      if (filterReads(column)) continue;
      const ColumnSegment& stored = segment.column(columns_[column]);
      chunk.column(column) = engine::Vector::uninitialized(types_[column], passing.size());
      if (allPass) {
        stored.read(start, count, chunk.column(column));
      } else {
        stored.gather(start, passing, chunk.column(column));
      }
    }
    if (rowIds_) appendRowIds(chunk, segmentId, start, &passing);
    consume(chunk);
  }
}

}  // namespace shoal::worker
