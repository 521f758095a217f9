#include "coordinator/query/copy_executor.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <grpcpp/client_context.h>

#include "common/check.h"
#include "common/count_newlines.h"
#include "coordinator/query/binary_copy_in.h"
#include "coordinator/query/load_transaction.h"
#include "proto/rpc_status.h"
#include "scheduler/memory_tracker.h"
#include "worker/storage/delimited_text_parser.h"

namespace shoal::coordinator {
namespace {

// Bytes per block handed to a worker: large enough to amortize the RPC, small
// enough that every worker gets several blocks of a modest file.
constexpr size_t kBlockBytes = 4 << 20;
// Streams per worker, so that a worker parses with more than one thread.
constexpr size_t kStreamsPerWorker = 2;

class FileCopyInput final : public CopyInput {
 public:
  FileCopyInput(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~FileCopyInput() override { ::close(fd_); }

  size_t read(char* buffer, size_t capacity) override {
    while (true) {
      ssize_t n = ::read(fd_, buffer, capacity);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno == EINTR) continue;
      SHOAL_USER_FAIL(SqlState::kIoError, "could not read from COPY file \"{}\": {}", path_, strerror(errno));
    }
  }
  std::string sourceName() const override { return "'" + path_ + "'"; }

 private:
  int fd_;
  std::string path_;
};

struct LoadStream {
  std::string address;
  std::unique_ptr<grpc::ClientContext> context;
  proto::LoadResponse response;
  std::unique_ptr<grpc::ClientWriter<proto::LoadTextRequest>> writer;
  bool broken = false;
};

/// COPY ... HEADER MATCH: the header line's fields must name the columns the fields fill, in order. The line
/// is read as the rows are (quotes, escapes, the NULL string), and mismatches fail as in PostgreSQL 15.
void checkHeaderLine(std::string_view line, const std::vector<std::string>& columns, worker::TextFormatOptions options,
                     const std::string& sourceName, const std::string& nullText) {
  options.forceNotNull.clear();
  options.forceNull.clear();
  std::vector<engine::LogicalType> types(columns.size(), engine::LogicalType::text());
  worker::DelimitedTextParser parser(types, columns, options, sourceName);
  std::vector<engine::Chunk> chunks;
  try {
    parser.parse(line, 1, chunks);
  } catch (const ShoalError& error) {
    if (error.status().sqlState() != SqlState::kBadCopyFileFormat) throw;
    SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "wrong number of fields in header line: expected {}", columns.size());
  }
  if (chunks.empty() || chunks[0].size() == 0) {
    SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat, "wrong number of fields in header line: got 0, expected {}",
                    columns.size());
  }
  for (size_t field = 0; field < columns.size(); ++field) {
    const engine::Vector& names = chunks[0].column(field);
    if (names.isNull(0)) {
      SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat,
                      "column name mismatch in header line field {}: got null value (\"{}\"), expected \"{}\"",
                      field + 1, nullText, columns[field]);
    }
    const std::string_view name = names.data<engine::StringRef>()[0].view();
    if (name != columns[field]) {
      SHOAL_USER_FAIL(SqlState::kBadCopyFileFormat,
                      "column name mismatch in header line field {}: got \"{}\", expected \"{}\"", field + 1, name,
                      columns[field]);
    }
  }
}

}  // namespace

std::unique_ptr<CopyInput> openCopyFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    SHOAL_USER_FAIL(errno == ENOENT ? SqlState::kUndefinedFile : SqlState::kIoError,
                    "could not open file \"{}\" for reading: {}", path, strerror(errno));
  }
  return std::make_unique<FileCopyInput>(fd, path);
}

