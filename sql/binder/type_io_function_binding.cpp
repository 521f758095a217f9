// ExpressionBinder's calls of the types' input and output functions (int4in, numeric_out, array_in, ...),
// which pg_type's typinput and typoutput name and pg_proc therefore lists: an input function is a cast from
// its text, an output function a cast to text (PostgreSQL's cstring, which Shoal keeps as text). The binary
// and typmod routines take or give internal representations, and are refused with 0A000.

#include <fmt/format.h>

#include <string_view>
#include <unordered_map>

#include "common/status.h"
#include "pg_query/pg_query.pb.h"
#include "sql/binder/expression_binder.h"
#include "sql/catalog/builtin_routines.h"

namespace shoal::sql {

using engine::ExpressionPtr;

namespace {

constexpr int64_t kCstringOid = 2275;
constexpr int64_t kCstringArrayOid = 1263;
constexpr int64_t kInternalOid = 2281;
constexpr int64_t kByteaOid = 17;
constexpr int64_t kAnyArrayOid = 2277;

/// pg_type.typname of the types whose values the input and output functions convert, by OID.
std::string_view convertibleTypeName(int64_t oid) {
  switch (oid) {
    case 16:
      return "bool";
    case 17:
      return "bytea";
    case 20:
      return "int8";
    case 21:
      return "int2";
    case 22:
      return "int2vector";
    case 23:
      return "int4";
    case 25:
      return "text";
    case 30:
      return "oidvector";
    case 114:
      return "json";
    case 700:
      return "float4";
    case 701:
      return "float8";
    case 1042:
      return "bpchar";
    case 1043:
      return "varchar";
    case 1082:
      return "date";
    case 1083:
      return "time";
    case 1114:
      return "timestamp";
    case 1184:
      return "timestamptz";
    case 1186:
      return "interval";
    case 1700:
      return "numeric";
    case 2950:
      return "uuid";
    case 3802:
      return "jsonb";
    default:
      return {};
  }
}

bool isIoRoutine(const BuiltinRoutine& routine) {
  auto internalType = [](int64_t oid) { return oid == kCstringOid || oid == kCstringArrayOid || oid == kInternalOid; };
  if (internalType(routine.resultType)) return true;
  for (int64_t argument : routine.argumentTypes) {
    if (internalType(argument)) return true;
  }
  return routine.resultType == kByteaOid && routine.name.ends_with("send");
}

/// The I/O routine named `name`, or nullptr: I/O routine names have one signature each.
const BuiltinRoutine* findIoRoutine(std::string_view name) {
  static const auto* const kByName = [] {
    auto* byName = new std::unordered_map<std::string_view, const BuiltinRoutine*>;
    for (const auto& routine : builtinRoutines()) {
      if (isIoRoutine(routine)) byName->emplace(routine.name, &routine);
    }
    return byName;
  }();
  auto found = kByName->find(name);
  return found == kByName->end() ? nullptr : found->second;
}

void addName(pg_query::TypeName& typeName, std::string_view name) {
  typeName.add_names()->mutable_string()->set_sval(std::string(name));
}

/// `(argument)::pg_catalog.typeName`, as the parser would give it.
pg_query::Node castNode(const pg_query::Node& argument, std::string_view typeName, bool array, int location) {
  pg_query::Node node;
  auto* cast = node.mutable_type_cast();
  *cast->mutable_arg() = argument;
  cast->set_location(location);
  auto* type = cast->mutable_type_name();
  addName(*type, "pg_catalog");
  addName(*type, typeName);
  type->set_location(location);
  if (array) type->add_array_bounds()->mutable_integer()->set_ival(-1);
  return node;
}

/// The value of an integer literal argument.
std::optional<int64_t> integerConstant(const pg_query::Node& node) {
  if (node.has_a_const() && node.a_const().has_ival()) return node.a_const().ival().ival();
  return std::nullopt;
}

}  // namespace

std::optional<ExpressionPtr> ExpressionBinder::bindTypeIoFunction(const pg_query::FuncCall& call) {
  const BuiltinRoutine* routine = findIoRoutine(lastName(call.funcname()));
  if (routine == nullptr) return std::nullopt;
  const int location = call.location();
  const auto& arguments = call.args();
  const std::string refusal =
      fmt::format("function {}({}) converts a type's internal representation, which Shoal does not call", routine->name,
                  routine->identityArguments);
  // Another argument count fits no signature: the general path says so, with the arguments' types.
  if (static_cast<size_t>(arguments.size()) != routine->argumentTypes.size()) return std::nullopt;
  // An input function: text to its type. The three-argument ones (numeric_in, array_in) also take the
  // element type and the typmod; Shoal follows a typmod of -1 only.
  if (!arguments.empty() && routine->argumentTypes[0] == kCstringOid) {
    const bool isArray = routine->resultType == kAnyArrayOid;
    std::string_view typeName = convertibleTypeName(routine->resultType);
    if (arguments.size() == 3) {
      if (isArray) {
        const auto element = integerConstant(arguments[1]);
        if (!element) {
          fail(SqlState::kFeatureNotSupported, location,
               fmt::format("{}'s element type must be a constant OID in Shoal", routine->name));
        }
        typeName = convertibleTypeName(*element);
        if (typeName.empty()) {
          fail(SqlState::kFeatureNotSupported, location,
               fmt::format("{} of element type {} is not supported", routine->name, *element));
        }
      }
      const auto typmod = integerConstant(arguments[2]);
      if (!typmod || *typmod != -1) {
        fail(SqlState::kFeatureNotSupported, location,
             fmt::format("{} with a typmod other than -1 is not supported", routine->name));
      }
    }
    if (typeName.empty()) fail(SqlState::kFeatureNotSupported, location, refusal);
    // A literal converts as a literal ('1.50' keeps its scale as numeric); anything else as text.
    const bool literal = arguments[0].has_a_const() && arguments[0].a_const().has_sval();
    pg_query::Node text = literal ? arguments[0] : castNode(arguments[0], "text", false, location);
    return bindTypeCast(castNode(text, typeName, isArray, location));
  }
  // An output function: its type to text.
  if (routine->resultType == kCstringOid && arguments.size() == 1) {
    const int64_t argumentType = routine->argumentTypes[0];
    std::string_view typeName = convertibleTypeName(argumentType);
    if (argumentType == kAnyArrayOid) return bindTypeCast(castNode(arguments[0], "text", false, location));
    if (typeName.empty()) fail(SqlState::kFeatureNotSupported, location, refusal);
    return bindTypeCast(castNode(castNode(arguments[0], typeName, false, location), "text", false, location));
  }
  fail(SqlState::kFeatureNotSupported, location, refusal);
}

}  // namespace shoal::sql
