#include "worker/loading/generated_table_loader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "common/count_newlines.h"
#include "common/status.h"
#include "worker/loading/text_loader.h"

namespace shoal::worker {
namespace {

// Blocks are cut at the first line end after this many bytes: big enough to amortize a parse call, small
// enough to spread a table over every thread.
constexpr size_t kBlockBytes = 4 << 20;
// How long a reader waits before looking again at a file the generator has not written further yet.
constexpr auto kPollInterval = std::chrono::milliseconds(2);

struct Block {
  size_t table = 0;
  std::string bytes;
  uint64_t firstLine = 1;
};

/// Blocks from the readers to the parsing threads, bounded so that a slow parser holds back the readers
/// rather than memory growing.
class BlockQueue {
 public:
  BlockQueue(size_t capacity, size_t numProducers) : capacity_(capacity), producers_(numProducers) {}

  /// False when the load has failed and nothing more is wanted.
  bool push(Block block) {
    std::unique_lock lock(mutex_);
    notFull_.wait(lock, [&] { return failed_ || blocks_.size() < capacity_; });
    if (failed_) return false;
    blocks_.push_back(std::move(block));
    notEmpty_.notify_one();
    return true;
  }
  /// The next block; nullopt once every producer is done and the queue is empty, or the load failed.
  std::optional<Block> pop() {
    std::unique_lock lock(mutex_);
    notEmpty_.wait(lock, [&] { return failed_ || !blocks_.empty() || producers_ == 0; });
    if (failed_ || blocks_.empty()) return std::nullopt;
    Block block = std::move(blocks_.front());
    blocks_.pop_front();
    notFull_.notify_one();
    return block;
  }
  void producerDone() {
    std::lock_guard lock(mutex_);
    --producers_;
    notEmpty_.notify_all();
  }
  /// Records the first error and wakes everyone.
  void fail(const Status& error) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = error;
    failed_ = true;
    notEmpty_.notify_all();
    notFull_.notify_all();
  }
  bool failed() {
    std::lock_guard lock(mutex_);
    return failed_;
  }
  std::optional<Status> error() {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  const size_t capacity_;
  std::mutex mutex_;
  std::condition_variable notEmpty_;
  std::condition_variable notFull_;
  std::deque<Block> blocks_;
  size_t producers_;
  bool failed_ = false;
  std::optional<Status> error_;
};

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::optional<off_t> sizeOf(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  return info.st_size;
}

/// Follows one table's file while the generator writes it, pushing blocks of whole lines.
void followTable(size_t table, const std::filesystem::path& path, TpchGeneratorProcess& generator, BlockQueue& queue) {
  const std::filesystem::path inProgress = path.string() + ".inprogress";
  int fd = -1;
  while (fd < 0) {
    if (queue.failed()) return;
    fd = ::open(inProgress.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // already complete (and renamed)
    if (fd >= 0) break;
    if (generator.exited()) {
      generator.wait();  // throws when it failed
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) return;  // this part has no such table
      break;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  FileDescriptor file(fd);
  std::string pending;
  off_t offset = 0;
  uint64_t nextLine = 1;
  auto pushWholeLines = [&](bool all) {
    size_t cut = all ? pending.size() : endOfLastCompleteLine(pending, TextFormatOptions{});
    if (cut == 0) return true;
    // The block takes the buffer itself; only the partial line after the cut is copied.
    std::string rest(pending, cut);
    Block block{table, std::move(pending), nextLine};
    block.bytes.resize(cut);
    pending = std::move(rest);
    nextLine += countNewlines(block.bytes);
    return queue.push(std::move(block));
  };
  std::string buffer(kBlockBytes, '\0');
  while (true) {
    ssize_t n = ::pread(file.get(), buffer.data(), buffer.size(), offset);
    if (n < 0) {
      if (errno == EINTR) continue;
      SHOAL_USER_FAIL(SqlState::kIoError, "could not read {}: {}", inProgress.string(), strerror(errno));
    }
    if (n > 0) {
      offset += n;
      pending.append(buffer.data(), static_cast<size_t>(n));
      if (pending.size() >= kBlockBytes && !pushWholeLines(false)) return;
      continue;
    }
    // At the end of what is written so far: done once the file has its final name and we read all of it.
    if (auto size = sizeOf(path); size && *size == offset) break;
    if (generator.exited()) {
      generator.wait();
      if (auto size = sizeOf(path); size && *size == offset) break;
      SHOAL_USER_FAIL(SqlState::kIoError, "the TPC-H generator exited before finishing {}", path.string());
    }
    if (queue.failed()) return;
    // Let the parsers work on what is here while the generator writes more.
    if (pending.size() >= kBlockBytes / 4 && !pushWholeLines(false)) return;
    std::this_thread::sleep_for(kPollInterval);
  }
  if (!pending.empty()) pushWholeLines(true);
}

}  // namespace

uint64_t loadGeneratedTables(uint64_t loadId, const std::vector<proto::TableLayout>& layouts,
                             TpchGeneratorProcess& generator, size_t numThreads, const std::string& selfAddress,
                             StorageManager& storage, PeerChannels& peers) {
  BlockQueue queue(2 * numThreads + 2, layouts.size());
  std::vector<std::thread> readers;
  for (size_t table = 0; table < layouts.size(); ++table) {
    readers.emplace_back([&, table] {
      try {
        followTable(table, generator.outputPath(layouts[table].table_name()), generator, queue);
      } catch (const ShoalError& error) {
        queue.fail(error.status());
      }
      queue.producerDone();
    });
  }
  std::mutex mutex;
  uint64_t rows = 0;
  TextFormatOptions format;
  format.format = TextFileFormat::kTbl;
  auto parse = [&] {
    std::map<size_t, std::unique_ptr<TextLoader>> loaders;  // by table
    try {
      while (auto block = queue.pop()) {
        auto& loader = loaders[block->table];
        if (!loader) {
          const auto& layout = layouts[block->table];
          loader = std::make_unique<TextLoader>(loadId, layout, format,
                                                "'" + generator.outputPath(layout.table_name()).string() + "'",
                                                selfAddress, storage, peers);
        }
        loader->load(block->bytes, block->firstLine);
      }
      uint64_t loaded = 0;
      for (auto& [table, loader] : loaders) {
        loader->finish();
        loaded += loader->rows();
      }
      std::lock_guard lock(mutex);
      rows += loaded;
    } catch (const ShoalError& error) {
      queue.fail(error.status());
    }
  };
  std::vector<std::thread> parsers;
  for (size_t i = 1; i < numThreads; ++i) parsers.emplace_back(parse);
  parse();
  for (auto& thread : parsers) thread.join();
  for (auto& thread : readers) thread.join();
  if (auto error = queue.error()) throw ShoalError(*error);
  generator.wait();
  return rows;
}

}  // namespace shoal::worker
