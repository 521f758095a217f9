#include "engine/aggregate/aggregate_states.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "common/status.h"
#include "engine/aggregate/scalar_aggregate.h"
#include "engine/types/decimal.h"
#include "engine/types/interval.h"
#include "engine/types/text_format.h"
#include "engine/vector/key_bytes.h"
#include "engine/vector/vector_hash.h"

namespace shoal::engine::aggregation {
namespace {

template <class T>
void addIntegers(const Vector& argument, const Window& window, size_t offset) {
  const T* values = argument.data<T>();
  forValidRows(argument, window, [&](size_t row, uint8_t* group) {
    AggregateState& state = stateAt(group, offset);
    ++state.count;
    if (__builtin_add_overflow(state.integer, static_cast<__int128>(values[row]), &state.integer)) state.overflow = 1;
  });
}

template <class T>
void integerExtremes(const Vector& argument, const Window& window, size_t offset, bool minimum) {
  const T* values = argument.data<T>();
  forValidRows(argument, window, [&](size_t row, uint8_t* group) {
    AggregateState& state = stateAt(group, offset);
    ++state.count;
    auto value = static_cast<__int128>(values[row]);
    if (!state.hasValue || (minimum ? value < state.integer : value > state.integer)) state.integer = value;
    state.hasValue = 1;
  });
}

/// min and max of intervals: by span, keeping the packed interval.
void intervalExtremes(const Vector& argument, const Window& window, size_t offset, bool minimum) {
  const __int128* values = argument.data<__int128>();
  forValidRows(argument, window, [&](size_t row, uint8_t* group) {
    AggregateState& state = stateAt(group, offset);
    ++state.count;
    const __int128 span = intervalSpan(values[row]);
    const __int128 best = intervalSpan(state.integer);
    if (!state.hasValue || (minimum ? span < best : span > best)) state.integer = values[row];
    state.hasValue = 1;
  });
}

/// The side state `state` points to in `sides`, created on first use.
template <class Side>
Side& sideOf(AggregateState& state, std::vector<Side>& sides) {
  if (state.sideIndex == 0) {
    sides.emplace_back();
    state.sideIndex = static_cast<uint32_t>(sides.size());
  }
  return sides[state.sideIndex - 1];
}

/// Folds one chunk into the moments of a statistical aggregate: values (x, or y and x, where both are not
/// NULL), or the partial states of an earlier phase.
void updateMoments(const GroupedAggregate& spec, const Chunk& chunk, const Window& window, size_t offset,
                   GroupStore& store) {
  const Vector& argument = chunk.column(*spec.argumentColumn);
  if (spec.combinesPartials) {
    const StringRef* states = argument.data<StringRef>();
    forValidRows(argument, window, [&](size_t row, uint8_t* group) {
      sideOf(stateAt(group, offset), store.moments).merge(Moments::decode(states[row].view()));
    });
    return;
  }
  const double* ys = argument.data<double>();
  if (!spec.secondArgumentColumn) {
    forValidRows(argument, window,
                 [&](size_t row, uint8_t* group) { sideOf(stateAt(group, offset), store.moments).add(ys[row]); });
    return;
  }
  const Vector& second = chunk.column(*spec.secondArgumentColumn);
  const double* xs = second.data<double>();
  forValidRows(argument, window, [&](size_t row, uint8_t* group) {
    if (!second.isNull(row)) sideOf(stateAt(group, offset), store.moments).add(ys[row], xs[row]);
  });
}

/// Whether a sketch aggregate counts distinct values (else it keeps quantiles).
bool countsDistinct(AggregateFunction function) {
  return function == AggregateFunction::kApproxCountDistinct || function == AggregateFunction::kDistinctSketch;
}

/// Folds one chunk into the sketches of approx_count_distinct (the values' 64-bit hashes) or approx_percentile
/// (its double precision argument), or the partial states of an earlier phase.
void updateSketches(const GroupedAggregate& spec, const Chunk& chunk, const Window& window, size_t offset,
                    GroupStore& store) {
  const Vector& argument = chunk.column(*spec.argumentColumn);
  const bool distinct = countsDistinct(spec.function);
  if (spec.combinesPartials) {
    const StringRef* states = argument.data<StringRef>();
    forValidRows(argument, window, [&](size_t row, uint8_t* group) {
      AggregateState& state = stateAt(group, offset);
      if (distinct) {
        sideOf(state, store.distinctSketches).merge(DistinctSketch::decode(states[row].view()));
      } else {
        sideOf(state, store.quantileSketches).merge(QuantileSketch::decode(states[row].view()));
      }
    });
    return;
  }
  if (distinct) {
    uint64_t hashes[kVectorSize];
    for (size_t done = 0; done < window.count; done += kVectorSize) {
      const size_t count = std::min(kVectorSize, window.count - done);
      hashVector(argument, window.first + done, count, hashes, false);
      for (size_t i = 0; i < count; ++i) {
        if (argument.isNull(window.first + done + i)) continue;
        sideOf(stateAt(window.groups[done + i], offset), store.distinctSketches).add(hashes[i]);
      }
    }
    return;
  }
  const double* values = argument.data<double>();
  forValidRows(argument, window, [&](size_t row, uint8_t* group) {
    sideOf(stateAt(group, offset), store.quantileSketches).add(values[row]);
  });
}

}  // namespace

void updateStates(const GroupedAggregate& spec, const Chunk& chunk, const Window& window, size_t offset,
                  GroupStore& store) {
  if (spec.function == AggregateFunction::kCountStar) {
    for (size_t i = 0; i < window.count; ++i) ++stateAt(window.groups[i], offset).count;
    return;
  }
  if (isOrderedSetAggregate(spec.function)) {
    // Runs of rows of one group (all of them without GROUP BY) are kept in one call.
    for (size_t i = 0; i < window.count;) {
      size_t end = i + 1;
      while (end < window.count && window.groups[end] == window.groups[i]) ++end;
      AggregateState& state = stateAt(window.groups[i], offset);
      state.count += static_cast<int64_t>(end - i);
      sideOf(state, store.orderedSets).add(spec, chunk, window.first + i, end - i);
      i = end;
    }
    return;
  }
  if (isCollectingAggregate(spec.function)) {
    for (size_t i = 0; i < window.count; ++i) {
      AggregateState& state = stateAt(window.groups[i], offset);
      ++state.count;
      sideOf(state, store.collections).add(spec, chunk, window.first + i);
    }
    return;
  }
  const Vector& argument = chunk.column(*spec.argumentColumn);
  PhysicalType physical = argument.type().physicalType();
  if (isSketchAggregate(spec.function)) return updateSketches(spec, chunk, window, offset, store);
  if (spec.distinct) {
    // Two-variable statistics take the distinct (y, x) pairs where neither is NULL: the pair's key bytes.
    const Vector* second = spec.secondArgumentColumn ? &chunk.column(*spec.secondArgumentColumn) : nullptr;
    std::string bytes;
    forValidRows(argument, window, [&](size_t row, uint8_t* group) {
      if (second != nullptr && second->isNull(row)) return;
      bytes.clear();
      appendKeyBytes(argument, row, bytes);
      if (second != nullptr) appendKeyBytes(*second, row, bytes);
      sideOf(stateAt(group, offset), store.distinctSets).insert(bytes);
    });
    return;
  }
  if (isMomentAggregate(spec.function)) return updateMoments(spec, chunk, window, offset, store);
  switch (spec.function) {
    case AggregateFunction::kCount:
      forValidRows(argument, window, [&](size_t, uint8_t* group) { ++stateAt(group, offset).count; });
      return;
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
      switch (physical) {
        case PhysicalType::kInt32:
          return addIntegers<int32_t>(argument, window, offset);
        case PhysicalType::kInt64:
          return addIntegers<int64_t>(argument, window, offset);
        case PhysicalType::kInt128:
          return addIntegers<__int128>(argument, window, offset);
        case PhysicalType::kBool:
          return addIntegers<uint8_t>(argument, window, offset);
        case PhysicalType::kDouble: {
          const double* values = argument.data<double>();
          if (spec.function == AggregateFunction::kSum && spec.argumentType.isReal()) {
            // sum(real) adds as float4pl does: each step rounds to float (22003 when it overflows).
            forValidRows(argument, window, [&](size_t row, uint8_t* group) {
              AggregateState& state = stateAt(group, offset);
              ++state.count;
              state.real = realFromDouble(state.real + values[row]);
            });
            return;
          }
          forValidRows(argument, window, [&](size_t row, uint8_t* group) {
            AggregateState& state = stateAt(group, offset);
            ++state.count;
            state.real += values[row];
          });
          return;
        }
        case PhysicalType::kString:
          break;
      }
      break;
    case AggregateFunction::kMin:
    case AggregateFunction::kMax: {
      const bool minimum = spec.function == AggregateFunction::kMin;
      switch (physical) {
        case PhysicalType::kBool:
          return integerExtremes<uint8_t>(argument, window, offset, minimum);
        case PhysicalType::kInt32:
          return integerExtremes<int32_t>(argument, window, offset, minimum);
        case PhysicalType::kInt64:
          return integerExtremes<int64_t>(argument, window, offset, minimum);
        case PhysicalType::kInt128:
          if (argument.type().id() == TypeId::kInterval) return intervalExtremes(argument, window, offset, minimum);
          return integerExtremes<__int128>(argument, window, offset, minimum);
        case PhysicalType::kDouble: {
          const double* values = argument.data<double>();
          forValidRows(argument, window, [&](size_t row, uint8_t* group) {
            AggregateState& state = stateAt(group, offset);
            ++state.count;
            double value = values[row];
            if (!state.hasValue || (minimum ? doubleLess(value, state.real) : doubleLess(state.real, value))) {
              state.real = value;
            }
            state.hasValue = 1;
          });
          return;
        }
        case PhysicalType::kString: {
          const StringRef* values = argument.data<StringRef>();
          forValidRows(argument, window, [&](size_t row, uint8_t* group) {
            AggregateState& state = stateAt(group, offset);
            ++state.count;
            const StringRef& value = values[row];
            if (state.hasValue) {
              int order = compare(value, loadText(state));
              if (minimum ? order >= 0 : order <= 0) return;
            }
            storeText(state, value.isInline() ? value : store.heap.add(value.view()));
            state.hasValue = 1;
          });
          return;
        }
      }
      break;
    }
    default:  // counted (count(*)) or collected (array_agg, string_agg) above
      break;
  }
  SHOAL_CHECK(false, "aggregate {} over {} has no grouped implementation", aggregateFunctionName(spec.function),
              argument.type().toString());
}

namespace {

/// Moves the side state (DISTINCT set, collection) a source state points to into the target's list,
/// or folds it into the one the target already points to.
template <class Side, class Fold>
void mergeSide(std::vector<Side>& targetSides, std::vector<Side>& sourceSides, AggregateState& target,
               const AggregateState& source, Fold&& fold) {
  if (source.sideIndex == 0) return;
  Side& from = sourceSides[source.sideIndex - 1];
  if (target.sideIndex == 0) {
    targetSides.push_back(std::move(from));
    target.sideIndex = static_cast<uint32_t>(targetSides.size());
  } else {
    fold(targetSides[target.sideIndex - 1], from);
  }
}

}  // namespace

void mergeState(const GroupedAggregate& spec, AggregateState& target, const AggregateState& source,
                GroupStore& targetStore, GroupStore& sourceStore) {
  target.count += source.count;
  if (isOrderedSetAggregate(spec.function)) {
    return mergeSide(targetStore.orderedSets, sourceStore.orderedSets, target, source,
                     [](OrderedSetValues& into, OrderedSetValues& from) { into.append(std::move(from)); });
  }
  if (isCollectingAggregate(spec.function)) {
    return mergeSide(targetStore.collections, sourceStore.collections, target, source,
                     [](CollectedValues& into, CollectedValues& from) { into.append(std::move(from)); });
  }
  if (isSketchAggregate(spec.function)) {
    if (countsDistinct(spec.function)) {
      return mergeSide(targetStore.distinctSketches, sourceStore.distinctSketches, target, source,
                       [](DistinctSketch& into, const DistinctSketch& from) { into.merge(from); });
    }
    return mergeSide(targetStore.quantileSketches, sourceStore.quantileSketches, target, source,
                     [](QuantileSketch& into, const QuantileSketch& from) { into.merge(from); });
  }
  if (spec.distinct) {
    return mergeSide(targetStore.distinctSets, sourceStore.distinctSets, target, source,
                     [](std::set<std::string>& into, std::set<std::string>& from) { into.merge(from); });
  }
  if (isMomentAggregate(spec.function)) {
    return mergeSide(targetStore.moments, sourceStore.moments, target, source,
                     [](Moments& into, const Moments& from) { into.merge(from); });
  }
  PhysicalType physical =
      spec.function == AggregateFunction::kCountStar ? PhysicalType::kInt64 : spec.argumentType.physicalType();
  switch (spec.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
    default:  // counts were added above; collections, sets and moments merged above
      return;
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
      if (physical == PhysicalType::kDouble) {
        const bool realSum = spec.function == AggregateFunction::kSum && spec.argumentType.isReal();
        target.real = realSum ? realFromDouble(target.real + source.real) : target.real + source.real;
      } else if (source.overflow || __builtin_add_overflow(target.integer, source.integer, &target.integer)) {
        target.overflow = 1;
      }
      return;
    case AggregateFunction::kMin:
    case AggregateFunction::kMax: {
      if (!source.hasValue) return;
      const bool minimum = spec.function == AggregateFunction::kMin;
      bool replace = !target.hasValue;
      if (!replace) {
        if (physical == PhysicalType::kDouble) {
          replace = minimum ? doubleLess(source.real, target.real) : doubleLess(target.real, source.real);
        } else if (physical == PhysicalType::kString) {
          int order = compare(loadText(source), loadText(target));
          replace = minimum ? order < 0 : order > 0;
        } else if (spec.argumentType.id() == TypeId::kInterval) {
          const __int128 sourceSpan = intervalSpan(source.integer);
          const __int128 targetSpan = intervalSpan(target.integer);
          replace = minimum ? sourceSpan < targetSpan : sourceSpan > targetSpan;
        } else {
          replace = minimum ? source.integer < target.integer : source.integer > target.integer;
        }
      }
      if (replace) {
        // String extremes keep pointing into the source table's heap, which lives as long as the aggregation.
        std::memcpy(target.text, source.text, sizeof(target.text));
        target.hasValue = 1;
      }
      return;
    }
  }
}

namespace {

/// The extreme a state holds, as a Value of `type`.
Value extremeValue(const AggregateState& state, const LogicalType& type) {
  if (!state.hasValue) return Value::null(type);
  switch (type.physicalType()) {
    case PhysicalType::kBool:
      return Value::boolean(state.integer != 0);
    case PhysicalType::kInt32:
      return Value::ofInt32(type, static_cast<int32_t>(state.integer));
    case PhysicalType::kInt64:
      return type.id() == TypeId::kDecimal ? Value::decimal(type, state.integer)
                                           : Value::ofInt64(type, static_cast<int64_t>(state.integer));
    case PhysicalType::kInt128:
      return Value::decimal(type, state.integer);
    case PhysicalType::kDouble:
      return Value::ofDouble(type, state.real);
    case PhysicalType::kString:
      return Value::varchar(std::string(loadText(state).view()), type);
  }
  return Value::null(type);
}

/// The values a DISTINCT aggregate saw, decoded from their key bytes into a vector.
Vector distinctValues(const LogicalType& type, const std::set<std::string>& seen) {
  Vector values(type, std::max<size_t>(seen.size(), 1));
  values.resize(seen.size());
  size_t row = 0;
  for (const std::string& bytes : seen) {
    const char* value = bytes.data();
    switch (type.physicalType()) {
      case PhysicalType::kBool:
        std::memcpy(values.data<uint8_t>() + row, value, 1);
        break;
      case PhysicalType::kInt32: {
        int64_t widened;  // key bytes widen INTEGER to 64 bits
        std::memcpy(&widened, value, sizeof(widened));
        values.data<int32_t>()[row] = static_cast<int32_t>(widened);
        break;
      }
      case PhysicalType::kInt64:
        std::memcpy(values.data<int64_t>() + row, value, 8);
        break;
      case PhysicalType::kInt128:
        std::memcpy(values.data<__int128>() + row, value, 16);
        break;
      case PhysicalType::kDouble:
        std::memcpy(values.data<double>() + row, value, 8);
        break;
      case PhysicalType::kString: {
        uint32_t length;
        std::memcpy(&length, value, sizeof(length));
        values.setString(row, std::string_view(value + sizeof(length), length));
        break;
      }
    }
    values.setNull(row, false);
    ++row;
  }
  return values;
}

[[noreturn]] void sumOutOfRange(const GroupedAggregate& spec) {
  SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "{} out of range in {}", spec.resultType.toString(),
                  aggregateFunctionName(spec.function));
}

/// Writes a statistical aggregate's value (or, for kMoments, its partial state) into row `row` of `out`.
void writeMoments(AggregateFunction function, const Moments& moments, Vector& out, size_t row) {
  if (function == AggregateFunction::kMoments) {
    out.setString(row, moments.encode());
    out.setNull(row, false);
    return;
  }
  std::optional<double> value = finishMoments(function, moments);
  out.setNull(row, !value);
  if (!value) return;
  if (function == AggregateFunction::kRegrCount) {
    out.data<int64_t>()[row] = static_cast<int64_t>(*value);
  } else {
    out.data<double>()[row] = *value;
  }
}

/// Writes a sketch aggregate's value (or, for the partial functions, its encoded sketch) into row `row` of `out`.
void writeSketch(const GroupedAggregate& spec, const AggregateState& state, GroupStore& store, Vector& out,
                 size_t row) {
  const bool empty = state.sideIndex == 0;
  switch (spec.function) {
    case AggregateFunction::kDistinctSketch:
    case AggregateFunction::kQuantileSketch:
      out.setNull(row, empty);
      if (!empty) {
        out.setString(row, spec.function == AggregateFunction::kDistinctSketch
                               ? store.distinctSketches[state.sideIndex - 1].encode()
                               : store.quantileSketches[state.sideIndex - 1].encode());
      }
      return;
    case AggregateFunction::kApproxCountDistinct:
      out.data<int64_t>()[row] = empty ? 0 : store.distinctSketches[state.sideIndex - 1].estimate();
      out.setNull(row, false);
      return;
    default: {
      std::optional<double> value;
      // A NULL fraction (NaN here) gives NULL.
      if (!empty && !std::isnan(spec.fraction)) {
        value = store.quantileSketches[state.sideIndex - 1].quantile(spec.fraction);
      }
      out.setNull(row, !value);
      if (value) out.data<double>()[row] = *value;
      return;
    }
  }
}

}  // namespace

