#pragma once

#include <functional>
#include <span>

#include "engine/expression/expression.h"
#include "proto/plan.pb.h"

namespace shoal::proto {

// Translation between engine objects and their plan.proto messages. Decoding
// checks what it reads (type ids, function numbers, column indexes) and fails
// with XX001 rather than building an expression the evaluator cannot run.

TypeProto encodeType(const engine::LogicalType& type);
engine::LogicalType decodeType(const TypeProto& proto);

ValueProto encodeValue(const engine::Value& value);
engine::Value decodeValue(const ValueProto& proto);

/// Parameters ($n) are replaced by their values from `parameters`.
ExpressionProto encodeExpression(const engine::Expression& expression, std::span<const engine::Value> parameters);
/// `columnTypes` are the types of the input the expression reads.
engine::ExpressionPtr decodeExpression(const ExpressionProto& proto, std::span<const engine::LogicalType> columnTypes);
/// Whether the input has a column `index` of `type` (a position, or a plan column id).
using ColumnCheck = std::function<bool(uint32_t index, const engine::LogicalType& type)>;
engine::ExpressionPtr decodeExpression(const ExpressionProto& proto, const ColumnCheck& columnExists);

}  // namespace shoal::proto
