#include "engine/aggregate/hash_aggregation.h"

#include <cmath>
#include <cstring>
#include <set>

#include "engine/aggregate/scalar_aggregate.h"
#include "engine/vector/key_bytes.h"

namespace shoal::engine {

/// The running state of one aggregate for one group.
struct HashAggregation::Accumulator {
  int64_t count = 0;
  __int128 integerSum = 0;
  bool overflow = false;
  double doubleSum = 0;
  bool hasExtremes = false;
  __int128 integerMin = 0;
  __int128 integerMax = 0;
  double doubleMin = 0;
  double doubleMax = 0;
  std::string textMin;
  std::string textMax;
  /// DISTINCT aggregates keep their values (serialized) and aggregate them at the end.
  std::unique_ptr<std::set<std::string>> distinct;
};

/// The groups of one partition of one thread's table (or of the merged result).
struct HashAggregation::Groups {
  std::unordered_map<std::string, uint32_t> index;
  std::vector<std::vector<Value>> keys;
  /// groups × aggregates, row-major.
  std::vector<Accumulator> accumulators;
};

namespace {

struct Table final : LocalSinkState {
  std::vector<HashAggregation::Groups> partitions{HashAggregation::kPartitions};
};

/// Appends a NULL flag and, for a value, its key bytes.
void appendValue(const Vector& vector, size_t row, std::string& out) {
  out.push_back(vector.isNull(row) ? 0 : 1);
  if (!vector.isNull(row)) appendKeyBytes(vector, row, out);
}

/// A number of an integral, decimal, date or boolean value, widened.
__int128 integerAt(const Vector& vector, size_t row) {
  switch (vector.type().physicalType()) {
    case PhysicalType::kBool:
      return vector.data<uint8_t>()[row];
    case PhysicalType::kInt32:
      return vector.data<int32_t>()[row];
    case PhysicalType::kInt64:
      return vector.data<int64_t>()[row];
    default:
      return vector.data<__int128>()[row];
  }
}

/// Adds one non-NULL value (given typed) to an accumulator.
void accumulate(const GroupedAggregate& spec, HashAggregation::Accumulator& state, PhysicalType physical,
                __int128 integer, double real, std::string_view text) {
  ++state.count;
  bool wantSum = spec.function == AggregateFunction::kSum || spec.function == AggregateFunction::kAvg;
  bool wantExtremes = spec.function == AggregateFunction::kMin || spec.function == AggregateFunction::kMax;
  if (physical == PhysicalType::kDouble) {
    if (wantSum) state.doubleSum += real;
    if (wantExtremes) {
      // NaN sorts above every number, as in PostgreSQL.
      auto less = [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; };
      if (!state.hasExtremes || less(real, state.doubleMin)) state.doubleMin = real;
      if (!state.hasExtremes || less(state.doubleMax, real)) state.doubleMax = real;
    }
  } else if (physical == PhysicalType::kString) {
    if (wantExtremes) {
      if (!state.hasExtremes || text < state.textMin) state.textMin = std::string(text);
      if (!state.hasExtremes || text > state.textMax) state.textMax = std::string(text);
    }
  } else {
    if (wantSum && __builtin_add_overflow(state.integerSum, integer, &state.integerSum)) state.overflow = true;
    if (wantExtremes) {
      if (!state.hasExtremes || integer < state.integerMin) state.integerMin = integer;
      if (!state.hasExtremes || integer > state.integerMax) state.integerMax = integer;
    }
  }
  state.hasExtremes = state.hasExtremes || wantExtremes;
}

void updateRow(const GroupedAggregate& spec, HashAggregation::Accumulator& state, const Chunk& chunk, size_t row,
               std::string& buffer) {
  if (spec.function == AggregateFunction::kCountStar) {
    ++state.count;
    return;
  }
  const Vector& argument = chunk.column(*spec.argumentColumn);
  if (argument.isNull(row)) return;
  if (spec.distinct) {
    buffer.clear();
    appendValue(argument, row, buffer);
    if (!state.distinct) state.distinct = std::make_unique<std::set<std::string>>();
    state.distinct->insert(buffer);
    return;
  }
  PhysicalType physical = argument.type().physicalType();
  switch (physical) {
    case PhysicalType::kDouble:
      accumulate(spec, state, physical, 0, argument.data<double>()[row], {});
      break;
    case PhysicalType::kString:
      accumulate(spec, state, physical, 0, 0, argument.data<StringRef>()[row].view());
      break;
    default:
      accumulate(spec, state, physical, integerAt(argument, row), 0, {});
      break;
  }
}

void mergeInto(HashAggregation::Accumulator& target, HashAggregation::Accumulator& source, PhysicalType physical) {
  target.count += source.count;
  if (source.overflow || __builtin_add_overflow(target.integerSum, source.integerSum, &target.integerSum)) {
    target.overflow = true;
  }
  target.doubleSum += source.doubleSum;
  if (source.hasExtremes) {
    bool first = !target.hasExtremes;
    if (physical == PhysicalType::kDouble) {
      auto less = [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; };
      if (first || less(source.doubleMin, target.doubleMin)) target.doubleMin = source.doubleMin;
      if (first || less(target.doubleMax, source.doubleMax)) target.doubleMax = source.doubleMax;
    } else if (physical == PhysicalType::kString) {
      if (first || source.textMin < target.textMin) target.textMin = std::move(source.textMin);
      if (first || source.textMax > target.textMax) target.textMax = std::move(source.textMax);
    } else {
      if (first || source.integerMin < target.integerMin) target.integerMin = source.integerMin;
      if (first || source.integerMax > target.integerMax) target.integerMax = source.integerMax;
    }
    target.hasExtremes = true;
  }
  if (source.distinct) {
    if (!target.distinct) {
      target.distinct = std::move(source.distinct);
    } else {
      target.distinct->merge(*source.distinct);
    }
  }
}

Value extremeValue(const HashAggregation::Accumulator& state, const LogicalType& type, bool minimum) {
  if (!state.hasExtremes) return Value::null(type);
  switch (type.physicalType()) {
    case PhysicalType::kBool:
      return Value::boolean((minimum ? state.integerMin : state.integerMax) != 0);
    case PhysicalType::kInt32: {
      auto value = static_cast<int32_t>(minimum ? state.integerMin : state.integerMax);
      return type.id() == TypeId::kDate ? Value::date(value) : Value::integer(value);
    }
    case PhysicalType::kInt64: {
      auto value = static_cast<int64_t>(minimum ? state.integerMin : state.integerMax);
      return type.id() == TypeId::kDecimal ? Value::decimal(type, value) : Value::bigInt(value);
    }
    case PhysicalType::kInt128:
      return Value::decimal(type, minimum ? state.integerMin : state.integerMax);
    case PhysicalType::kDouble:
      return Value::doublePrecision(minimum ? state.doubleMin : state.doubleMax);
    case PhysicalType::kString:
      return Value::varchar(minimum ? state.textMin : state.textMax, type);
  }
  return Value::null(type);
}

/// Aggregates a DISTINCT accumulator's kept values as if they were the input.
HashAggregation::Accumulator undistinct(const GroupedAggregate& spec, const HashAggregation::Accumulator& state) {
  HashAggregation::Accumulator plain;
  if (!state.distinct) return plain;
  PhysicalType physical = spec.argumentType.physicalType();
  for (const std::string& bytes : *state.distinct) {
    const char* value = bytes.data() + 1;  // after the NULL flag (always 1: NULLs are not kept)
    switch (physical) {
      case PhysicalType::kBool: {
        uint8_t v;
        std::memcpy(&v, value, sizeof(v));
        accumulate(spec, plain, physical, v, 0, {});
        break;
      }
      case PhysicalType::kInt32: {
        int64_t v;  // key bytes widen INTEGER to 64 bits
        std::memcpy(&v, value, sizeof(v));
        accumulate(spec, plain, physical, v, 0, {});
        break;
      }
      case PhysicalType::kInt64: {
        int64_t v;
        std::memcpy(&v, value, sizeof(v));
        accumulate(spec, plain, physical, v, 0, {});
        break;
      }
      case PhysicalType::kInt128: {
        __int128 v;
        std::memcpy(&v, value, sizeof(v));
        accumulate(spec, plain, physical, v, 0, {});
        break;
      }
      case PhysicalType::kDouble: {
        double v;
        std::memcpy(&v, value, sizeof(v));
        accumulate(spec, plain, physical, 0, v, {});
        break;
      }
      case PhysicalType::kString:
        accumulate(spec, plain, physical, 0, 0, std::string_view(value + sizeof(uint32_t), bytes.size() - 5));
        break;
    }
  }
  return plain;
}

Value finalValue(const GroupedAggregate& spec, const HashAggregation::Accumulator& accumulated) {
  const HashAggregation::Accumulator& state = accumulated;
  HashAggregation::Accumulator fromDistinct;
  const HashAggregation::Accumulator* source = &state;
  if (spec.distinct) {
    fromDistinct = undistinct(spec, state);
    source = &fromDistinct;
  }
  ScalarAggregate finisher(spec.function, spec.argumentType, spec.resultType);
  LogicalType extremeType = spec.function == AggregateFunction::kCountStar ? LogicalType::bigInt() : spec.argumentType;
  finisher.mergeState(source->count, source->integerSum, source->overflow, source->doubleSum,
                      extremeValue(*source, extremeType, true), extremeValue(*source, extremeType, false));
  return finisher.finalize();
}

}  // namespace

class HashAggregationSink final : public ChunkSink {
 public:
  explicit HashAggregationSink(HashAggregation& aggregation) : aggregation_(aggregation) {}

