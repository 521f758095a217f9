#include "worker/storage/partition_store.h"

#include <cstdio>
#include <fstream>

#include <spdlog/spdlog.h>

#include "common/status.h"
#include "worker/storage/delete_vector_file.h"
#include "worker/storage/durable_file.h"
#include "worker/storage/segment_file.h"
#include "worker/storage/stored_columns_json.h"

namespace shoal::worker {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kManifest = "manifest.json";

std::string segmentFileName(uint64_t segmentId) {
  return fmt::format("segment-{:06}.seg", segmentId);
}

std::string deleteFileName(uint64_t segmentId, uint64_t commitSeq) {
  return fmt::format("segment-{:06}.del-{}", segmentId, commitSeq);
}

/// A manifest's segment entry: {"file", "id", "commit", "deletes"}; a bare file name in manifests written
/// before commits had sequence numbers (committed at 0, visible to every snapshot).
StoredSegment segmentEntryFromJson(const json& entry) {
  StoredSegment segment;
  if (entry.is_string()) {
    segment.file = entry.get<std::string>();
    unsigned long number = 0;
    if (std::sscanf(segment.file.c_str(), "segment-%lu.seg", &number) != 1) {
      throw json::other_error::create(501, "segment file name " + segment.file + " has no number", &entry);
    }
    segment.id = number;
    segment.commitSeq = 0;
    return segment;
  }
  segment.file = entry.at("file").get<std::string>();
  segment.id = entry.at("id").get<uint64_t>();
  segment.commitSeq = entry.at("commit").get<uint64_t>();
  segment.deleteFile = entry.value("deletes", std::string());
  return segment;
}

}  // namespace

PartitionStore::PartitionStore(fs::path root)
    : root_(std::move(root)), transactions_(root_.parent_path() / "transactions") {
  fs::create_directories(root_);
  fs::create_directories(transactions_);
}

fs::path PartitionStore::directoryOf(uint64_t storageId) const {
  return root_ / std::to_string(storageId);
}

void PartitionStore::writeManifest(const TablePartition& partition, const std::vector<StoredSegment>& committed) const {
  json segments = json::array();
  for (const auto& segment : committed) {
    json entry = {{"file", segment.file}, {"id", segment.id}, {"commit", segment.commitSeq}};
    if (!segment.deleteFile.empty()) entry["deletes"] = segment.deleteFile;
    segments.push_back(std::move(entry));
  }
  json manifest = {{"storage_id", partition.storageId()},
                   {"table", partition.tableName()},
                   {"columns", storedColumnsToJson(partition.columns())},
                   {"segments", std::move(segments)}};
  fs::path directory = directoryOf(partition.storageId());
  fs::create_directories(directory);
  replaceFileDurably(directory / kManifest, manifest.dump(1) + "\n");
}

std::string PartitionStore::writeSegment(const TablePartition& partition, uint64_t segmentId, const Segment& segment) {
  fs::path directory = directoryOf(partition.storageId());
  const std::string name = segmentFileName(segmentId);
  AlignedBuffer buffer;
  {
    std::lock_guard lock(mutex_);
    fs::create_directories(directory);
    if (!spareBuffers_.empty()) {
      buffer = std::move(spareBuffers_.back());
      spareBuffers_.pop_back();
    }
  }
  writeSegmentFile(directory / name, segment, partition.storageId(), partition.tableName(), partition.columns(),
                   buffer);
  std::lock_guard lock(mutex_);
  spareBuffers_.push_back(std::move(buffer));
  return name;
}

void PartitionStore::syncSegments(uint64_t storageId, const std::vector<std::string>& files) {
  fs::path directory = directoryOf(storageId);
  for (const auto& file : files) syncFile(directory / file);
  if (!files.empty()) syncDirectory(directory);
}

void PartitionStore::persistCommit(const TablePartition& partition, std::vector<StoredSegment>& committed,
                                   const std::vector<uint64_t>& newDeletes, uint64_t commitSeq) {
  const fs::path directory = directoryOf(partition.storageId());
  fs::create_directories(directory);
  std::vector<std::string> replaced;
  for (auto& segment : committed) {
    if (std::find(newDeletes.begin(), newDeletes.end(), segment.id) == newDeletes.end()) continue;
    std::string name = deleteFileName(segment.id, commitSeq);
    writeDeleteVectorFile(directory / name, *segment.deletes);
    if (!segment.deleteFile.empty() && segment.deleteFile != name) replaced.push_back(segment.deleteFile);
    segment.deleteFile = std::move(name);
  }
  writeManifest(partition, committed);
  for (const auto& file : replaced) {
    std::error_code error;
    fs::remove(directory / file, error);
  }
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
  std::error_code error;
  fs::remove_all(directoryOf(storageId), error);
  if (error) spdlog::warn("could not remove {}: {}", directoryOf(storageId).string(), error.message());
}

