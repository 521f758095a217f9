#include "proto/plan_codec.h"

#include <cstring>
#include <optional>

#include "common/check.h"
#include "common/stack_depth.h"
#include "common/status.h"

namespace shoal::proto {

using engine::LogicalType;
using engine::TypeId;
using engine::Value;

namespace {

/// The argument count of the operators whose shape the pipeline builder and the evaluator take for granted
/// (a join key is an equality of two sides); nothing for the others. A plan from elsewhere than the binder is
/// refused when it gives one of them another count.
std::optional<size_t> fixedArity(engine::ScalarFunction function) {
  using engine::ScalarFunction;
  if (engine::isComparison(function)) return 2;
  switch (function) {
    case ScalarFunction::kAdd:
    case ScalarFunction::kSubtract:
    case ScalarFunction::kMultiply:
    case ScalarFunction::kDivide:
    case ScalarFunction::kModulo:
    case ScalarFunction::kLike:
    case ScalarFunction::kNotLike:
    case ScalarFunction::kDateAddDays:
    case ScalarFunction::kDateSubtractDays:
    case ScalarFunction::kDateDifference:
    case ScalarFunction::kDateAddMonths:
      return 2;
    case ScalarFunction::kNegate:
    case ScalarFunction::kNot:
    case ScalarFunction::kIsNull:
    case ScalarFunction::kIsNotNull:
    case ScalarFunction::kLower:
    case ScalarFunction::kUpper:
    case ScalarFunction::kCharLength:
    case ScalarFunction::kAssignString:
      return 1;
    default:
      return std::nullopt;
  }
}

}  // namespace

TypeProto encodeType(const LogicalType& type) {
  TypeProto proto;
  proto.set_id(static_cast<uint32_t>(type.id()));
  proto.set_precision(type.precision());
  proto.set_scale(type.scale());
  proto.set_max_length(type.maxLength());
  proto.set_element_id(static_cast<uint32_t>(type.elementId()));
  proto.set_vector(type.isVector());
  proto.set_zero_based(type.isZeroBased());
  proto.set_json(type.isJson());
  proto.set_jsonb(type.isJsonb());
  proto.set_real(type.isReal());
  return proto;
}

LogicalType decodeType(const TypeProto& proto) {
  return LogicalType::fromParts(proto.id(), proto.precision(), proto.scale(), proto.max_length(), proto.element_id(),
                                proto.vector(), proto.zero_based(), proto.json(), proto.jsonb(), proto.real());
}

ValueProto encodeValue(const Value& value) {
  ValueProto proto;
  *proto.mutable_type() = encodeType(value.type());
  std::visit(
      [&](const auto& stored) {
        using T = std::decay_t<decltype(stored)>;
        if constexpr (std::is_same_v<T, bool>) {
          proto.set_boolean(stored);
        } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
          proto.set_int64(stored);
        } else if constexpr (std::is_same_v<T, engine::int128_t>) {
          std::string bytes(sizeof(stored), '\0');
          std::memcpy(bytes.data(), &stored, sizeof(stored));
          proto.set_int128(bytes);
        } else if constexpr (std::is_same_v<T, double>) {
          proto.set_double_(stored);
        } else if constexpr (std::is_same_v<T, std::string>) {
          proto.set_text(stored);
        }
      },
      value.storage());
  return proto;
}

Value decodeValue(const ValueProto& proto) {
  LogicalType type = decodeType(proto.type());
  auto mismatch = [&]() -> Value {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "plan value does not match its type {}", type.toString());
  };
  switch (proto.value_case()) {
    case ValueProto::VALUE_NOT_SET:
      return Value::null(type);
    case ValueProto::kBoolean:
      return type.id() == TypeId::kBoolean ? Value::boolean(proto.boolean()) : mismatch();
    case ValueProto::kInt64:
      switch (type.id()) {
        case TypeId::kSmallInt:
        case TypeId::kInteger:
        case TypeId::kDate:
          return Value::ofInt32(type, static_cast<int32_t>(proto.int64()));
        case TypeId::kBigInt:
        case TypeId::kTimestamp:
        case TypeId::kTimestampTz:
        case TypeId::kTime:
          return Value::ofInt64(type, proto.int64());
        case TypeId::kDecimal:
          return Value::decimal(type, proto.int64());
        default:
          return mismatch();
      }
    case ValueProto::kInt128: {
      if ((type.id() != TypeId::kDecimal && type.id() != TypeId::kInterval && type.id() != TypeId::kUuid) ||
          proto.int128().size() != sizeof(engine::int128_t)) {
        return mismatch();
      }
      engine::int128_t unscaled;
      std::memcpy(&unscaled, proto.int128().data(), sizeof(unscaled));
      return Value::decimal(type, unscaled);
    }
    case ValueProto::kDouble:
      return type.id() == TypeId::kDouble ? Value::ofDouble(type, proto.double_()) : mismatch();
    case ValueProto::kText:
      if (type.id() == TypeId::kUnknown) return Value::unknownLiteral(proto.text());
      if (type.isArray()) return Value::array(type, proto.text());
      if (type.id() == TypeId::kBytea) return Value::bytea(proto.text());
      return type.isString() ? Value::varchar(proto.text(), type) : mismatch();
  }
  return mismatch();
}

