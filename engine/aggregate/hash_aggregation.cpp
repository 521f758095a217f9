#include "engine/aggregate/hash_aggregation.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "common/status.h"
#include "engine/aggregate/collected_values.h"
#include "engine/aggregate/scalar_aggregate.h"
#include "engine/pipeline/query_memory.h"
#include "engine/types/decimal.h"
#include "engine/vector/key_bytes.h"
#include "engine/vector/vector_hash.h"

namespace shoal::engine {

namespace {

/// The running state of one aggregate in one group row.
struct AggregateState {
  union {
    __int128 integer;  // sum (at the argument's scale), or extreme, of integers, decimals, dates and booleans
    double real;       // sum or extreme of doubles
    unsigned char text[sizeof(StringRef)];  // extreme of strings (a StringRef, copied with memcpy)
  };
  int64_t count;       // non-NULL values seen
  uint32_t sideIndex;  // 1-based index of the table's side state (DISTINCT: its set of seen values;
                       // array_agg, string_agg: its CollectedValues); 0: none yet
  uint8_t hasValue;    // an extreme has been seen
  uint8_t overflow;    // the integer sum overflowed 128 bits
};
static_assert(sizeof(AggregateState) == 32);

StringRef loadText(const AggregateState& state) {
  StringRef ref;
  std::memcpy(&ref, state.text, sizeof(ref));
  return ref;
}

void storeText(AggregateState& state, const StringRef& ref) {
  std::memcpy(state.text, &ref, sizeof(ref));
}

/// NaN sorts above every number, as in PostgreSQL.
bool doubleLess(double a, double b) {
  return std::isnan(b) ? !std::isnan(a) : a < b;
}

double normalizedDouble(double value) {
  if (value == 0) return 0;  // -0.0 groups with 0.0
  if (std::isnan(value)) return std::numeric_limits<double>::quiet_NaN();
  return value;
}

size_t alignUp(size_t offset, size_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

}  // namespace

/// Where the hash, the keys and the aggregate states sit in a group row.
struct HashAggregation::Layout {
  static constexpr size_t kHashOffset = 0;
  static constexpr size_t kNullFlagsOffset = sizeof(uint64_t);

  Layout(const std::vector<LogicalType>& keyTypes, size_t numAggregates) {
    size_t offset = kNullFlagsOffset + keyTypes.size();
    for (const auto& type : keyTypes) {
      PhysicalType physical = type.physicalType();
      size_t width = physicalTypeWidth(physical);
      offset = alignUp(offset, std::min<size_t>(width, 16));
      keyPhysical.push_back(physical);
      keyOffsets.push_back(offset);
      offset += width;
    }
    offset = alignUp(offset, 16);
    for (size_t i = 0; i < numAggregates; ++i) {
      stateOffsets.push_back(offset);
      offset += sizeof(AggregateState);
    }
    statesOffset = stateOffsets.empty() ? offset : stateOffsets[0];
    rowWidth = alignUp(std::max<size_t>(offset, 16), 16);
  }

  std::vector<PhysicalType> keyPhysical;
  std::vector<size_t> keyOffsets;
  std::vector<size_t> stateOffsets;
  size_t statesOffset = 0;
  size_t rowWidth = 0;
};

namespace {

using Layout = HashAggregation::Layout;

AggregateState& stateAt(uint8_t* row, size_t offset) {
  return *reinterpret_cast<AggregateState*>(row + offset);
}

uint64_t hashOf(const uint8_t* row) {
  uint64_t hash;
  std::memcpy(&hash, row + Layout::kHashOffset, sizeof(hash));
  return hash;
}

/// The groups of one partition of one thread's table (or of the merged result):
/// fixed-width rows in insertion order, found through an open-addressing index.
class GroupTable {
 public:
  explicit GroupTable(size_t rowWidth) : rowWidth_(rowWidth) {}

  size_t size() const { return count_; }
  uint8_t* row(size_t group) { return rows_.data() + group * rowWidth_; }

