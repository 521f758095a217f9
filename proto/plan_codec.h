#pragma once

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

}  // namespace shoal::proto
