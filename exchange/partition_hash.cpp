#include "exchange/partition_hash.h"

#include <cstring>

#include "common/hashing.h"
#include "engine/types/interval.h"

namespace shoal::exchange {

using engine::PhysicalType;

namespace {

constexpr uint32_t kNullKeyHash = 0x9e3779b9u;

}  // namespace

std::vector<uint32_t> hashRows(const engine::Chunk& chunk, std::span<const size_t> keyColumns) {
  const size_t numRows = chunk.size();
  std::vector<uint32_t> hashes(numRows, 0);
  for (size_t key : keyColumns) {
    const engine::Vector& column = chunk.column(key);
    const engine::ValidityMask& validity = column.validity();
    auto each = [&](auto hashOne) {
      for (size_t row = 0; row < numRows; ++row) {
        hashes[row] = validity.isValid(row) ? hashOne(row, hashes[row]) : crc32Int64(kNullKeyHash, hashes[row]);
      }
    };
    switch (column.type().physicalType()) {
      case PhysicalType::kBool:
        each([&](size_t row, uint32_t seed) { return crc32Int64(column.data<uint8_t>()[row], seed); });
        break;
      case PhysicalType::kInt32:
        each([&](size_t row, uint32_t seed) {
          return crc32Int64(static_cast<uint64_t>(static_cast<int64_t>(column.data<int32_t>()[row])), seed);
        });
        break;
      case PhysicalType::kInt64:
        each([&](size_t row, uint32_t seed) {
          return crc32Int64(static_cast<uint64_t>(column.data<int64_t>()[row]), seed);
        });
        break;
      case PhysicalType::kInt128:
        each([&](size_t row, uint32_t seed) {
          engine::int128_t value = column.data<engine::int128_t>()[row];
          // Equal intervals ('1 mon', '30 days') go to one partition: by their span.
          if (column.type().id() == engine::TypeId::kInterval) value = engine::intervalSpan(value);
          return crc32Hash(&value, sizeof(value), seed);
        });
        break;
      case PhysicalType::kDouble:
        each([&](size_t row, uint32_t seed) {
          double value = column.data<double>()[row];
          if (value == 0) value = 0;  // -0.0 and 0.0 are equal keys
          uint64_t bits;
          std::memcpy(&bits, &value, sizeof(bits));
          return crc32Int64(bits, seed);
        });
        break;
      case PhysicalType::kString:
        each([&](size_t row, uint32_t seed) {
          std::string_view text = column.data<engine::StringRef>()[row].view();
          return crc32Hash(text.data(), text.size(), seed);
        });
        break;
    }
  }
  return hashes;
}

std::vector<uint32_t> partitionRows(const engine::Chunk& chunk, std::span<const size_t> keyColumns,
                                    uint32_t numPartitions) {
  std::vector<uint32_t> partitions = hashRows(chunk, keyColumns);
  for (uint32_t& value : partitions) value %= numPartitions;
  return partitions;
}

}  // namespace shoal::exchange