void PartitionStore::writePrepared(uint64_t transactionId, const json& record) {
  replaceFileDurably(transactions_ / fmt::format("{}.prepared", transactionId), record.dump());
}

void PartitionStore::removePrepared(uint64_t transactionId) {
  std::error_code error;
  fs::remove(transactions_ / fmt::format("{}.prepared", transactionId), error);
  syncDirectory(transactions_);
}

std::vector<json> PartitionStore::preparedRecords() const {
  std::vector<json> records;
  for (const auto& entry : fs::directory_iterator(transactions_)) {
    if (entry.path().extension() != ".prepared") {
      fs::remove(entry.path());  // a record's temporary file: its transaction never voted
      continue;
    }
    try {
      std::ifstream in(entry.path());
      records.push_back(json::parse(in));
    } catch (const json::exception& error) {
      // Written aside and renamed: a damaged record is not a crash's doing. Its transaction cannot commit.
      spdlog::error("prepared transaction record {} is corrupted ({}); ignoring it", entry.path().string(),
                    error.what());
    }
  }
  return records;
}

std::shared_ptr<const Segment> PartitionStore::readSegment(const TablePartition& partition, const std::string& file,
                                                           uint32_t numaNode, SegmentMemory& memory) const {
  return readSegmentFile(directoryOf(partition.storageId()) / file, partition.columns(), numaNode, memory);
}

std::vector<std::shared_ptr<TablePartition>> PartitionStore::recover(
    SegmentMemory& memory, const std::set<std::pair<uint64_t, std::string>>& keep) {
  std::vector<std::shared_ptr<TablePartition>> partitions;
  uint32_t nextNode = 0;
  for (const auto& entry : fs::directory_iterator(root_)) {
    if (!entry.is_directory()) continue;
    fs::path manifestPath = entry.path() / kManifest;
    uint64_t directoryId = 0;
    const bool numbered = std::sscanf(entry.path().filename().c_str(), "%lu", &directoryId) == 1;
    const bool held = numbered && keep.lower_bound({directoryId, ""}) != keep.end() &&
                      keep.lower_bound({directoryId, ""})->first == directoryId;
    if (!fs::exists(manifestPath)) {
      if (held) continue;  // the first rows of a table, prepared and not yet committed: the record rebuilds it
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
      std::vector<StoredSegment> segments;
      for (const auto& segmentEntry : manifest.at("segments")) segments.push_back(segmentEntryFromJson(segmentEntry));
      std::set<std::string> listed = {kManifest};
      for (const auto& segment : segments) {
        listed.insert(segment.file);
        if (!segment.deleteFile.empty()) listed.insert(segment.deleteFile);
      }
      try {
        for (auto& segment : segments) {
          segment.segment = readSegmentFile(entry.path() / segment.file, partition->columns(),
                                            nextNode++ % memory.topology().numNodes(), memory);
          if (!segment.deleteFile.empty()) segment.deletes = readDeleteVectorFile(entry.path() / segment.deleteFile);
        }
        for (auto& segment : segments) partition->addCommitted(std::move(segment));
      } catch (const ShoalError& error) {
        spdlog::error("table {} (storage {}): {}", partition->tableName(), storageId, error.status().message());
        partition->markCorrupted(error.status().message());
      }
      // Files of a commit that crashed before its manifest was written, and delete vectors a commit replaced.
      for (const auto& file : fs::directory_iterator(entry.path())) {
        std::string name = file.path().filename().string();
        if (!listed.contains(name) && !keep.contains({storageId, name})) fs::remove(file.path());
      }
      partitions.push_back(std::move(partition));
    } catch (const json::exception& error) {
      spdlog::error("manifest {} is corrupted: {}", manifestPath.string(), error.what());
    }
  }
  return partitions;
}

}  // namespace shoal::worker
