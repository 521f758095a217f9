#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "engine/types/interval.h"
#include "engine/types/value.h"
#include "engine/vector/vector.h"

namespace shoal::engine {

/// The constants of a long IN list as a hash set, probed once per row: `x IN (c1, ..., c20000)` costs one
/// lookup a row where the chain of ORs it replaces cost one comparison per constant. Equality is
/// PostgreSQL's for the element type: bytes for strings (the C collation), the stored integer for integers,
/// dates, timestamps and decimals (of the one type the binder gave them), and for double precision
/// NaN equal to NaN and -0 equal to 0. Immutable once built, so threads share one.
class InSet {
 public:
  /// `elements` are of `type`, NULLs included.
  InSet(const std::vector<Value>& elements, const LogicalType& type);

  /// value IN (...) per row: TRUE when the set holds the value; else NULL when the value is NULL or the list
  /// held a NULL; else FALSE.
  Vector probe(const Vector& values) const;

  /// Whether an IN list of `type` can become an InSet.
  static bool supports(const LogicalType& type);

 private:
  struct Int128Hash {
    size_t operator()(__int128 value) const {
      const auto bits = static_cast<unsigned __int128>(value);
      return std::hash<uint64_t>()(static_cast<uint64_t>(bits) ^
                                   (static_cast<uint64_t>(bits >> 64) * 0x9E3779B97F4A7C15ULL));
    }
  };

  static uint64_t doubleKey(double value);
  /// An int128 value as the set keeps it: an interval by its span ('1 mon' = '30 days').
  __int128 wideKey(__int128 value) const { return interval_ ? intervalSpan(value) : value; }

  PhysicalType physical_;
  bool interval_;
  bool holdsNull_ = false;
  /// The elements as a vector: the strings' bytes live in its heap.
  Vector elements_;
  std::unordered_set<int64_t> integers_;
  std::unordered_set<__int128, Int128Hash> wideIntegers_;
  std::unordered_set<uint64_t> doubles_;
  std::unordered_set<std::string_view> strings_;
};

}  // namespace shoal::engine
