// The segment file reader (worker/storage/segment_file.cpp) on any bytes: what a worker meets in a damaged or
// planted data directory. The harness takes the columns from the file's own header, as if the manifest
// agreed with it, and rewrites the CRC-32C trailer over the mutated bytes: a checksum only guards against
// accidents, so the decoder behind it must hold against any content. Every segment read is then decoded whole.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "common/hashing.h"
#include "common/status.h"
#include "tests/fuzz/sample_rows.h"
#include "tests/fuzz/seed_files.h"
#include "worker/storage/segment_file.h"
#include "worker/storage/segment_memory.h"
#include "worker/storage/stored_columns_json.h"

namespace {

using namespace shoal;

constexpr size_t kMagicBytes = 8;
constexpr size_t kTrailerBytes = 4 + 8;  // CRC-32C, then the end marker

/// The columns the header declares; none when it cannot be read (the reader then refuses the file).
std::vector<worker::StoredColumn> declaredColumns(const std::string& bytes) {
  if (bytes.size() < kMagicBytes + 8) return {};
  uint32_t headerBytes;
  std::memcpy(&headerBytes, bytes.data() + kMagicBytes + 4, sizeof(headerBytes));
  if (headerBytes > bytes.size() - kMagicBytes - 8) return {};
  auto header = nlohmann::json::parse(bytes.substr(kMagicBytes + 8, headerBytes), nullptr, false);
  if (header.is_discarded() || !header.is_object() || !header.contains("columns")) return {};
  try {
    return worker::storedColumnsFromJson(header["columns"]);
  } catch (const std::exception&) {
    return {};
  }
}

/// Seeds: segments as a load writes them, one per column type and one of several columns, with repeating
/// values (dictionary and narrow-range encodings), distinct ones and NULLs.
void writeSeeds(const std::filesystem::path& directory) {
  using engine::LogicalType;
  worker::SegmentMemory memory(NumaTopology::fake(1));
  std::vector<std::pair<LogicalType, std::vector<std::string>>> columns = {
      {LogicalType::integer(), {"1", "2", "3", "2", "1", "-7"}},
      {LogicalType::bigInt(), {"9000000000", "1", "-9000000000", "42"}},
      {LogicalType::bigInt(), {"100", "101", "102", "100"}},
      {LogicalType::smallInt(), {"1", "-32768", "32767"}},
      {LogicalType::decimal(15, 2), {"1.50", "-2.25", "99999.99", "1.50"}},
      {LogicalType::doublePrecision(), {"1.5", "-0", "NaN", "Infinity", "1e300"}},
      {LogicalType::real(), {"1.5", "3.25"}},
      {LogicalType::boolean(), {"t", "f", "t"}},
      {LogicalType::date(), {"1998-12-01", "1992-01-01", "1998-12-01"}},
      {LogicalType::timestamp(), {"2024-02-29 12:34:56.789", "1970-01-01 00:00:00"}},
      {LogicalType::timestampTz(), {"2024-02-29 12:34:56+02", "2000-01-01 00:00:00+00"}},
      {LogicalType::interval(), {"1 year 2 mons 3 days 04:05:06", "-1 day"}},
      {LogicalType::time(), {"12:34:56", "00:00:00"}},
      {LogicalType::text(), {"AIR", "MAIL", "AIR", "TRUCK", "AIR", "", "a longer string of forty bytes or so...."}},
      {LogicalType::varchar(25), {"Customer#000000001", "Customer#000000002"}},
      {LogicalType::character(10), {"BUILDING", "AUTOMOBILE"}},
      {LogicalType::uuid(), {"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}},
      {LogicalType::bytea(), {"\\xdeadbeef", "\\x"}},
      {LogicalType::jsonb(), {"{\"a\": [1, 2, {\"b\": null}]}", "3"}},
      {LogicalType::array(LogicalType::integer()), {"{1,2,NULL}", "{}"}},
  };
  auto write = [&](const std::vector<worker::StoredColumn>& stored, const std::vector<std::string>& texts) {
    std::vector<LogicalType> types;
    for (const auto& column : stored) types.push_back(column.type);
    std::vector<engine::Chunk> chunks;
    chunks.push_back(fuzz::sampleRows(types, texts));
    auto segment = worker::Segment::build(types, chunks, 0, memory);
    AlignedBuffer scratch;
    const auto path = directory / "segment.tmp";
    worker::writeSegmentFile(path, *segment, 7, "t", stored, scratch);
    std::ifstream in(path, std::ios::binary);
    fuzz::writeSeed(directory, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    std::filesystem::remove(path);
  };
  std::vector<worker::StoredColumn> all;
  for (size_t i = 0; i < columns.size(); ++i) {
    worker::StoredColumn column{fmt::format("c{}", i), columns[i].first, false};
    write({column}, columns[i].second);
    all.push_back(column);
  }
  write(all, {"1", "2", "1"});
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (auto directory = fuzz::seedDirectory()) {
    writeSeeds(*directory);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("shoal-segment-fuzz-" + std::to_string(::getpid()) + ".seg");
  static worker::SegmentMemory memory(NumaTopology::fake(1));
  // SHOAL_FUZZ_VERBOSE=1 tells what each input read to: what a seed reaches.
  static const bool verbose = std::getenv("SHOAL_FUZZ_VERBOSE") != nullptr;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.size() >= kMagicBytes + kTrailerBytes) {
    uint32_t crc = crc32Hash(bytes.data(), bytes.size() - kTrailerBytes);
    std::memcpy(bytes.data() + bytes.size() - kTrailerBytes, &crc, sizeof(crc));
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(size));
  std::vector<worker::StoredColumn> columns = declaredColumns(bytes);
  try {
    auto segment = worker::readSegmentFile(path, columns, 0, memory);
    std::vector<size_t> all;
    std::vector<engine::Vector> vectors;
    for (size_t c = 0; c < columns.size(); ++c) {
      all.push_back(c);
      vectors.emplace_back(columns[c].type, 0);
    }
    engine::Chunk chunk(std::move(vectors), 0);
    for (size_t start = 0; start < segment->size(); start += engine::kVectorSize) {
      segment->read(start, std::min(engine::kVectorSize, segment->size() - start), all, chunk);
    }
    if (verbose) std::fprintf(stderr, "read %zu rows of %zu columns\n", segment->size(), columns.size());
  } catch (const ShoalError& error) {
    // Refusing the file (XX001, 22P03, ...) is the right answer to garbage.
    if (verbose) std::fprintf(stderr, "%s\n", error.what());
  }
  return 0;
}
