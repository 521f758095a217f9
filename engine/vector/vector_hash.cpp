#include "engine/vector/vector_hash.h"

#include <cmath>
#include <cstring>

#include "engine/types/interval.h"

namespace shoal::engine {

namespace {

constexpr uint64_t kNullHash = 0x5bd1e9955bd1e995ULL;

inline uint64_t fold(uint64_t seed, uint64_t hash) {
  return mixHash(seed * 0x9e3779b97f4a7c15ULL + hash);
}

template <class T, class HashOf>
void hashTyped(const Vector& vector, size_t firstRow, size_t numRows, uint64_t* hashes, bool combine, HashOf hashOf) {
  const T* values = vector.data<T>() + firstRow;
  const bool allValid = vector.validity().allValid(firstRow + numRows);
  for (size_t i = 0; i < numRows; ++i) {
    uint64_t hash = (allValid || !vector.isNull(firstRow + i)) ? hashOf(values[i]) : kNullHash;
    hashes[i] = combine ? fold(hashes[i], hash) : hash;
  }
}

}  // namespace

uint64_t hashBytes(const char* data, size_t size) {
  // 8 bytes at a time through the mixer; the length seeds it so that prefixes differ.
  uint64_t hash = mixHash(size ^ 0x27d4eb2f165667c5ULL);
  while (size >= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);
    hash = fold(hash, word);
    data += 8;
    size -= 8;
  }
  if (size > 0) {
    uint64_t word = 0;
    std::memcpy(&word, data, size);
    hash = fold(hash, word);
  }
  return hash;
}

void hashVector(const Vector& vector, size_t firstRow, size_t numRows, uint64_t* hashes, bool combine) {
  switch (vector.type().physicalType()) {
    case PhysicalType::kBool:
      hashTyped<uint8_t>(vector, firstRow, numRows, hashes, combine, [](uint8_t v) { return mixHash(v); });
      break;
    case PhysicalType::kInt32:
      hashTyped<int32_t>(vector, firstRow, numRows, hashes, combine,
                         [](int32_t v) { return mixHash(static_cast<uint64_t>(static_cast<int64_t>(v))); });
      break;
    case PhysicalType::kInt64:
      hashTyped<int64_t>(vector, firstRow, numRows, hashes, combine,
                         [](int64_t v) { return mixHash(static_cast<uint64_t>(v)); });
      break;
    case PhysicalType::kInt128: {
      auto hashWide = [](__int128 v) {
        auto bits = static_cast<unsigned __int128>(v);
        return fold(mixHash(static_cast<uint64_t>(bits)), static_cast<uint64_t>(bits >> 64));
      };
      if (vector.type().id() == TypeId::kInterval) {
        // Equal intervals ('1 mon', '30 days') hash alike: by their span.
        hashTyped<__int128>(vector, firstRow, numRows, hashes, combine,
                            [&](__int128 v) { return hashWide(intervalSpan(v)); });
      } else {
        hashTyped<__int128>(vector, firstRow, numRows, hashes, combine, hashWide);
      }
      break;
    }
    case PhysicalType::kDouble:
      hashTyped<double>(vector, firstRow, numRows, hashes, combine, [](double v) {
        if (v == 0) v = 0;                    // -0.0 is 0.0
        if (std::isnan(v)) v = std::nan("");  // every NaN alike
        uint64_t bits;
        std::memcpy(&bits, &v, sizeof(bits));
        return mixHash(bits);
      });
      break;
    case PhysicalType::kString:
      hashTyped<StringRef>(vector, firstRow, numRows, hashes, combine, [](const StringRef& v) {
        if (v.isInline()) {
          // Equal strings of up to 12 bytes have equal (zero-padded) handles: hash the handle itself.
          uint64_t low;
          uint64_t high;
          v.inlineWords(low, high);
          return fold(mixHash(low), high);
        }
        std::string_view text = v.view();
        return hashBytes(text.data(), text.size());
      });
      break;
  }
}

}  // namespace shoal::engine
