#include "engine/aggregate/distinct_sketch.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/status.h"

namespace shoal::engine {

namespace {

constexpr char kExactTag = 'E';
constexpr char kDenseTag = 'H';

}  // namespace

void DistinctSketch::compact() {
  std::sort(hashes_.begin(), hashes_.end());
  hashes_.erase(std::unique(hashes_.begin(), hashes_.end()), hashes_.end());
  if (hashes_.size() <= kExactLimit) return;
  dense_ = std::make_unique<HyperLogLog>();
  for (uint64_t hash : hashes_) dense_->add(hash);
  hashes_ = {};
}

void DistinctSketch::merge(const DistinctSketch& other) {
  if (other.dense_) {
    if (!dense_) {
      dense_ = std::make_unique<HyperLogLog>(*other.dense_);
      for (uint64_t hash : hashes_) dense_->add(hash);
      hashes_ = {};
    } else {
      dense_->merge(*other.dense_);
    }
    return;
  }
  for (uint64_t hash : other.hashes_) add(hash);
}

int64_t DistinctSketch::estimate() const {
  if (dense_) return std::llround(dense_->estimate());
  std::vector<uint64_t> distinct = hashes_;
  std::sort(distinct.begin(), distinct.end());
  return std::unique(distinct.begin(), distinct.end()) - distinct.begin();
}

std::string DistinctSketch::encode() const {
  if (dense_) return kDenseTag + dense_->serialize();
  std::vector<uint64_t> distinct = hashes_;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::string bytes(1 + distinct.size() * sizeof(uint64_t), kExactTag);
  std::memcpy(bytes.data() + 1, distinct.data(), distinct.size() * sizeof(uint64_t));
  return bytes;
}

DistinctSketch DistinctSketch::decode(std::string_view bytes) {
  DistinctSketch sketch;
  if (!bytes.empty() && bytes[0] == kDenseTag) {
    sketch.dense_ = std::make_unique<HyperLogLog>(HyperLogLog::deserialize(bytes.substr(1)));
    return sketch;
  }
  if (bytes.empty() || bytes[0] != kExactTag || (bytes.size() - 1) % sizeof(uint64_t) != 0) {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "corrupted approx_count_distinct state of {} bytes", bytes.size());
  }
  sketch.hashes_.resize((bytes.size() - 1) / sizeof(uint64_t));
  std::memcpy(sketch.hashes_.data(), bytes.data() + 1, bytes.size() - 1);
  if (sketch.hashes_.size() > kExactLimit) sketch.compact();
  return sketch;
}

}  // namespace shoal::engine
