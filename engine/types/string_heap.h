#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "engine/types/string_ref.h"

namespace shoal::engine {

/// An append-only arena for the out-of-line bytes of long strings. Everything
/// it hands out lives as long as the heap. Not thread-safe: one owner.
class StringHeap {
 public:
  /// Returns a handle to a copy of `text` (inline when short, so no heap bytes).
  StringRef add(std::string_view text);
  /// Bytes held in blocks, for memory accounting.
  size_t allocatedBytes() const { return allocatedBytes_; }

 private:
  // 64 KiB blocks amortize allocation; larger strings get a block of their own.
  static constexpr size_t kBlockBytes = 64 * 1024;

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* cursor_ = nullptr;
  size_t remaining_ = 0;
  size_t allocatedBytes_ = 0;
};

}  // namespace shoal::engine
