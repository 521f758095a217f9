#include "engine/types/string_heap.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace shoal::engine {

StringRef StringHeap::add(std::string_view text) {
  if (text.size() <= StringRef::kInlineBytes) {
    return StringRef(text);
  }
  if (text.size() > remaining_) {
    size_t blockBytes = std::max(kBlockBytes, text.size());
    // Every byte handed out is written first: no need to zero the block.
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(blockBytes));
    cursor_ = blocks_.back().get();
    remaining_ = blockBytes;
    allocatedBytes_ += blockBytes;
  }
  std::memcpy(cursor_, text.data(), text.size());
  StringRef ref(std::string_view(cursor_, text.size()));
  cursor_ += text.size();
  remaining_ -= text.size();
  return ref;
}

}  // namespace shoal::engine
