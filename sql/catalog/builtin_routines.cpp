#include "sql/catalog/builtin_routines.h"

#include <algorithm>

namespace shoal::sql {

namespace {

#include "sql/catalog/builtin_routines.inc"

const std::vector<BuiltinRoutine>& routineTable() {
  static const std::vector<BuiltinRoutine> routines = {SHOAL_ROUTINES};
  return routines;
}

const std::vector<BuiltinOperator>& operatorTable() {
  static const std::vector<BuiltinOperator> operators = {SHOAL_OPERATORS};
  return operators;
}

}  // namespace

std::span<const BuiltinRoutine> builtinRoutines() {
  return routineTable();
}

std::span<const BuiltinOperator> builtinOperators() {
  return operatorTable();
}

const BuiltinRoutine* findBuiltinRoutine(int64_t oid) {
  const auto& routines = routineTable();
  auto it = std::lower_bound(routines.begin(), routines.end(), oid,
                             [](const BuiltinRoutine& routine, int64_t key) { return routine.oid < key; });
  return it != routines.end() && it->oid == oid ? &*it : nullptr;
}

std::vector<int64_t> builtinRoutineOidsNamed(std::string_view name) {
  std::vector<int64_t> oids;
  for (const auto& routine : routineTable()) {
    if (routine.name == name) oids.push_back(routine.oid);
  }
  return oids;
}

}  // namespace shoal::sql
