#include "engine/aggregate/quantile_sketch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/status.h"

namespace shoal::engine {

namespace {

const double kGamma = (1 + QuantileSketch::kRelativeAccuracy) / (1 - QuantileSketch::kRelativeAccuracy);
const double kLogGamma = std::log(kGamma);

int32_t bucketOf(double magnitude) {
  return static_cast<int32_t>(std::ceil(std::log(magnitude) / kLogGamma));
}

/// The value every magnitude of bucket `index`, (gamma^(index-1), gamma^index], is within the accuracy of.
double representativeOf(int32_t index) {
  return 2 * std::pow(kGamma, index) / (kGamma + 1);
}

template <class T>
void append(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

/// Reads the encoded state front to back; fails with XX001 past its end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <class T>
  T take() {
    if (bytes_.size() - position_ < sizeof(T)) corrupted();
    T value;
    std::memcpy(&value, bytes_.data() + position_, sizeof(T));
    position_ += sizeof(T);
    return value;
  }
  bool done() const { return position_ == bytes_.size(); }
  [[noreturn]] void corrupted() const {
    SHOAL_USER_FAIL(SqlState::kDataCorrupted, "corrupted approx_percentile state of {} bytes", bytes_.size());
  }

 private:
  std::string_view bytes_;
  size_t position_ = 0;
};

}  // namespace

void QuantileSketch::Store::add(int32_t index, uint64_t count) {
  if (counts.empty()) {
    offset = index;
    counts.assign(1, count);
    return;
  }
  const int32_t high = std::max(offset + static_cast<int32_t>(counts.size()) - 1, index);
  int32_t low = std::min(offset, index);
  if (high - low + 1 > static_cast<int32_t>(kMaxBuckets)) low = high - static_cast<int32_t>(kMaxBuckets) + 1;
  if (low != offset || high != offset + static_cast<int32_t>(counts.size()) - 1) {
    // Widen to [low, high]; buckets below low (the smallest magnitudes) collapse into it.
    std::vector<uint64_t> widened(static_cast<size_t>(high - low + 1));
    for (size_t i = 0; i < counts.size(); ++i) {
      widened[static_cast<size_t>(std::max(offset + static_cast<int32_t>(i), low) - low)] += counts[i];
    }
    counts = std::move(widened);
    offset = low;
  }
  counts[static_cast<size_t>(std::max(index, low) - low)] += count;
}

void QuantileSketch::Store::merge(const Store& other) {
  if (other.counts.empty()) return;
  // Reach both ends first, so that the adds below never widen the store again.
  add(other.offset, 0);
  add(other.offset + static_cast<int32_t>(other.counts.size()) - 1, 0);
  for (size_t i = 0; i < other.counts.size(); ++i) {
    if (other.counts[i] != 0) add(other.offset + static_cast<int32_t>(i), other.counts[i]);
  }
}

void QuantileSketch::add(double value) {
  ++count_;
  if (std::isnan(value)) {
    ++nans_;
    return;
  }
  if (std::isinf(value)) {
    ++(value > 0 ? positiveInfinities_ : negativeInfinities_);
    return;
  }
  min_ = hasFinite_ ? std::min(min_, value) : value;
  max_ = hasFinite_ ? std::max(max_, value) : value;
  hasFinite_ = true;
  if (value == 0) {
    ++zeros_;
  } else if (value > 0) {
    positive_.add(bucketOf(value), 1);
  } else {
    negative_.add(bucketOf(-value), 1);
  }
}

void QuantileSketch::merge(const QuantileSketch& other) {
  positive_.merge(other.positive_);
  negative_.merge(other.negative_);
  zeros_ += other.zeros_;
  negativeInfinities_ += other.negativeInfinities_;
  positiveInfinities_ += other.positiveInfinities_;
  nans_ += other.nans_;
  count_ += other.count_;
  if (other.hasFinite_) {
    min_ = hasFinite_ ? std::min(min_, other.min_) : other.min_;
    max_ = hasFinite_ ? std::max(max_, other.max_) : other.max_;
    hasFinite_ = true;
  }
}

std::optional<double> QuantileSketch::quantile(double fraction) const {
  if (count_ == 0) return std::nullopt;
  // percentile_disc's row: the first whose position reaches fraction * n (at least the first).
  const auto target = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(fraction * static_cast<double>(count_))));
  uint64_t seen = negativeInfinities_;
  if (seen >= target) return -std::numeric_limits<double>::infinity();
  auto clamp = [&](double value) { return std::clamp(value, min_, max_); };
  for (size_t i = negative_.counts.size(); i-- > 0;) {
    seen += negative_.counts[i];
    if (seen >= target) return clamp(-representativeOf(negative_.offset + static_cast<int32_t>(i)));
  }
  seen += zeros_;
  if (seen >= target) return 0.0;
  for (size_t i = 0; i < positive_.counts.size(); ++i) {
    seen += positive_.counts[i];
    if (seen >= target) return clamp(representativeOf(positive_.offset + static_cast<int32_t>(i)));
  }
  seen += positiveInfinities_;
  if (seen >= target) return std::numeric_limits<double>::infinity();
  return std::numeric_limits<double>::quiet_NaN();
}

std::string QuantileSketch::encode() const {
  std::string out;
  for (uint64_t counter : {count_, zeros_, negativeInfinities_, positiveInfinities_, nans_}) append(out, counter);
  append(out, min_);
  append(out, max_);
  append(out, static_cast<uint8_t>(hasFinite_));
  for (const Store* store : {&positive_, &negative_}) {
    append(out, store->offset);
    append(out, static_cast<uint32_t>(store->counts.size()));
    out.append(reinterpret_cast<const char*>(store->counts.data()), store->counts.size() * sizeof(uint64_t));
  }
  return out;
}

QuantileSketch QuantileSketch::decode(std::string_view bytes) {
  Reader reader(bytes);
  QuantileSketch sketch;
  for (uint64_t* counter :
       {&sketch.count_, &sketch.zeros_, &sketch.negativeInfinities_, &sketch.positiveInfinities_, &sketch.nans_}) {
    *counter = reader.take<uint64_t>();
  }
  sketch.min_ = reader.take<double>();
  sketch.max_ = reader.take<double>();
  sketch.hasFinite_ = reader.take<uint8_t>() != 0;
  for (Store* store : {&sketch.positive_, &sketch.negative_}) {
    store->offset = reader.take<int32_t>();
    const auto size = reader.take<uint32_t>();
    if (size > kMaxBuckets) reader.corrupted();
    store->counts.resize(size);
    for (uint64_t& count : store->counts) count = reader.take<uint64_t>();
  }
  if (!reader.done()) reader.corrupted();
  return sketch;
}

}  // namespace shoal::engine
