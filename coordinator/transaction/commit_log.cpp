#include "coordinator/transaction/commit_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "common/status.h"
#include "etcd/etcd_client.h"

namespace shoal::coordinator {

using nlohmann::json;

namespace {

json decisionToJson(const CommitDecision& decision) {
  return {{"commit", decision.transactionId}, {"seq", decision.commitSeq}, {"participants", decision.participants}};
}

CommitDecision decisionFromJson(const json& entry) {
  return CommitDecision{entry.at("commit").get<uint64_t>(), entry.at("seq").get<uint64_t>(),
                        entry.at("participants").get<std::vector<std::string>>()};
}

/// Lines of the file log between compactions: about a day of one commit a second is far more than any needs.
constexpr uint64_t kCompactAfterLines = 10000;

}  // namespace

uint64_t MemoryCommitLog::lastCommitSeq() {
  std::lock_guard lock(mutex_);
  return lastSeq_;
}

void MemoryCommitLog::recordCommit(const CommitDecision& decision) {
  std::lock_guard lock(mutex_);
  lastSeq_ = std::max(lastSeq_, decision.commitSeq);
  pending_[decision.transactionId] = decision;
}

void MemoryCommitLog::forget(uint64_t transactionId) {
  std::lock_guard lock(mutex_);
  pending_.erase(transactionId);
}

std::map<uint64_t, CommitDecision> MemoryCommitLog::pending() {
  std::lock_guard lock(mutex_);
  return pending_;
}

FileCommitLog::FileCommitLog(std::filesystem::path file) : file_(std::move(file)) {
  if (std::ifstream in(file_); in) {
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      try {
        json entry = json::parse(line);
        if (entry.contains("commit")) {
          CommitDecision decision = decisionFromJson(entry);
          lastSeq_ = std::max(lastSeq_, decision.commitSeq);
          pending_[decision.transactionId] = std::move(decision);
        } else if (entry.contains("forget")) {
          pending_.erase(entry.at("forget").get<uint64_t>());
        } else if (entry.contains("last_seq")) {
          lastSeq_ = std::max(lastSeq_, entry.at("last_seq").get<uint64_t>());
        }
      } catch (const json::exception&) {
        // Only the last line can be torn (a crash while appending it): its commit never returned.
        spdlog::warn("{}: ignoring a torn record", file_.string());
      }
      ++lines_;
    }
  }
  std::lock_guard lock(mutex_);
  compact();
}

FileCommitLog::~FileCommitLog() {
  if (fd_ >= 0) ::close(fd_);
}

void FileCommitLog::append(const std::string& line, bool sync) {
  std::string text = line + "\n";
  size_t written = 0;
  while (written < text.size()) {
    ssize_t n = ::write(fd_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not write {}: {}", file_.string(), strerror(errno));
    written += static_cast<size_t>(n);
  }
  if (sync && ::fdatasync(fd_) != 0) {
    SHOAL_USER_FAIL(SqlState::kIoError, "could not fsync {}: {}", file_.string(), strerror(errno));
  }
  ++lines_;
}

void FileCommitLog::compact() {
  std::filesystem::path temporary = file_;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << json{{"last_seq", lastSeq_}}.dump() << "\n";
    for (const auto& [id, decision] : pending_) out << decisionToJson(decision).dump() << "\n";
    if (!out.flush()) SHOAL_USER_FAIL(SqlState::kIoError, "could not write {}", temporary.string());
  }
  int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  std::filesystem::rename(temporary, file_);
  int directory = ::open(file_.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory >= 0) {
    ::fsync(directory);
    ::close(directory);
  }
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) SHOAL_USER_FAIL(SqlState::kIoError, "could not open {}: {}", file_.string(), strerror(errno));
  lines_ = 1 + pending_.size();
}

uint64_t FileCommitLog::lastCommitSeq() {
  std::lock_guard lock(mutex_);
  return lastSeq_;
}

void FileCommitLog::recordCommit(const CommitDecision& decision) {
  std::lock_guard lock(mutex_);
  append(decisionToJson(decision).dump(), true);
  lastSeq_ = std::max(lastSeq_, decision.commitSeq);
  pending_[decision.transactionId] = decision;
}

void FileCommitLog::forget(uint64_t transactionId) {
  std::lock_guard lock(mutex_);
  if (pending_.erase(transactionId) == 0) return;
  // Not synced: a forget lost in a crash only makes the next coordinator tell the workers again.
  append(json{{"forget", transactionId}}.dump(), false);
  if (lines_ > kCompactAfterLines) compact();
}

std::map<uint64_t, CommitDecision> FileCommitLog::pending() {
  std::lock_guard lock(mutex_);
  return pending_;
}

EtcdCommitLog::EtcdCommitLog(etcd::EtcdClient& client, std::string clusterPrefix)
    : client_(client), prefix_(std::move(clusterPrefix) + "transactions/") {}

std::string EtcdCommitLog::describe() const {
  return "etcd at " + client_.endpoints() + ", under " + prefix_;
}

uint64_t EtcdCommitLog::lastCommitSeq() {
  for (const auto& kv : client_.getPrefix(prefix_ + "commit_seq")) {
    if (kv.key == prefix_ + "commit_seq") return std::stoull(kv.value);
  }
  return 0;
}

void EtcdCommitLog::recordCommit(const CommitDecision& decision) {
  client_.commit({{prefix_ + "commit_seq", std::to_string(decision.commitSeq)},
                  {prefix_ + "decided/" + std::to_string(decision.transactionId), decisionToJson(decision).dump()}},
                 {});
}

void EtcdCommitLog::forget(uint64_t transactionId) {
  client_.remove(prefix_ + "decided/" + std::to_string(transactionId));
}

std::map<uint64_t, CommitDecision> EtcdCommitLog::pending() {
  std::map<uint64_t, CommitDecision> decisions;
  for (const auto& kv : client_.getPrefix(prefix_ + "decided/")) {
    try {
      CommitDecision decision = decisionFromJson(json::parse(kv.value));
      decisions[decision.transactionId] = std::move(decision);
    } catch (const json::exception& error) {
      spdlog::error("etcd key {} is not a commit decision: {}", kv.key, error.what());
    }
  }
  return decisions;
}

}  // namespace shoal::coordinator