  /// The group whose row `equals` accepts, or a new one that `init` fills (hash first).
  template <class Equals, class Init>
  uint32_t findOrInsert(uint64_t hash, Equals&& equals, Init&& init) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const uint64_t tag = hash & kTagMask;
    for (size_t slot = hash & mask_;; slot = (slot + 1) & mask_) {
      uint64_t entry = slots_[slot];
      if (entry == 0) {
        auto group = static_cast<uint32_t>(count_);
        size_t capacity = rows_.capacity();
        rows_.resize(rows_.size() + rowWidth_);
        if (rows_.capacity() != capacity) reserveQueryMemory(rows_.capacity() - capacity);
        uint8_t* fresh = row(group);
        std::memset(fresh, 0, rowWidth_);
        std::memcpy(fresh + Layout::kHashOffset, &hash, sizeof(hash));
        init(fresh);
        slots_[slot] = tag | (count_ + 1);
        ++count_;
        return group;
      }
      if ((entry & kTagMask) == tag) {
        auto group = static_cast<uint32_t>((entry & ~kTagMask) - 1);
        if (equals(row(group))) return group;
      }
    }
  }

  size_t memoryBytes() const { return rows_.capacity() + slots_.capacity() * sizeof(uint64_t); }

  /// Makes room for `groups` groups in all, so that inserting them never rehashes or moves rows.
  void reserve(size_t groups) {
    const size_t rowBytes = groups * rowWidth_;
    if (rowBytes > rows_.capacity()) {
      reserveQueryMemory(rowBytes - rows_.capacity());
      rows_.reserve(rowBytes);
    }
    if (groups * 2 > slots_.size()) grow(std::bit_ceil(groups * 2));
  }

  /// Starts loading the slot a lookup of `hash` reads first.
  void prefetchSlot(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }
  /// Starts loading the group that slot points to, when its tag matches `hash`.
  void prefetchGroup(uint64_t hash) const {
    if (slots_.empty()) return;
    uint64_t entry = slots_[hash & mask_];
    if (entry != 0 && (entry & kTagMask) == (hash & kTagMask)) {
      __builtin_prefetch(rows_.data() + ((entry & ~kTagMask) - 1) * rowWidth_);
    }
  }

 private:
  // The hash's upper 24 bits beside the group number + 1 (0: empty slot).
  static constexpr uint64_t kTagMask = 0xffffff0000000000ULL;

  void grow(size_t capacity = 0) {
    capacity = std::max<size_t>({64, slots_.size() * 2, capacity});
    reserveQueryMemory((capacity - slots_.size()) * sizeof(uint64_t));
    slots_.assign(capacity, 0);
    mask_ = capacity - 1;
    for (size_t group = 0; group < count_; ++group) {
      uint64_t hash = hashOf(row(group));
      size_t slot = hash & mask_;
      while (slots_[slot] != 0) slot = (slot + 1) & mask_;
      slots_[slot] = (hash & kTagMask) | (group + 1);
    }
  }

