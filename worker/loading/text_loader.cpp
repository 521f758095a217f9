#include "worker/loading/text_loader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "common/count_newlines.h"
#include "common/status.h"
#include "proto/plan_codec.h"

namespace shoal::worker {
namespace {

std::vector<engine::LogicalType> columnTypesOf(const proto::TableLayout& layout) {
  std::vector<engine::LogicalType> types;
  for (const auto& column : layout.columns()) types.push_back(proto::decodeType(column.type()));
  return types;
}

std::vector<std::string> columnNamesOf(const proto::TableLayout& layout) {
  std::vector<std::string> names;
  for (const auto& column : layout.columns()) names.push_back(column.name());
  return names;
}

// Bytes per range a thread parses at a time.
constexpr size_t kRangeBytes = 8 << 20;

/// A read-only memory map of a whole file.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) : path_(path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) SHOAL_USER_FAIL(SqlState::kUndefinedFile, "could not open {}: {}", path, strerror(errno));
    struct stat info {};
    ::fstat(fd, &info);
    size_ = static_cast<size_t>(info.st_size);
    if (size_ > 0) {
      data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (data_ == MAP_FAILED) {
        ::close(fd);
        SHOAL_USER_FAIL(SqlState::kIoError, "could not map {}: {}", path, strerror(errno));
      }
      ::madvise(data_, size_, MADV_SEQUENTIAL);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_ && data_ != MAP_FAILED) ::munmap(data_, size_);
  }
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  std::string path_;
  void* data_ = nullptr;
  size_t size_ = 0;
};

struct Range {
  size_t file;
  std::string_view bytes;
  uint64_t firstLine;
};

}  // namespace

TextLoader::TextLoader(uint64_t loadId, const proto::TableLayout& layout, TextFormatOptions format,
                       std::string sourceName, const std::string& selfAddress, StorageManager& storage,
                       PeerChannels& peers)
    : layout_(layout),
      parser_(columnTypesOf(layout), columnNamesOf(layout), format, std::move(sourceName)),
      router_(loadId, layout_, selfAddress, storage, peers) {}

void TextLoader::load(std::string_view block, uint64_t firstLineNumber) {
  chunks_.clear();
  parser_.parse(block, firstLineNumber, chunks_);
  for (auto& chunk : chunks_) {
    rows_ += chunk.size();
    router_.route(std::move(chunk));
  }
}

uint64_t loadTblFilesInParallel(uint64_t loadId, const std::vector<std::pair<proto::TableLayout, std::string>>& files,
                                size_t numThreads, const std::string& selfAddress, StorageManager& storage,
                                PeerChannels& peers) {
  std::vector<std::unique_ptr<MappedFile>> mapped;
  for (const auto& [layout, path] : files) mapped.push_back(std::make_unique<MappedFile>(path));
  // Cut every file into ranges of whole lines, largest files first.
  std::vector<size_t> order(files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return mapped[a]->bytes().size() > mapped[b]->bytes().size(); });
  std::vector<Range> ranges;
  for (size_t file : order) {
    std::string_view bytes = mapped[file]->bytes();
    uint64_t line = 1;
    while (!bytes.empty()) {
      size_t cut = bytes.size();
      if (cut > kRangeBytes) {
        size_t newline = bytes.find('\n', kRangeBytes);
        cut = newline == std::string_view::npos ? bytes.size() : newline + 1;
      }
      std::string_view range = bytes.substr(0, cut);
      ranges.push_back(Range{file, range, line});
      line += countNewlines(range);
      bytes.remove_prefix(cut);
    }
  }

  TextFormatOptions format;
  format.format = TextFileFormat::kTbl;
  std::mutex mutex;
  size_t nextRange = 0;
  uint64_t rows = 0;
  std::optional<Status> firstError;
  auto work = [&] {
    std::map<size_t, std::unique_ptr<TextLoader>> loaders;  // by file
    try {
      while (true) {
        Range range;
        {
          std::lock_guard lock(mutex);
          if (nextRange == ranges.size() || firstError) break;
          range = ranges[nextRange++];
        }
        auto& loader = loaders[range.file];
        if (!loader) {
          loader = std::make_unique<TextLoader>(loadId, files[range.file].first, format,
                                                "'" + files[range.file].second + "'", selfAddress, storage, peers);
        }
        loader->load(range.bytes, range.firstLine);
      }
      uint64_t loaded = 0;
      for (auto& [file, loader] : loaders) {
        loader->finish();
        loaded += loader->rows();
      }
      std::lock_guard lock(mutex);
      rows += loaded;
    } catch (const ShoalError& error) {
      std::lock_guard lock(mutex);
      if (!firstError) firstError = error.status();
    }
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < numThreads; ++i) threads.emplace_back(work);
  work();
  for (auto& thread : threads) thread.join();
  if (firstError) throw ShoalError(*firstError);
  return rows;
}

}  // namespace shoal::worker
