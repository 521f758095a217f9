#include "worker/loading/generated_table_loader.h"

#include <poll.h>
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

// A block is cut at the last line end within this many bytes: big enough to amortize a parse call, small
// enough to stay in cache between the read that fills it and the parse, and to spread a table over threads.
constexpr size_t kBlockBytes = 1 << 20;
// How often a reader waiting on a pipe the generator has not opened checks whether the generator exited (a
// part without nation and region never opens theirs).
constexpr int kExitCheckMillis = 20;

/// Whole lines of one table, in a buffer that goes back to the BufferPool once parsed.
struct Block {
  size_t table = 0;
  std::unique_ptr<char[]> buffer;
  size_t capacity = 0;
  size_t size = 0;
  uint64_t firstLine = 1;
};

/// Recycles block buffers: a load's gigabyte of text passes through the same few megabytes instead of a fresh
/// allocation, and page faults, per block.
class BufferPool {
 public:
  /// A buffer of at least `bytes`.
  std::pair<std::unique_ptr<char[]>, size_t> take(size_t bytes) {
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty() && free_.back().second >= bytes) {
        auto buffer = std::move(free_.back());
        free_.pop_back();
        return buffer;
      }
    }
    return {std::make_unique_for_overwrite<char[]>(bytes), bytes};
  }
  void give(std::unique_ptr<char[]> buffer, size_t capacity) {
    if (capacity != kBlockBytes) return;  // an oversized one, for a line longer than a block: let it go
    std::lock_guard lock(mutex_);
    free_.emplace_back(std::move(buffer), capacity);
  }

 private:
  std::mutex mutex_;
  std::vector<std::pair<std::unique_ptr<char[]>, size_t>> free_;
};

/// Blocks from the readers to the parsing threads, bounded so that a slow parser holds back the readers
/// (and through the pipes the generator) rather than memory growing.
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

/// Waits until `fd` has data, or its writer came and went (true), or the generator exited without opening
/// it (false: this part has no such table). Throws when the generator failed.
bool waitForPipe(int fd, TpchGeneratorProcess& generator, BlockQueue& queue) {
  while (true) {
    pollfd wanted{fd, POLLIN, 0};
    int ready = ::poll(&wanted, 1, kExitCheckMillis);
    if (ready < 0 && errno != EINTR) {
      SHOAL_USER_FAIL(SqlState::kIoError, "could not wait for the TPC-H generator: {}", strerror(errno));
    }
    if (ready > 0) return true;
    if (queue.failed()) return false;
    if (generator.exited()) {
      generator.wait();  // throws when it failed
      return ::poll(&wanted, 1, 0) > 0;
    }
  }
}

/// Reads one table's pipe to its end, pushing blocks of whole lines.
void readTable(size_t table, int fd, const std::filesystem::path& path, TpchGeneratorProcess& generator,
               BufferPool& pool, BlockQueue& queue) {
  uint64_t nextLine = 1;
  Block block;
  block.table = table;
  std::tie(block.buffer, block.capacity) = pool.take(kBlockBytes);
  // Pushes the block's whole lines and starts the next block with the partial line after them.
  auto pushWholeLines = [&](bool all) {
    const std::string_view text(block.buffer.get(), block.size);
    const size_t cut = all ? text.size() : endOfLastCompleteLine(text, TextFormatOptions{});
    if (cut == 0) {
      if (block.size < block.capacity) return true;
      // A line longer than a block: grow this one.
      auto bigger = std::make_unique_for_overwrite<char[]>(block.capacity * 2);
      std::memcpy(bigger.get(), block.buffer.get(), block.size);
      block.buffer = std::move(bigger);
      block.capacity *= 2;
      return true;
    }
    Block next;
    next.table = table;
    std::tie(next.buffer, next.capacity) = pool.take(std::max(kBlockBytes, block.size - cut));
    next.size = block.size - cut;
    std::memcpy(next.buffer.get(), block.buffer.get() + cut, next.size);
    block.size = cut;
    block.firstLine = nextLine;
    nextLine += countNewlines(text.substr(0, cut));
    std::swap(block, next);
    return queue.push(std::move(next));
  };
  while (true) {
    ssize_t n = ::read(fd, block.buffer.get() + block.size, block.capacity - block.size);
    if (n > 0) {
      block.size += static_cast<size_t>(n);
      if (block.size == block.capacity && !pushWholeLines(false)) return;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) {
      SHOAL_USER_FAIL(SqlState::kIoError, "could not read the TPC-H generator's {}: {}", path.string(),
                      strerror(errno));
    }
    // Nothing to read: the writer is slower than us (EAGAIN), or there is no writer (0), not yet or no more.
    if (n == 0) {
      pollfd hungUp{fd, POLLIN, 0};
      if (::poll(&hungUp, 1, 0) > 0 && (hungUp.revents & POLLHUP) && !(hungUp.revents & POLLIN)) break;
    }
    if (!waitForPipe(fd, generator, queue)) {
      if (queue.failed()) return;
      // The generator exited: read what it left, if anything, then stop.
      while ((n = ::read(fd, block.buffer.get() + block.size, block.capacity - block.size)) > 0) {
        block.size += static_cast<size_t>(n);
        if (block.size == block.capacity && !pushWholeLines(false)) return;
      }
      break;
    }
  }
  if (block.size == 0) return;
  // The generator ends every line: text without a line end was cut off by a generator that died. Its exit
  // status says so better than the half line would.
  if (block.buffer[block.size - 1] != '\n') generator.wait();
  pushWholeLines(true);
}

}  // namespace

uint64_t loadGeneratedTables(uint64_t loadId, const std::vector<proto::TableLayout>& layouts,
                             TpchGeneratorProcess& generator, size_t numThreads, const std::string& selfAddress,
                             StorageManager& storage, PeerChannels& peers) {
  BlockQueue queue(2 * numThreads + 2, layouts.size());
  BufferPool pool;
  std::vector<std::thread> readers;
  for (size_t table = 0; table < layouts.size(); ++table) {
    readers.emplace_back([&, table] {
      try {
        const std::string& name = layouts[table].table_name();
        readTable(table, generator.pipeOf(name), generator.outputPath(name), generator, pool, queue);
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
          loader = std::make_unique<TextLoader>(loadId, layout, std::vector<size_t>{}, format,
                                                "'" + generator.outputPath(layout.table_name()).string() + "'",
                                                selfAddress, storage, peers);
        }
        loader->load(std::string_view(block->buffer.get(), block->size), block->firstLine);
        pool.give(std::move(block->buffer), block->capacity);
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