std::string runCopy(ClusterContext& cluster, const sql::CopyFrom& command, CopyInput& input,
                    const std::atomic<bool>& cancelRequested, uint64_t memoryLimitBytes, Transaction* transaction) {
  if (command.format.kind == sql::CopyFormat::Kind::kBinary) {
    return runBinaryCopy(cluster, command, input, cancelRequested, transaction);
  }
  auto table = cluster.tables.find(command.table);
  if (!table) SHOAL_USER_FAIL(SqlState::kUndefinedTable, "relation \"{}\" does not exist", command.table.name);
  LoadTransaction load(cluster, {table}, {}, transaction);
  proto::TableLayout layout = cluster.workers.layoutOf(*table);

  worker::TextFormatOptions options;
  switch (command.format.kind) {
    case sql::CopyFormat::Kind::kText:
      options.format = worker::TextFileFormat::kText;
      break;
    case sql::CopyFormat::Kind::kCsv:
      options.format = worker::TextFileFormat::kCsv;
      break;
    case sql::CopyFormat::Kind::kTbl:
      options.format = worker::TextFileFormat::kTbl;
      break;
    case sql::CopyFormat::Kind::kBinary:
      SHOAL_UNREACHABLE("binary COPY is runBinaryCopy's");
  }
  options.delimiter = command.format.delimiter;
  options.quote = command.format.quote;
  proto::TextFormatProto format;
  format.set_format(static_cast<uint32_t>(options.format));
  format.set_delimiter(std::string(1, options.delimiter));
  format.set_quote(std::string(1, options.quote));
  format.set_null_text(command.format.nullText);
  format.set_has_null_text(true);
  for (bool flag : command.format.forceNotNull) format.add_force_not_null(flag);
  for (bool flag : command.format.forceNull) format.add_force_null(flag);
  format.set_time_zone(command.timeZone);
  const std::string sourceName = input.sourceName();

  // Blocks go round-robin over every stream of every worker that holds a partition.
  std::vector<std::string> addresses = cluster.workers.placementAddresses(*table);
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  std::vector<LoadStream> streams;
  for (size_t copy = 0; copy < kStreamsPerWorker; ++copy) {
    for (const auto& address : addresses) streams.push_back(LoadStream{address, nullptr, {}, nullptr, false});
  }
  size_t nextStream = 0;
  auto send = [&](std::string_view block, uint64_t firstLine) {
    for (size_t attempt = 0; attempt < streams.size(); ++attempt) {
      LoadStream& stream = streams[nextStream++ % streams.size()];
      if (stream.broken) continue;
      if (!stream.writer) {
        stream.context = std::make_unique<grpc::ClientContext>();
        stream.writer = cluster.workers.dataStub(stream.address).LoadText(stream.context.get(), &stream.response);
      }
      proto::LoadTextRequest request;
      request.set_load_id(load.loadId());
      *request.mutable_layout() = layout;
      *request.mutable_format() = format;
      request.set_source_name(sourceName);
      request.set_block(block.data(), block.size());
      request.set_first_line_number(firstLine);
      for (size_t column : command.columns) request.add_column_indexes(static_cast<uint32_t>(column));
      if (stream.writer->Write(request)) return;
      stream.broken = true;  // its error comes out of Finish below
      break;
    }
    throw std::runtime_error("a worker stopped accepting COPY data");
  };

  std::optional<Status> firstError;
  // What the text waiting for its line's end holds counts against the statement's memory limit and the
  // coordinator's budget: input without newlines ('/dev/zero') fails with 53200 instead of growing forever.
  scheduler::MemoryTracker memory(memoryLimitBytes, &cluster.dispatcher.memoryBudget());
  uint64_t countedBytes = 0;
  try {
    std::string buffer;
    std::vector<char> readBuffer(kBlockBytes);
    uint64_t nextLine = 1;
    bool skipHeader = command.format.header;
    bool atEnd = false;
    while (!atEnd) {
      if (cancelRequested.load()) {
        SHOAL_USER_FAIL(SqlState::kQueryCanceled, "canceling statement due to user request");
      }
      size_t n = input.read(readBuffer.data(), readBuffer.size());
      atEnd = n == 0;
      buffer.append(readBuffer.data(), n);
      if (buffer.capacity() > countedBytes) {
        memory.reserve(buffer.capacity() - countedBytes);
        countedBytes = buffer.capacity();
      }
      if (!atEnd && buffer.size() < kBlockBytes) continue;
      size_t end = atEnd ? buffer.size() : worker::endOfLastCompleteLine(buffer, options);
      if (end == 0 && !atEnd) continue;  // one line longer than a block: read on
      std::string_view block(buffer.data(), end);
      if (skipHeader && !block.empty()) {
        size_t headerEnd = worker::endOfLastCompleteLine(block.substr(0, block.find('\n') + 1), options);
        if (headerEnd == 0) headerEnd = block.size();
        if (command.format.headerMatch) {
          std::vector<std::string> fieldColumns;
          if (command.columns.empty()) {
            for (const auto& column : table->columns) fieldColumns.push_back(column.name);
          } else {
            for (size_t index : command.columns) fieldColumns.push_back(table->columns[index].name);
          }
          checkHeaderLine(block.substr(0, headerEnd), fieldColumns, options, sourceName, command.format.nullText);
        }
        block.remove_prefix(headerEnd);
        nextLine += 1;
        skipHeader = false;
      }
      if (!block.empty()) {
        send(block, nextLine);
        nextLine += countNewlines(block);
      }
      buffer.erase(0, end);
    }
  } catch (const ShoalError& error) {
    firstError = error.status();
  } catch (const std::runtime_error&) {
    // A broken stream: the worker's own error is collected below.
  }
  for (auto& stream : streams) {
    if (!stream.writer) continue;
    if (firstError) stream.context->TryCancel();
    if (!stream.broken) stream.writer->WritesDone();
    grpc::Status status = stream.writer->Finish();
    if (!status.ok()) {
      Status error = proto::fromGrpcStatus(status, stream.address);
      // Prefer a worker's own complaint (a bad row) over the cancellations it caused.
      if (!firstError || (firstError->sqlState() == SqlState::kConnectionFailure &&
                          error.sqlState() != SqlState::kConnectionFailure)) {
        firstError = error;
      }
    }
  }
  if (firstError) throw ShoalError(*firstError);
  // Each worker parsed its blocks' lines and says how many rows they held (those it routed, replicated or not).
  uint64_t rows = 0;
  for (const auto& stream : streams) {
    if (stream.writer) rows += stream.response.rows();
  }
  load.commit();
  return fmt::format("COPY {}", rows);
}

}  // namespace shoal::coordinator
