#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/aggregate/hyper_log_log.h"

namespace shoal::engine {

/// The state of approx_count_distinct(x) for one group: the 64-bit hashes of its values (vector_hash.h),
/// kept exactly while there are at most kExactLimit distinct ones, then folded into a HyperLogLog of the
/// default precision (0.81 % standard error, 16 KiB).
///
/// Small groups therefore cost little memory and count exactly (up to hash collisions), and the result
/// depends only on the set of distinct hashes: the same whichever node added which value, in whatever
/// order, and however the partial states were merged. A sketch is exact iff the union has at most
/// kExactLimit hashes, and the registers of a union do not depend on the order of the adds.
class DistinctSketch {
 public:
  static constexpr size_t kExactLimit = 512;

  void add(uint64_t hash) {
    if (dense_) return dense_->add(hash);
    hashes_.push_back(hash);
    if (hashes_.size() >= 2 * kExactLimit) compact();
  }
  /// Folds in another group's sketch.
  void merge(const DistinctSketch& other);
  /// The estimated number of distinct values: exact while the sketch is, else HyperLogLog's estimate rounded.
  int64_t estimate() const;

  /// A partial state as it travels between the phases of a distributed aggregation.
  std::string encode() const;
  /// Decodes a partial state; fails with XX001 on malformed bytes.
  static DistinctSketch decode(std::string_view bytes);

 private:
  /// Sorts and deduplicates the exact hashes, and switches to the HyperLogLog when too many remain.
  void compact();

  std::vector<uint64_t> hashes_;  // exact mode: the hashes seen, deduplicated by compact()
  std::unique_ptr<HyperLogLog> dense_;
};

}  // namespace shoal::engine
