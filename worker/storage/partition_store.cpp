#include "worker/storage/partition_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include <spdlog/spdlog.h>

#include "common/status.h"
#include "engine/types/logical_type.h"
#include "worker/storage/segment_file.h"
#include "worker/storage/stored_columns_json.h"

namespace shoal::worker {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kManifest = "manifest.json";

}  // namespace

PartitionStore::PartitionStore(fs::path root) : root_(std::move(root)) {
  fs::create_directories(root_);
}

fs::path PartitionStore::directoryOf(uint64_t storageId) const {
  return root_ / std::to_string(storageId);
}

void PartitionStore::writeManifest(const TablePartition& partition, const std::vector<std::string>& files) const {
  json manifest = {{"storage_id", partition.storageId()},
                   {"table", partition.tableName()},
                   {"columns", storedColumnsToJson(partition.columns())},
                   {"segments", files}};
  fs::path directory = directoryOf(partition.storageId());
  fs::path temporary = directory / "manifest.json.tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << manifest.dump(1) << "\n";
    if (!out.flush()) SHOAL_USER_FAIL(SqlState::kIoError, "could not write {}", temporary.string());
  }
  int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  fs::rename(temporary, directory / kManifest);
  // The rename is durable only once the directory is.
  fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

std::string PartitionStore::writeSegment(uint64_t storageId, const std::string& tableName,
                                         const std::vector<StoredColumn>& columns, const Segment& segment) {
  fs::path directory = directoryOf(storageId);
  std::string name;
  AlignedBuffer buffer;
  {
    std::lock_guard lock(mutex_);
    fs::create_directories(directory);
    // Numbers never repeat within a partition, so a stale file can never pass for a new one.
    name = fmt::format("segment-{:06}.seg", nextFileNumber_[storageId]++);
    if (!spareBuffers_.empty()) {
      buffer = std::move(spareBuffers_.back());
      spareBuffers_.pop_back();
    }
  }
  writeSegmentFile(directory / name, segment, storageId, tableName, columns, buffer);
  std::lock_guard lock(mutex_);
  spareBuffers_.push_back(std::move(buffer));
  return name;
}

void PartitionStore::commitSegments(const TablePartition& partition, const std::vector<std::string>& files) {
  fs::path directory = directoryOf(partition.storageId());
  for (const auto& file : files) syncFile(directory / file);
  std::lock_guard lock(mutex_);
  fs::create_directories(directory);
  std::vector<std::string>& committed = files_[partition.storageId()];
  std::vector<std::string> updated = committed;
  updated.insert(updated.end(), files.begin(), files.end());
  writeManifest(partition, updated);
  committed = std::move(updated);
}

void PartitionStore::releaseBuffers() {
  std::lock_guard lock(mutex_);
  spareBuffers_.clear();
}

void PartitionStore::discardSegments(uint64_t storageId, const std::vector<std::string>& files) {
  for (const auto& file : files) {
    std::error_code error;
    fs::remove(directoryOf(storageId) / file, error);
  }
}

void PartitionStore::remove(uint64_t storageId) {
  std::lock_guard lock(mutex_);
  files_.erase(storageId);
  nextFileNumber_.erase(storageId);
  std::error_code error;
  fs::remove_all(directoryOf(storageId), error);
  if (error) spdlog::warn("could not remove {}: {}", directoryOf(storageId).string(), error.message());
}

std::vector<std::shared_ptr<TablePartition>> PartitionStore::recover(SegmentMemory& memory) {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<TablePartition>> partitions;
  uint32_t nextNode = 0;
  for (const auto& entry : fs::directory_iterator(root_)) {
    if (!entry.is_directory()) continue;
    fs::path manifestPath = entry.path() / kManifest;
    if (!fs::exists(manifestPath)) {
      spdlog::warn("{} has no manifest: a load that never committed; removing it", entry.path().string());
      fs::remove_all(entry.path());
      continue;
    }
    json manifest;
    try {
      std::ifstream in(manifestPath);
      manifest = json::parse(in);
      uint64_t storageId = manifest.at("storage_id");
      auto partition = std::make_shared<TablePartition>(storageId, manifest.at("table").get<std::string>(),
                                                        storedColumnsFromJson(manifest.at("columns")));
      std::vector<std::string> files = manifest.at("segments").get<std::vector<std::string>>();
      std::set<std::string> listed(files.begin(), files.end());
      try {
        std::vector<std::shared_ptr<const Segment>> segments;
        for (const auto& file : files) {
          segments.push_back(readSegmentFile(entry.path() / file, partition->columns(),
                                             nextNode++ % memory.topology().numNodes(), memory));
        }
        partition->appendSegments(std::move(segments));
      } catch (const ShoalError& error) {
        spdlog::error("table {} (storage {}): {}", partition->tableName(), storageId, error.status().message());
        partition->markCorrupted(error.status().message());
      }
      // Files of a commit that crashed before its manifest was written.
      for (const auto& file : fs::directory_iterator(entry.path())) {
        std::string name = file.path().filename().string();
        if (name != kManifest && !listed.contains(name)) fs::remove(file.path());
      }
      uint64_t& next = nextFileNumber_[storageId];
      for (const auto& file : files) {
        unsigned long number = 0;
        if (std::sscanf(file.c_str(), "segment-%lu.seg", &number) == 1) next = std::max<uint64_t>(next, number + 1);
      }
      files_[storageId] = std::move(files);
      partitions.push_back(std::move(partition));
    } catch (const json::exception& error) {
      spdlog::error("manifest {} is corrupted: {}", manifestPath.string(), error.what());
    }
  }
  return partitions;
}

}  // namespace shoal::worker