  std::unique_ptr<LocalSinkState> makeLocalState() const override { return std::make_unique<Table>(); }

  void consume(Chunk& chunk, LocalSinkState& state) const override {
    auto& table = static_cast<Table&>(state);
    const size_t numKeys = aggregation_.keyTypes_.size();
    const size_t numAggregates = aggregation_.aggregates_.size();
    std::string key;
    std::string buffer;
    std::hash<std::string> hash;
    for (size_t row = 0; row < chunk.size(); ++row) {
      key.clear();
      for (size_t column = 0; column < numKeys; ++column) appendValue(chunk.column(column), row, key);
      auto& groups = table.partitions[hash(key) % HashAggregation::kPartitions];
      auto [found, inserted] = groups.index.try_emplace(key, static_cast<uint32_t>(groups.keys.size()));
      if (inserted) {
        std::vector<Value> values;
        for (size_t column = 0; column < numKeys; ++column) values.push_back(chunk.column(column).getValue(row));
        groups.keys.push_back(std::move(values));
        groups.accumulators.resize(groups.accumulators.size() + numAggregates);
      }
      HashAggregation::Accumulator* accumulators = &groups.accumulators[found->second * numAggregates];
      for (size_t i = 0; i < numAggregates; ++i) {
        updateRow(aggregation_.aggregates_[i], accumulators[i], chunk, row, buffer);
      }
    }
  }

