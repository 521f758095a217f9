#include "common/host_memory.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

namespace shoal {
namespace {

/// A cgroup limit file's number; 0 for "max", a missing file or nonsense.
uint64_t cgroupLimit(const char* path) {
  std::ifstream file(path);
  std::string text;
  if (!(file >> text) || text.empty() || text == "max") return 0;
  try {
    return std::stoull(text);
  } catch (...) {
    return 0;
  }
}

}  // namespace

uint64_t usableHostMemoryBytes() {
  const uint64_t physical =
      static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  uint64_t usable = physical;
  for (const char* path : {"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}) {
    const uint64_t limit = cgroupLimit(path);
    // v1 reports "no limit" as a huge number: only a limit below the physical memory counts.
    if (limit != 0 && limit < usable) usable = limit;
  }
  return usable;
}

uint64_t residentMemoryBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0;
  uint64_t resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

HeapUse heapUse() {
  const struct mallinfo2 info = ::mallinfo2();
  return HeapUse{info.uordblks + info.hblkhd, info.fordblks};
}

void returnFreedMemory() {
  ::malloc_trim(0);
}

}  // namespace shoal
