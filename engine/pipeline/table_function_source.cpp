#include "engine/pipeline/table_function_source.h"

#include "common/status.h"
#include "engine/types/array_value.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

std::string_view tableFunctionName(TableFunction function) {
  switch (function) {
    case TableFunction::kGenerateSeries:
      return "generate_series";
    case TableFunction::kUnnest:
      return "unnest";
    case TableFunction::kGenerateSubscripts:
      return "generate_subscripts";
  }
  return "?";
}

SetFunctionRows::SetFunctionRows(TableFunction function, std::span<const Value> arguments, LogicalType valueType)
    : function_(function), valueType_(valueType) {
  for (const Value& argument : arguments) {
    if (argument.isNull()) return;  // strict: no rows
  }
  auto integral = [&](size_t index) {
    const Value& value = arguments[index];
    return value.type().physicalType() == PhysicalType::kInt32 ? int64_t{value.asInt32()} : value.asInt64();
  };
  switch (function) {
    case TableFunction::kGenerateSeries: {
      start_ = integral(0);
      const int64_t stop = integral(1);
      step_ = arguments.size() > 2 ? integral(2) : 1;
      if (step_ == 0) SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "step size cannot equal zero");
      const __int128 span = static_cast<__int128>(stop) - start_;
      if ((step_ > 0 && span >= 0) || (step_ < 0 && span <= 0)) {
        numRows_ = static_cast<uint64_t>(span / step_ + 1);
      }
      break;
    }
    case TableFunction::kUnnest:
      elements_ = decodeArray(arguments[0].asString(), arguments[0].type());
      numRows_ = elements_.size();
      break;
    case TableFunction::kGenerateSubscripts: {
      const size_t count = arrayCardinality(arguments[0].asString());
      const bool reverse = arguments.size() > 2 && arguments[2].asBool();
      if (integral(1) == 1 && count > 0) {
        const int64_t lower = arguments[0].type().lowerBound();  // 0 for int2vector and oidvector
        numRows_ = count;
        start_ = reverse ? lower + static_cast<int64_t>(count) - 1 : lower;
        step_ = reverse ? -1 : 1;
      }
      break;
    }
  }
}

void SetFunctionRows::write(uint64_t row, Vector& out, size_t at) const {
  if (function_ == TableFunction::kUnnest) {
    out.setValue(at, elements_[row]);
    return;
  }
  const int64_t value = start_ + static_cast<int64_t>(row) * step_;
  out.setNull(at, false);
  if (valueType_.physicalType() == PhysicalType::kInt32) {
    out.data<int32_t>()[at] = static_cast<int32_t>(value);
  } else {
    out.data<int64_t>()[at] = value;
  }
}

TableFunctionSource::TableFunctionSource(TableFunction function, std::vector<Value> arguments, LogicalType valueType,
                                         bool withOrdinality)
    : valueType_(valueType), withOrdinality_(withOrdinality), rows_(function, arguments, valueType) {}

void TableFunctionSource::produce(size_t morsel, const std::function<void(Chunk&)>& consume) const {
  const uint64_t first = morsel * kRowsPerMorsel;
  const size_t numRows = static_cast<size_t>(std::min<uint64_t>(kRowsPerMorsel, rows_.size() - first));
  Vector values(valueType_, numRows);
  for (size_t i = 0; i < numRows; ++i) rows_.write(first + i, values, i);
  Chunk chunk(numRows);
  chunk.addColumn(std::move(values));
  if (withOrdinality_) {
    Vector ordinality(LogicalType::bigInt(), numRows);
    for (size_t i = 0; i < numRows; ++i) ordinality.data<int64_t>()[i] = static_cast<int64_t>(first + i + 1);
    chunk.addColumn(std::move(ordinality));
  }
  consume(chunk);
}

}  // namespace shoal::engine
