#include "worker/storage/delete_vector_file.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "common/byte_reader.h"
#include "common/hashing.h"
#include "common/status.h"
#include "worker/storage/durable_file.h"

namespace shoal::worker {
namespace {

constexpr char kMagic[8] = {'S', 'H', 'O', 'A', 'L', 'D', 'E', 'L'};

template <class T>
void appendRaw(std::string& bytes, T value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

}  // namespace

void writeDeleteVectorFile(const std::filesystem::path& path, const DeleteVector& deletes) {
  std::string bytes(kMagic, sizeof(kMagic));
  appendRaw(bytes, static_cast<uint32_t>(deletes.size()));
  bytes.append(reinterpret_cast<const char*>(deletes.rows.data()), deletes.rows.size() * sizeof(uint32_t));
  bytes.append(reinterpret_cast<const char*>(deletes.commitSeqs.data()), deletes.commitSeqs.size() * sizeof(uint64_t));
  appendRaw(bytes, crc32Hash(bytes.data(), bytes.size()));
  replaceFileDurably(path, bytes);
}

std::shared_ptr<const DeleteVector> readDeleteVectorFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) SHOAL_USER_FAIL(SqlState::kUndefinedFile, "delete vector file {} is missing", path.string());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ByteReader reader(bytes, "delete vector file " + path.string());
  if (bytes.size() < sizeof(kMagic) + 2 * sizeof(uint32_t)) reader.fail("too short (truncated?)");
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) reader.fail("not a Shoal delete vector file");
  uint32_t storedCrc;
  std::memcpy(&storedCrc, bytes.data() + bytes.size() - sizeof(uint32_t), sizeof(storedCrc));
  if (crc32Hash(bytes.data(), bytes.size() - sizeof(uint32_t)) != storedCrc) reader.fail("checksum mismatch");
  reader.take(sizeof(kMagic));
  const uint32_t count = reader.read<uint32_t>();
  if (bytes.size() != sizeof(kMagic) + sizeof(uint32_t) + count * 12ull + sizeof(uint32_t)) {
    reader.fail("its size does not match its row count");
  }
  auto deletes = std::make_shared<DeleteVector>();
  deletes->rows.resize(count);
  deletes->commitSeqs.resize(count);
  std::memcpy(deletes->rows.data(), reader.take(count * sizeof(uint32_t)).data(), count * sizeof(uint32_t));
  std::memcpy(deletes->commitSeqs.data(), reader.take(count * sizeof(uint64_t)).data(), count * sizeof(uint64_t));
  return deletes;
}

}  // namespace shoal::worker
