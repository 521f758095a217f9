#include "worker/storage/segment_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <numeric>

#include "common/hashing.h"
#include "common/status.h"
#include "engine/vector/chunk_codec.h"

namespace shoal::worker {
namespace {

constexpr char kMagic[8] = {'S', 'H', 'O', 'A', 'L', 'S', 'E', 'G'};
constexpr char kEndMagic[8] = {'S', 'E', 'G', 'E', 'N', 'D', '\0', '\0'};
constexpr uint32_t kFormatVersion = 1;

template <class T>
void appendRaw(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

nlohmann::json columnsToJson(const std::vector<StoredColumn>& columns) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& column : columns) {
    out.push_back({{"name", column.name},
                   {"type",
                    {static_cast<uint32_t>(column.type.id()), column.type.precision(), column.type.scale(),
                     column.type.maxLength()}},
                   {"not_null", column.notNull}});
  }
  return out;
}

[[noreturn]] void corrupted(const std::filesystem::path& path, std::string_view what) {
  SHOAL_USER_FAIL(SqlState::kDataCorrupted, "segment file {} is corrupted: {}", path.string(), what);
}

void writeFully(int fd, const std::string& bytes, const std::filesystem::path& path) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not write {}: {}", path.string(), strerror(errno));
    written += static_cast<size_t>(n);
  }
}

}  // namespace

void writeSegmentFile(const std::filesystem::path& path, const Segment& segment, uint64_t storageId,
                      const std::string& tableName, const std::vector<StoredColumn>& columns) {
  std::string bytes(kMagic, sizeof(kMagic));
  appendRaw(bytes, kFormatVersion);
  nlohmann::json header = {
      {"storage_id", storageId}, {"table", tableName}, {"rows", segment.size()}, {"columns", columnsToJson(columns)}};
  std::string headerText = header.dump();
  appendRaw(bytes, static_cast<uint32_t>(headerText.size()));
  bytes += headerText;

  std::vector<size_t> allColumns(columns.size());
  std::iota(allColumns.begin(), allColumns.end(), 0);
  engine::Chunk chunk;
  for (const auto& column : columns) chunk.addColumn(engine::Vector(column.type, engine::kVectorSize));
  std::string block;
  for (size_t start = 0; start < segment.size(); start += engine::kVectorSize) {
    size_t count = std::min(engine::kVectorSize, segment.size() - start);
    segment.read(start, count, allColumns, chunk);
    block.clear();
    engine::encodeChunk(chunk, block);
    appendRaw(bytes, static_cast<uint32_t>(block.size()));
    bytes += block;
  }
  appendRaw(bytes, uint32_t{0});  // end of blocks
  appendRaw(bytes, crc32Hash(bytes.data(), bytes.size()));
  bytes.append(kEndMagic, sizeof(kEndMagic));

  std::filesystem::path temporary = path;
  temporary += ".tmp";
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not create {}: {}", temporary.string(), strerror(errno));
  try {
    writeFully(fd, bytes, temporary);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    SHOAL_USER_FAIL(SqlState::kIoError, "could not fsync {}: {}", temporary.string(), strerror(errno));
  }
  ::close(fd);
  std::filesystem::rename(temporary, path);
}

std::unique_ptr<Segment> readSegmentFile(const std::filesystem::path& path, const std::vector<StoredColumn>& columns,
                                         uint32_t numaNode, const NumaTopology& topology) {
  std::ifstream in(path, std::ios::binary);
  if (!in) SHOAL_USER_FAIL(SqlState::kUndefinedFile, "segment file {} is missing", path.string());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr size_t kTrailer = sizeof(uint32_t) + sizeof(kEndMagic);
  if (bytes.size() < sizeof(kMagic) + 2 * sizeof(uint32_t) + kTrailer) corrupted(path, "too short (truncated?)");
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) corrupted(path, "not a Shoal segment file");
  if (std::memcmp(bytes.data() + bytes.size() - sizeof(kEndMagic), kEndMagic, sizeof(kEndMagic)) != 0) {
    corrupted(path, "no end marker (truncated?)");
  }
  uint32_t storedCrc;
  std::memcpy(&storedCrc, bytes.data() + bytes.size() - kTrailer, sizeof(storedCrc));
  size_t bodySize = bytes.size() - kTrailer;
  if (crc32Hash(bytes.data(), bodySize) != storedCrc) corrupted(path, "checksum mismatch");

  size_t offset = sizeof(kMagic);
  auto readU32 = [&]() {
    if (offset + sizeof(uint32_t) > bodySize) corrupted(path, "unexpected end");
    uint32_t value;
    std::memcpy(&value, bytes.data() + offset, sizeof(value));
    offset += sizeof(value);
    return value;
  };
  if (uint32_t version = readU32(); version != kFormatVersion) {
    corrupted(path, fmt::format("format version {} is not {}", version, kFormatVersion));
  }
  uint32_t headerLength = readU32();
  if (offset + headerLength > bodySize) corrupted(path, "header runs past the end");
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.substr(offset, headerLength));
  } catch (const nlohmann::json::exception& error) {
    corrupted(path, error.what());
  }
  offset += headerLength;
  if (header.value("columns", nlohmann::json()) != columnsToJson(columns)) {
    corrupted(path, "its columns differ from the table's");
  }
  std::vector<engine::LogicalType> types;
  for (const auto& column : columns) types.push_back(column.type);
  std::vector<engine::Chunk> chunks;
  size_t rows = 0;
  while (true) {
    uint32_t blockLength = readU32();
    if (blockLength == 0) break;
    if (offset + blockLength > bodySize) corrupted(path, "block runs past the end");
    chunks.push_back(engine::decodeChunk(std::string_view(bytes.data() + offset, blockLength), types));
    rows += chunks.back().size();
    offset += blockLength;
  }
  if (offset != bodySize || rows != header.value("rows", size_t{0}) || rows > kSegmentRows) {
    corrupted(path, "row count or length does not match its header");
  }
  return Segment::build(types, chunks, numaNode, topology);
}

}  // namespace shoal::worker