  void combine(LocalSinkState& state) override {
    // The threads' tables are merged partition by partition in the source, in parallel.
    aggregation_.tables_.push_back(std::make_unique<Table>(std::move(static_cast<Table&>(state))));
  }

 private:
  HashAggregation& aggregation_;
};

class HashAggregationSource final : public ChunkSource {
 public:
  explicit HashAggregationSource(HashAggregation& aggregation) : aggregation_(aggregation) {}

  size_t numMorsels() const override {
    // Without keys every row is in one group: one morsel sees them all, and answers even for no rows.
    return aggregation_.keyTypes_.empty() ? 1 : HashAggregation::kPartitions;
  }

  void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const override {
    const size_t numKeys = aggregation_.keyTypes_.size();
    const size_t numAggregates = aggregation_.aggregates_.size();
    HashAggregation::Groups merged;
    std::vector<size_t> partitions;
    if (numKeys == 0) {
      for (size_t p = 0; p < HashAggregation::kPartitions; ++p) partitions.push_back(p);
    } else {
      partitions.push_back(morsel);
    }
    for (auto& local : aggregation_.tables_) {
      for (size_t p : partitions) {
        auto& groups = static_cast<Table&>(*local).partitions[p];
        for (auto& [key, index] : groups.index) {
          auto [found, inserted] = merged.index.try_emplace(key, static_cast<uint32_t>(merged.keys.size()));
          if (inserted) {
            merged.keys.push_back(std::move(groups.keys[index]));
            merged.accumulators.resize(merged.accumulators.size() + numAggregates);
          }
          for (size_t i = 0; i < numAggregates; ++i) {
            const auto& spec = aggregation_.aggregates_[i];
            PhysicalType physical = spec.function == AggregateFunction::kCountStar ? PhysicalType::kInt64
                                                                                   : spec.argumentType.physicalType();
            mergeInto(merged.accumulators[found->second * numAggregates + i],
                      groups.accumulators[index * numAggregates + i], physical);
          }
        }
      }
    }
    if (numKeys == 0 && merged.keys.empty()) {
      merged.keys.emplace_back();
      merged.accumulators.resize(numAggregates);
    }
    std::vector<LogicalType> types = aggregation_.outputTypes();
    for (size_t begin = 0; begin < merged.keys.size(); begin += kVectorSize) {
      size_t rows = std::min(kVectorSize, merged.keys.size() - begin);
      Chunk chunk(rows);
      for (size_t column = 0; column < types.size(); ++column) {
        Vector vector(types[column], rows);
        for (size_t row = 0; row < rows; ++row) {
          size_t group = begin + row;
          if (column < numKeys) {
            vector.setValue(row, merged.keys[group][column]);
          } else {
            size_t i = column - numKeys;
            vector.setValue(row,
                            finalValue(aggregation_.aggregates_[i], merged.accumulators[group * numAggregates + i]));
          }
        }
        chunk.addColumn(std::move(vector));
      }
      consume(chunk);
    }
  }

 private:
  HashAggregation& aggregation_;
};

HashAggregation::HashAggregation(std::vector<LogicalType> keyTypes, std::vector<GroupedAggregate> aggregates)
    : keyTypes_(std::move(keyTypes)), aggregates_(std::move(aggregates)) {}

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
