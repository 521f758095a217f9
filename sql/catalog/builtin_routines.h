#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace shoal::sql {

/// One of PostgreSQL 15's functions or aggregates that Shoal has, as PostgreSQL's pg_proc describes it: what
/// Shoal's pg_proc lists, \df shows and 'name'::regproc finds. builtin_routines.inc holds them, written by
/// generate_builtin_routines.py, which keeps a PostgreSQL function only when Shoal answers a call of it.
struct BuiltinRoutine {
  int64_t oid = 0;
  std::string_view name;
  char kind = 'f';  // 'f' function, 'a' aggregate
  bool returnsSet = false;
  bool strict = false;
  char volatility = 'i';
  char parallel = 's';
  int64_t variadicType = 0;
  int32_t defaults = 0;
  int64_t resultType = 0;
  std::vector<int64_t> argumentTypes;
  std::string_view source;
  int64_t language = 0;
  double cost = 0;
  double rows = 0;
  /// pg_get_function_arguments, pg_get_function_identity_arguments and pg_get_function_result as
  /// PostgreSQL 15 prints them.
  std::string_view arguments;
  std::string_view identityArguments;
  std::string_view result;
};

/// One of PostgreSQL 15's operators that Shoal has, as pg_operator describes it.
struct BuiltinOperator {
  int64_t oid = 0;
  std::string_view name;
  char kind = 'b';  // 'b' infix, 'l' prefix
  int64_t left = 0;
  int64_t right = 0;
  int64_t result = 0;
  int64_t commutator = 0;
  int64_t negator = 0;
  int64_t code = 0;
  bool canMerge = false;
  bool canHash = false;
};

/// Ordered by OID.
std::span<const BuiltinRoutine> builtinRoutines();
std::span<const BuiltinOperator> builtinOperators();

/// The routine with OID `oid`, or nullptr.
const BuiltinRoutine* findBuiltinRoutine(int64_t oid);

/// The OIDs of the routines named `name` (all pg_catalog's).
std::vector<int64_t> builtinRoutineOidsNamed(std::string_view name);

}  // namespace shoal::sql
