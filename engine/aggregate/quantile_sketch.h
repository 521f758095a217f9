#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shoal::engine {

/// The state of approx_percentile(x, fraction) for one group: a DDSketch (Masson, Rim and Lee, "DDSketch: a
/// fast and fully-mergeable quantile sketch with relative-error guarantees", VLDB 2019).
///
/// Each non-zero finite value falls into the bucket ceil(log_gamma |x|) of its sign, gamma = (1 + a) / (1 - a)
/// for the relative accuracy a = kRelativeAccuracy; a bucket's representative is within a of every value in
/// it. The answer is the representative of the bucket that holds the value percentile_disc would return (the
/// first whose cumulative count reaches ceil(fraction * n)), clamped to the group's minimum and maximum, so
/// it is within 1 % of that exact value. Zeros, infinities and NaN (above every number, as PostgreSQL sorts
/// it) are counted exactly.
///
/// Merging adds bucket counts, so the result does not depend on how the rows were split across nodes and
/// threads. Each sign keeps at most kMaxBuckets buckets; past that the smallest magnitudes are collapsed into
/// one: the largest kept magnitude is at most e^164 (about 10^71) times the smallest.
class QuantileSketch {
 public:
  static constexpr double kRelativeAccuracy = 0.01;
  static constexpr size_t kMaxBuckets = 8192;

  void add(double value);
  void merge(const QuantileSketch& other);
  /// The approximate percentile_disc(fraction) (fraction in [0, 1]); nullopt for an empty group.
  std::optional<double> quantile(double fraction) const;

  /// A partial state as it travels between the phases of a distributed aggregation.
  std::string encode() const;
  /// Decodes a partial state; fails with XX001 on malformed bytes.
  static QuantileSketch decode(std::string_view bytes);

 private:
  /// Counts per bucket index of one sign's magnitudes: counts[i] is bucket offset + i.
  struct Store {
    int32_t offset = 0;
    std::vector<uint64_t> counts;

    void add(int32_t index, uint64_t count);
    void merge(const Store& other);
  };

  Store positive_;
  Store negative_;  // by the magnitude's bucket
  uint64_t zeros_ = 0;
  uint64_t negativeInfinities_ = 0;
  uint64_t positiveInfinities_ = 0;
  uint64_t nans_ = 0;
  uint64_t count_ = 0;
  double min_ = 0;  // of the finite values (when any)
  double max_ = 0;
  bool hasFinite_ = false;
};

}  // namespace shoal::engine
