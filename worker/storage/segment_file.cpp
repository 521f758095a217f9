#include "worker/storage/segment_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "common/byte_reader.h"
#include "common/hashing.h"
#include "common/status.h"
#include "worker/storage/stored_columns_json.h"

namespace shoal::worker {
namespace {

constexpr char kMagic[8] = {'S', 'H', 'O', 'A', 'L', 'S', 'E', 'G'};
constexpr char kEndMagic[8] = {'S', 'E', 'G', 'E', 'N', 'D', '\0', '\0'};
constexpr uint32_t kFormatVersion = 2;

void writeFully(int fd, const char* bytes, size_t size, const std::filesystem::path& path) {
  size_t written = 0;
  while (written < size) {
    ssize_t n = ::write(fd, bytes + written, size - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not write {}: {}", path.string(), strerror(errno));
    written += static_cast<size_t>(n);
  }
}

/// Writes `bytes` as the whole file at `path`. Through the page cache, writing a segment costs about as much
/// CPU as building it (every page is zeroed and copied); O_DIRECT hands the buffer to the disk instead. O_DIRECT
/// writes whole blocks: the zero padding is cut off again with ftruncate.
void writeWholeFile(const std::filesystem::path& path, AlignedBuffer& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_DIRECT, 0644);
  if (fd >= 0) {
    const size_t padded = bytes.padToAlignment();
    try {
      writeFully(fd, bytes.data(), padded, path);
      if (::ftruncate(fd, static_cast<off_t>(bytes.size())) != 0) {
        SHOAL_USER_FAIL(SqlState::kIoError, "could not truncate {}: {}", path.string(), strerror(errno));
      }
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);
    return;
  }
  if (errno != EINVAL) {
    SHOAL_USER_FAIL(SqlState::kIoError, "could not create {}: {}", path.string(), strerror(errno));
  }
  // The file system has no O_DIRECT (tmpfs): write through the page cache.
  fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not create {}: {}", path.string(), strerror(errno));
  try {
    writeFully(fd, bytes.data(), bytes.size(), path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

}  // namespace

void writeSegmentFile(const std::filesystem::path& path, const Segment& segment, uint64_t storageId,
                      const std::string& tableName, const std::vector<StoredColumn>& columns, AlignedBuffer& scratch) {
  SHOAL_CHECK(segment.numColumns() == columns.size(), "segment of {} columns for a table of {}", segment.numColumns(),
              columns.size());
  AlignedBuffer& bytes = scratch;
  bytes.clear();
  bytes.append(kMagic, sizeof(kMagic));
  bytes.appendRaw(kFormatVersion);
  nlohmann::json header = {{"storage_id", storageId},
                           {"table", tableName},
                           {"rows", segment.size()},
                           {"columns", storedColumnsToJson(columns)}};
  std::string headerText = header.dump();
  bytes.appendRaw(static_cast<uint32_t>(headerText.size()));
  bytes.append(headerText);
  for (size_t c = 0; c < segment.numColumns(); ++c) segment.column(c).serialize(bytes);
  bytes.appendRaw(crc32Hash(bytes.data(), bytes.size()));
  bytes.append(kEndMagic, sizeof(kEndMagic));
  writeWholeFile(path, bytes);
}

void syncFile(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not open {}: {}", path.string(), strerror(errno));
  int result = ::fdatasync(fd);
  int error = errno;
  ::close(fd);
  if (result != 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not fsync {}: {}", path.string(), strerror(error));
}

std::unique_ptr<Segment> readSegmentFile(const std::filesystem::path& path, const std::vector<StoredColumn>& columns,
                                         uint32_t numaNode, SegmentMemory& memory) {
  std::ifstream in(path, std::ios::binary);
  if (!in) SHOAL_USER_FAIL(SqlState::kUndefinedFile, "segment file {} is missing", path.string());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string subject = "segment file " + path.string();
  ByteReader whole(bytes, subject);
  constexpr size_t kTrailer = sizeof(uint32_t) + sizeof(kEndMagic);
  if (bytes.size() < sizeof(kMagic) + 2 * sizeof(uint32_t) + kTrailer) whole.fail("too short (truncated?)");
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) whole.fail("not a Shoal segment file");
  if (std::memcmp(bytes.data() + bytes.size() - sizeof(kEndMagic), kEndMagic, sizeof(kEndMagic)) != 0) {
    whole.fail("no end marker (truncated?)");
  }
  uint32_t storedCrc;
  std::memcpy(&storedCrc, bytes.data() + bytes.size() - kTrailer, sizeof(storedCrc));
  const size_t bodySize = bytes.size() - kTrailer;
  if (crc32Hash(bytes.data(), bodySize) != storedCrc) whole.fail("checksum mismatch");

  ByteReader reader(std::string_view(bytes).substr(0, bodySize), subject);
  reader.take(sizeof(kMagic));
  if (uint32_t version = reader.read<uint32_t>(); version != kFormatVersion) {
    reader.fail(fmt::format("format version {} is not {}", version, kFormatVersion));
  }
  std::string_view headerText = reader.take(reader.read<uint32_t>());
  nlohmann::json declaredColumns;
  size_t rows = 0;
  try {
    // Any JSON parses: a header that is not an object of the expected fields is as corrupt as bad JSON.
    nlohmann::json header = nlohmann::json::parse(headerText);
    if (!header.is_object()) reader.fail("its header is not a JSON object");
    declaredColumns = header.value("columns", nlohmann::json());
    rows = header.value("rows", size_t{0});
  } catch (const nlohmann::json::exception& error) {
    reader.fail(error.what());
  }
  if (declaredColumns != storedColumnsToJson(columns)) reader.fail("its columns differ from the table's");
  if (rows == 0 || rows > kSegmentRows) reader.fail(fmt::format("impossible row count {}", rows));
  std::vector<std::unique_ptr<ColumnSegment>> columnSegments;
  for (const auto& column : columns) {
    columnSegments.push_back(ColumnSegment::deserialize(column.type, rows, reader, numaNode, memory));
  }
  if (reader.remaining() != 0) reader.fail("bytes after the last column");
  return std::make_unique<Segment>(std::move(columnSegments), rows, numaNode);
}

}  // namespace shoal::worker
