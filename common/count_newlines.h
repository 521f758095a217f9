#pragma once

#include <immintrin.h>

#include <cstdint>
#include <string_view>

namespace shoal {

/// '\n' bytes in `text`, 32 at a time: cutting a file into blocks must know each block's first line number.
inline uint64_t countNewlines(std::string_view text) {
  const char* p = text.data();
  const char* end = p + text.size();
  uint64_t count = 0;
  const __m256i newline = _mm256_set1_epi8('\n');
  for (; end - p >= 32; p += 32) {
    __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    count += static_cast<uint64_t>(
        __builtin_popcount(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(bytes, newline)))));
  }
  for (; p != end; ++p) count += *p == '\n';
  return count;
}

}  // namespace shoal