void writeFinal(const GroupedAggregate& spec, const AggregateState& state, GroupStore& store, Vector& out, size_t row) {
  if (isOrderedSetAggregate(spec.function)) {
    out.setValue(
        row, state.sideIndex == 0 ? Value::null(spec.resultType) : store.orderedSets[state.sideIndex - 1].finish(spec));
    return;
  }
  if (isCollectingAggregate(spec.function)) {
    out.setValue(
        row, state.sideIndex == 0 ? Value::null(spec.resultType) : store.collections[state.sideIndex - 1].finish(spec));
    return;
  }
  if (isSketchAggregate(spec.function)) return writeSketch(spec, state, store, out, row);
  if (isMomentAggregate(spec.function)) {
    Moments moments;
    if (spec.distinct && state.sideIndex != 0) {
      // Each key is a double's 8 key bytes, or a (y, x) pair's 16. They are added in ascending order (NaN
      // last), as PostgreSQL feeds the sorted distinct values, so that the sums round alike.
      std::vector<std::pair<double, double>> pairs;
      bool twoVariables = false;
      for (const std::string& bytes : store.distinctSets[state.sideIndex - 1]) {
        twoVariables = bytes.size() == 2 * sizeof(double);
        std::pair<double, double> pair{0, 0};
        std::memcpy(&pair.first, bytes.data(), sizeof(double));
        if (bytes.size() == 2 * sizeof(double))
          std::memcpy(&pair.second, bytes.data() + sizeof(double), sizeof(double));
        pairs.push_back(pair);
      }
      auto less = [](double a, double b) { return std::isnan(a) ? false : std::isnan(b) || a < b; };
      std::sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) {
        return less(a.first, b.first) || (!less(b.first, a.first) && less(a.second, b.second));
      });
      for (const auto& [y, x] : pairs) twoVariables ? moments.add(y, x) : moments.add(y);
    } else if (!spec.distinct && state.sideIndex != 0) {
      moments = store.moments[state.sideIndex - 1];
    }
    return writeMoments(spec.function, moments, out, row);
  }
  if (spec.distinct) {
    ScalarAggregate finisher(spec.function, spec.argumentType, spec.resultType);
    if (state.sideIndex != 0) {
      Vector values = distinctValues(spec.argumentType, store.distinctSets[state.sideIndex - 1]);
      finisher.update(&values, values.size());
    }
    out.setValue(row, finisher.finalize());
    return;
  }
  switch (spec.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      out.data<int64_t>()[row] = state.count;
      out.setNull(row, false);
      return;
    case AggregateFunction::kSum:
      if (state.count == 0) {
        out.setNull(row, true);
        return;
      }
      if (state.overflow) sumOutOfRange(spec);
      out.setNull(row, false);
      switch (out.type().physicalType()) {
        case PhysicalType::kDouble:
          out.data<double>()[row] = state.real;
          return;
        case PhysicalType::kInt64:
          if (state.integer > std::numeric_limits<int64_t>::max() ||
              state.integer < std::numeric_limits<int64_t>::min() ||
              (spec.resultType.id() == TypeId::kDecimal &&
               !fitsPrecision(state.integer, spec.resultType.precision()))) {
            sumOutOfRange(spec);
          }
          out.data<int64_t>()[row] = static_cast<int64_t>(state.integer);
          return;
        case PhysicalType::kInt128:
          if (!fitsPrecision(state.integer, spec.resultType.precision())) sumOutOfRange(spec);
          out.data<__int128>()[row] = state.integer;
          return;
        default:
          break;
      }
      break;
    default:
      break;
  }
  // AVG, MIN and MAX: the scalar aggregate's finishing rules (rounding, result types).
  ScalarAggregate finisher(spec.function, spec.argumentType, spec.resultType);
  Value extreme = extremeValue(state, spec.argumentType);
  finisher.mergeState(state.count, state.integer, state.overflow != 0,
                      spec.argumentType.physicalType() == PhysicalType::kDouble ? state.real : 0, extreme, extreme);
  out.setValue(row, finisher.finalize());
}

void adoptSideState(const GroupedAggregate& spec, AggregateState& target, const AggregateState& source,
                    GroupStore& targetStore, GroupStore& sourceStore) {
  auto neverFolded = [](auto&, auto&) {};  // the target is a fresh copy without a side state
  target.sideIndex = 0;
  if (isOrderedSetAggregate(spec.function)) {
    mergeSide(targetStore.orderedSets, sourceStore.orderedSets, target, source, neverFolded);
  } else if (isCollectingAggregate(spec.function)) {
    mergeSide(targetStore.collections, sourceStore.collections, target, source, neverFolded);
  } else if (spec.distinct) {
    mergeSide(targetStore.distinctSets, sourceStore.distinctSets, target, source, neverFolded);
  } else if (isMomentAggregate(spec.function)) {
    mergeSide(targetStore.moments, sourceStore.moments, target, source, neverFolded);
  } else if (isSketchAggregate(spec.function)) {
    if (countsDistinct(spec.function)) {
      mergeSide(targetStore.distinctSketches, sourceStore.distinctSketches, target, source, neverFolded);
    } else {
      mergeSide(targetStore.quantileSketches, sourceStore.quantileSketches, target, source, neverFolded);
    }
  }
}

}  // namespace shoal::engine::aggregation