ExpressionProto encodeExpression(const engine::Expression& expression, std::span<const Value> parameters) {
  checkStackDepth();
  ExpressionProto proto;
  *proto.mutable_type() = encodeType(expression.type());
  switch (expression.kind()) {
    case engine::ExpressionKind::kConstant:
      *proto.mutable_constant() = encodeValue(static_cast<const engine::ConstantExpression&>(expression).value());
      break;
    case engine::ExpressionKind::kParameter: {
      size_t index = static_cast<const engine::ParameterExpression&>(expression).index();
      SHOAL_CHECK(index < parameters.size(), "parameter ${} of {}", index + 1, parameters.size());
      if (parameters[index].type() == expression.type()) {
        *proto.mutable_constant() = encodeValue(parameters[index]);
      } else {
        // The value as the client sent it, cast to the type the statement expects there.
        ExpressionProto* value = proto.mutable_cast_child();
        *value->mutable_type() = encodeType(parameters[index].type());
        *value->mutable_constant() = encodeValue(parameters[index]);
      }
      break;
    }
    case engine::ExpressionKind::kColumnRef: {
      const auto& column = static_cast<const engine::ColumnRefExpression&>(expression);
      proto.mutable_column()->set_index(static_cast<uint32_t>(column.columnIndex()));
      proto.mutable_column()->set_name(column.name());
      break;
    }
    case engine::ExpressionKind::kCast: {
      const auto& cast = static_cast<const engine::CastExpression&>(expression);
      *proto.mutable_cast_child() = encodeExpression(cast.child(), parameters);
      proto.set_cast_time_zone(cast.timeZone());
      break;
    }
    case engine::ExpressionKind::kFunction: {
      const auto& function = static_cast<const engine::FunctionExpression&>(expression);
      proto.mutable_function()->set_function(static_cast<uint32_t>(function.function()));
      for (const auto& argument : function.arguments()) {
        *proto.mutable_function()->add_arguments() = encodeExpression(*argument, parameters);
      }
      break;
    }
  }
  return proto;
}

engine::ExpressionPtr decodeExpression(const ExpressionProto& proto, std::span<const LogicalType> columnTypes) {
  return decodeExpression(proto, [&](uint32_t index, const LogicalType& type) {
    return index < columnTypes.size() && columnTypes[index] == type;
  });
}

engine::ExpressionPtr decodeExpression(const ExpressionProto& proto, const ColumnCheck& columnExists) {
  checkStackDepth();
  LogicalType type = decodeType(proto.type());
  switch (proto.kind_case()) {
    case ExpressionProto::kConstant: {
      Value value = decodeValue(proto.constant());
      if (value.type() != type) SHOAL_USER_FAIL(SqlState::kDataCorrupted, "plan constant of the wrong type");
      return std::make_unique<engine::ConstantExpression>(std::move(value));
    }
    case ExpressionProto::kColumn: {
      uint32_t index = proto.column().index();
      if (!columnExists(index, type)) {
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "plan column reference {} does not match the input", index);
      }
      return std::make_unique<engine::ColumnRefExpression>(index, type, proto.column().name());
    }
    case ExpressionProto::kCastChild:
      return std::make_unique<engine::CastExpression>(decodeExpression(proto.cast_child(), columnExists), type,
                                                      proto.cast_time_zone());
    case ExpressionProto::kFunction: {
      uint32_t function = proto.function().function();
      if (function > static_cast<uint32_t>(engine::kLastScalarFunction)) {
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "unknown plan function {}", function);
      }
      const auto arity = fixedArity(static_cast<engine::ScalarFunction>(function));
      if (arity && static_cast<size_t>(proto.function().arguments_size()) != *arity) {
        SHOAL_USER_FAIL(SqlState::kDataCorrupted, "plan function {} with {} arguments instead of {}",
                        engine::scalarFunctionName(static_cast<engine::ScalarFunction>(function)),
                        proto.function().arguments_size(), *arity);
      }
      std::vector<engine::ExpressionPtr> arguments;
      for (const auto& argument : proto.function().arguments()) {
        arguments.push_back(decodeExpression(argument, columnExists));
      }
      return std::make_unique<engine::FunctionExpression>(static_cast<engine::ScalarFunction>(function),
                                                          std::move(arguments), type);
    }
    case ExpressionProto::KIND_NOT_SET:
      break;
  }
  SHOAL_USER_FAIL(SqlState::kDataCorrupted, "plan expression without a kind");
}

}  // namespace shoal::proto