  size_t rowWidth_;
  std::vector<uint8_t> rows_;
  size_t count_ = 0;
  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
};

/// One thread's groups, or the merged groups of one partition.
struct GroupStore {
  GroupStore(size_t numPartitions, size_t rowWidth) {
    for (size_t p = 0; p < numPartitions; ++p) partitions.emplace_back(rowWidth);
  }
  std::vector<GroupTable> partitions;
  /// Key strings and string extremes that do not fit inline.
  StringHeap heap;
  /// DISTINCT aggregates' seen values (key bytes), by AggregateState::sideIndex - 1.
  std::vector<std::set<std::string>> distinctSets;
  /// Collecting aggregates' rows, by AggregateState::sideIndex - 1.
  std::vector<CollectedValues> collections;
};

struct LocalTable final : LocalSinkState {
  explicit LocalTable(size_t rowWidth) : store(HashAggregation::kPartitions, rowWidth) {}
  GroupStore store;
};

/// Whether key `k` of an input row equals the group row's.
bool keyEquals(const Vector& column, size_t row, PhysicalType physical, const uint8_t* groupValue, bool groupNull) {
  bool null = column.isNull(row);
  if (null != groupNull) return false;
  if (null) return true;
  switch (physical) {
    case PhysicalType::kBool:
      return column.data<uint8_t>()[row] == *groupValue;
    case PhysicalType::kInt32:
      return std::memcmp(column.data<int32_t>() + row, groupValue, 4) == 0;
    case PhysicalType::kInt64:
      return std::memcmp(column.data<int64_t>() + row, groupValue, 8) == 0;
    case PhysicalType::kInt128:
      return std::memcmp(column.data<__int128>() + row, groupValue, 16) == 0;
    case PhysicalType::kDouble: {
      double value = normalizedDouble(column.data<double>()[row]);
      return std::memcmp(&value, groupValue, 8) == 0;
    }
    case PhysicalType::kString: {
      StringRef stored;
      std::memcpy(&stored, groupValue, sizeof(stored));
      return column.data<StringRef>()[row] == stored;
    }
  }
  return false;
}

/// Writes key `k` of an input row into a new group row.
void storeKey(const Vector& column, size_t row, PhysicalType physical, uint8_t* groupValue, uint8_t& groupNull,
              StringHeap& heap) {
  if (column.isNull(row)) {
    groupNull = 1;
    return;
  }
  switch (physical) {
    case PhysicalType::kBool:
      *groupValue = column.data<uint8_t>()[row];
      break;
    case PhysicalType::kInt32:
      std::memcpy(groupValue, column.data<int32_t>() + row, 4);
      break;
    case PhysicalType::kInt64:
      std::memcpy(groupValue, column.data<int64_t>() + row, 8);
      break;
    case PhysicalType::kInt128:
      std::memcpy(groupValue, column.data<__int128>() + row, 16);
      break;
    case PhysicalType::kDouble: {
      double value = normalizedDouble(column.data<double>()[row]);
      std::memcpy(groupValue, &value, 8);
      break;
    }
    case PhysicalType::kString: {
      const StringRef& text = column.data<StringRef>()[row];
      StringRef owned = text.isInline() ? text : heap.add(text.view());
      std::memcpy(groupValue, &owned, sizeof(owned));
      break;
    }
  }
}

/// Whether two group rows have the same keys.
bool rowKeysEqual(const Layout& layout, const uint8_t* a, const uint8_t* b) {
  const size_t numKeys = layout.keyPhysical.size();
  if (std::memcmp(a + Layout::kNullFlagsOffset, b + Layout::kNullFlagsOffset, numKeys) != 0) return false;
  for (size_t k = 0; k < numKeys; ++k) {
    if (a[Layout::kNullFlagsOffset + k]) continue;
    const uint8_t* x = a + layout.keyOffsets[k];
    const uint8_t* y = b + layout.keyOffsets[k];
    if (layout.keyPhysical[k] == PhysicalType::kString) {
      StringRef left;
      StringRef right;
      std::memcpy(&left, x, sizeof(left));
      std::memcpy(&right, y, sizeof(right));
      if (!(left == right)) return false;
    } else if (std::memcmp(x, y, physicalTypeWidth(layout.keyPhysical[k])) != 0) {
      return false;
    }
  }
  return true;
}

/// The rows [first, first + count) of a chunk that one pass of the sink works on
/// (chunks may hold more than kVectorSize rows); groups[i] is row first + i's group.
struct Window {
  size_t first;
  size_t count;
  uint8_t* const* groups;
};

/// Calls `body(row, group)` for each row of the window where `argument` is not NULL.
template <class Body>
void forValidRows(const Vector& argument, const Window& window, Body&& body) {
  const bool allValid = argument.validity().allValid(window.first + window.count);
  for (size_t i = 0; i < window.count; ++i) {
    size_t row = window.first + i;
    if (allValid || !argument.isNull(row)) body(row, window.groups[i]);
  }
}

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

/// Folds one chunk's argument column into the states of its rows' groups.
void updateStates(const GroupedAggregate& spec, const Chunk& chunk, const Window& window, size_t offset,
                  GroupStore& store) {
  if (spec.function == AggregateFunction::kCountStar) {
    for (size_t i = 0; i < window.count; ++i) ++stateAt(window.groups[i], offset).count;
    return;
  }
  if (isCollectingAggregate(spec.function)) {
    for (size_t i = 0; i < window.count; ++i) {
      AggregateState& state = stateAt(window.groups[i], offset);
      if (state.sideIndex == 0) {
        store.collections.emplace_back();
        state.sideIndex = static_cast<uint32_t>(store.collections.size());
      }
      ++state.count;
      store.collections[state.sideIndex - 1].add(spec, chunk, window.first + i);
    }
    return;
  }
  const Vector& argument = chunk.column(*spec.argumentColumn);
  PhysicalType physical = argument.type().physicalType();
  if (spec.distinct) {
    std::string bytes;
    forValidRows(argument, window, [&](size_t row, uint8_t* group) {
      AggregateState& state = stateAt(group, offset);
      if (state.sideIndex == 0) {
        store.distinctSets.emplace_back();
        state.sideIndex = static_cast<uint32_t>(store.distinctSets.size());
      }
      bytes.clear();
      appendKeyBytes(argument, row, bytes);
      store.distinctSets[state.sideIndex - 1].insert(bytes);
    });
    return;
  }
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
    case AggregateFunction::kCountStar:
    case AggregateFunction::kArrayAgg:  // collected above
    case AggregateFunction::kStringAgg:
      break;
  }
  SHOAL_CHECK(false, "aggregate {} over {} has no grouped implementation", aggregateFunctionName(spec.function),
              argument.type().toString());
}

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

/// Folds the state `source` (of a thread-local table) into `target` (of the merged table).
void mergeState(const GroupedAggregate& spec, AggregateState& target, const AggregateState& source,
                GroupStore& targetStore, GroupStore& sourceStore) {
  target.count += source.count;
  if (isCollectingAggregate(spec.function)) {
    return mergeSide(targetStore.collections, sourceStore.collections, target, source,
                     [](CollectedValues& into, CollectedValues& from) { into.append(std::move(from)); });
  }
  if (spec.distinct) {
    return mergeSide(targetStore.distinctSets, sourceStore.distinctSets, target, source,
                     [](std::set<std::string>& into, std::set<std::string>& from) { into.merge(from); });
  }
  PhysicalType physical =
      spec.function == AggregateFunction::kCountStar ? PhysicalType::kInt64 : spec.argumentType.physicalType();
  switch (spec.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
    case AggregateFunction::kArrayAgg:  // merged above
    case AggregateFunction::kStringAgg:
      return;
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
      if (physical == PhysicalType::kDouble) {
        target.real += source.real;
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
      return Value::doublePrecision(state.real);
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

/// Writes the final value of one aggregate of one group into row `row` of `out`.
void writeFinal(const GroupedAggregate& spec, const AggregateState& state, GroupStore& store, Vector& out, size_t row) {
  if (isCollectingAggregate(spec.function)) {
    out.setValue(
        row, state.sideIndex == 0 ? Value::null(spec.resultType) : store.collections[state.sideIndex - 1].finish(spec));
    return;
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

}  // namespace

class HashAggregationSink final : public ChunkSink {
 public:
  explicit HashAggregationSink(HashAggregation& aggregation) : aggregation_(aggregation) {}

  std::unique_ptr<LocalSinkState> makeLocalState() const override {
    return std::make_unique<LocalTable>(aggregation_.layout_->rowWidth);
  }

  void consume(Chunk& chunk, LocalSinkState& state) const override {
    auto& store = static_cast<LocalTable&>(state).store;
    for (size_t first = 0; first < chunk.size(); first += kVectorSize) {
      consumeWindow(chunk, first, std::min(kVectorSize, chunk.size() - first), store);
    }
  }

  void combine(LocalSinkState& state) override {
    // The threads' tables are merged partition by partition in the source, in parallel.
    aggregation_.tables_.push_back(std::make_unique<LocalTable>(std::move(static_cast<LocalTable&>(state))));
  }

 private:
  void consumeWindow(const Chunk& chunk, size_t first, size_t count, GroupStore& store) const {
    const Layout& layout = *aggregation_.layout_;
    const size_t numKeys = aggregation_.keyTypes_.size();
    uint32_t groupOf[kVectorSize];
    uint8_t partitionOf[kVectorSize];
    uint8_t* groups[kVectorSize];
    if (numKeys == 0) {
      // One group for every row: partition 0, group 0.
      GroupTable& table = store.partitions[0];
      if (table.size() == 0) {
        table.findOrInsert(
            0, [](const uint8_t*) { return true; }, [](uint8_t*) {});
      }
      for (size_t i = 0; i < count; ++i) groups[i] = table.row(0);
    } else {
      uint64_t hashes[kVectorSize];
      for (size_t k = 0; k < numKeys; ++k) hashVector(chunk.column(k), first, count, hashes, k > 0);
      // Large tables miss the cache twice per row (slot, then group): start those loads for a batch of rows
      // ahead, so that they overlap instead of stalling one row at a time.
      constexpr size_t kPrefetchBatch = 256;
      for (size_t i = 0; i < count; ++i) {
        if (i % kPrefetchBatch == 0) {
          size_t end = std::min(count, i + kPrefetchBatch);
          for (size_t j = i; j < end; ++j) store.partitions[hashes[j] >> 59].prefetchSlot(hashes[j]);
          for (size_t j = i; j < end; ++j) store.partitions[hashes[j] >> 59].prefetchGroup(hashes[j]);
        }
        const size_t row = first + i;
        const uint64_t hash = hashes[i];
        const auto partition = static_cast<uint8_t>(hash >> 59);  // kPartitions = 32
        partitionOf[i] = partition;
        groupOf[i] = store.partitions[partition].findOrInsert(
            hash,
            [&](const uint8_t* group) {
              for (size_t k = 0; k < numKeys; ++k) {
                if (!keyEquals(chunk.column(k), row, layout.keyPhysical[k], group + layout.keyOffsets[k],
                               group[Layout::kNullFlagsOffset + k] != 0)) {
                  return false;
                }
              }
              return true;
            },
            [&](uint8_t* group) {
              for (size_t k = 0; k < numKeys; ++k) {
                storeKey(chunk.column(k), row, layout.keyPhysical[k], group + layout.keyOffsets[k],
                         group[Layout::kNullFlagsOffset + k], store.heap);
              }
            });
      }
      // Rows may have moved while groups were added: take their addresses only now.
      for (size_t i = 0; i < count; ++i) groups[i] = store.partitions[partitionOf[i]].row(groupOf[i]);
    }
    Window window{first, count, groups};
    for (size_t i = 0; i < aggregation_.aggregates_.size(); ++i) {
      updateStates(aggregation_.aggregates_[i], chunk, window, layout.stateOffsets[i], store);
    }
  }

  HashAggregation& aggregation_;
};

static_assert(HashAggregation::kPartitions == 32, "the sink takes partitions from the hash's top 5 bits");

class HashAggregationSource final : public ChunkSource {
 public:
  explicit HashAggregationSource(HashAggregation& aggregation) : aggregation_(aggregation) {}

  size_t numMorsels() const override {
    // Without keys every row is in one group: one morsel sees them all, and answers even for no rows.
    return aggregation_.keyTypes_.empty() ? 1 : HashAggregation::kPartitions;
  }

  void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const override {
    const Layout& layout = *aggregation_.layout_;
    const auto& aggregates = aggregation_.aggregates_;
    const size_t numKeys = aggregation_.keyTypes_.size();
    GroupStore merged(1, layout.rowWidth);
    GroupTable& out = merged.partitions[0];
    // Room for every partial group when threads saw different keys (the sum), but not for
    // many threads' copies of the same keys (at most twice the largest partial table).
    size_t partialGroups = 0;
    size_t largestPartial = 0;
    for (auto& local : aggregation_.tables_) {
      size_t groups = static_cast<LocalTable&>(*local).store.partitions[morsel].size();
      partialGroups += groups;
      largestPartial = std::max(largestPartial, groups);
    }
    out.reserve(std::min(partialGroups, 2 * largestPartial));
    for (auto& local : aggregation_.tables_) {
      GroupStore& store = static_cast<LocalTable&>(*local).store;
      GroupTable& groups = store.partitions[morsel];
      for (size_t g = 0; g < groups.size(); ++g) {
        uint8_t* source = groups.row(g);
        bool inserted = false;
        uint32_t target = out.findOrInsert(
            hashOf(source), [&](const uint8_t* candidate) { return rowKeysEqual(layout, candidate, source); },
            [&](uint8_t* fresh) {
              // Keys (string handles into the thread's heap, which the aggregation keeps) and states as they are.
              std::memcpy(fresh, source, layout.rowWidth);
              for (size_t i = 0; i < aggregates.size(); ++i) stateAt(fresh, layout.stateOffsets[i]).sideIndex = 0;
              inserted = true;
            });
        uint8_t* row = out.row(target);
        for (size_t i = 0; i < aggregates.size(); ++i) {
          AggregateState& state = stateAt(row, layout.stateOffsets[i]);
          const AggregateState& from = stateAt(source, layout.stateOffsets[i]);
          if (inserted) {
            // The copy already holds the counts, sums and extremes; only DISTINCT sets and collections change hands.
            if (isCollectingAggregate(aggregates[i].function) && from.sideIndex != 0) {
              merged.collections.push_back(std::move(store.collections[from.sideIndex - 1]));
              state.sideIndex = static_cast<uint32_t>(merged.collections.size());
            } else if (aggregates[i].distinct && from.sideIndex != 0) {
              merged.distinctSets.push_back(std::move(store.distinctSets[from.sideIndex - 1]));
              state.sideIndex = static_cast<uint32_t>(merged.distinctSets.size());
            }
          } else {
            mergeState(aggregates[i], state, from, merged, store);
          }
        }
      }
    }
    if (numKeys == 0 && out.size() == 0) {
      out.findOrInsert(
          0, [](const uint8_t*) { return true; }, [](uint8_t*) {});
    }
    std::vector<LogicalType> types = aggregation_.outputTypes();
    for (size_t begin = 0; begin < out.size(); begin += kVectorSize) {
      size_t rows = std::min(kVectorSize, out.size() - begin);
      Chunk chunk(rows);
      for (size_t column = 0; column < types.size(); ++column) {
        Vector vector(types[column], rows);
        vector.resize(rows);
        for (size_t row = 0; row < rows; ++row) {
          uint8_t* group = out.row(begin + row);
          if (column < numKeys) {
            writeKey(layout, column, group, vector, row);
          } else {
            size_t i = column - numKeys;
            writeFinal(aggregates[i], stateAt(group, layout.stateOffsets[i]), merged, vector, row);
          }
        }
        chunk.addColumn(std::move(vector));
      }
      consume(chunk);
    }
  }

 private:
  static void writeKey(const Layout& layout, size_t k, const uint8_t* group, Vector& out, size_t row) {
    bool null = group[Layout::kNullFlagsOffset + k] != 0;
    out.setNull(row, null);
    if (null) return;
    const uint8_t* value = group + layout.keyOffsets[k];
    if (layout.keyPhysical[k] == PhysicalType::kString) {
      StringRef text;
      std::memcpy(&text, value, sizeof(text));
      // The output must not point into the aggregation's heaps: a result may outlive them.
      if (text.isInline()) {
        out.data<StringRef>()[row] = text;
      } else {
        out.setString(row, text.view());
      }
      return;
    }
    size_t width = physicalTypeWidth(layout.keyPhysical[k]);
    copyValue(out.data<uint8_t>() + row * width, value, width);
  }

  HashAggregation& aggregation_;
};

HashAggregation::HashAggregation(std::vector<LogicalType> keyTypes, std::vector<GroupedAggregate> aggregates)
    : keyTypes_(std::move(keyTypes)),
      aggregates_(std::move(aggregates)),
      layout_(std::make_unique<Layout>(keyTypes_, aggregates_.size())) {}

HashAggregation::~HashAggregation() = default;

std::shared_ptr<ChunkSink> HashAggregation::sink() {
  return std::make_shared<HashAggregationSink>(*this);
}

std::shared_ptr<ChunkSource> HashAggregation::source() {
  return std::make_shared<HashAggregationSource>(*this);
}

std::vector<LogicalType> HashAggregation::outputTypes() const {
  std::vector<LogicalType> types = keyTypes_;
  for (const auto& aggregate : aggregates_) types.push_back(aggregate.resultType);
  return types;
}

}  // namespace shoal::engine
