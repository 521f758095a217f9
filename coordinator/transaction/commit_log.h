#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shoal::etcd {
class EtcdClient;
}

namespace shoal::coordinator {

/// The coordinator's decision that a transaction commits: its place in the cluster-wide commit sequence
/// and the workers that must apply it.
struct CommitDecision {
  uint64_t transactionId = 0;
  uint64_t commitSeq = 0;
  std::vector<std::string> participants;
};

/// Where the decisions of the two-phase commit are recorded, and the commit sequence with them. A decision
/// is durable once recordCommit returns: from then on the transaction is committed, whatever crashes, and a
/// worker (or coordinator) that restarts in doubt applies it. A transaction with no decision recorded is
/// aborted (presumed abort). A decision is forgotten once every participant applied it.
class CommitLog {
 public:
  virtual ~CommitLog() = default;
  /// The highest commit sequence number ever recorded (0: none).
  virtual uint64_t lastCommitSeq() = 0;
  /// Records `decision` durably; its commitSeq must exceed every one recorded before.
  virtual void recordCommit(const CommitDecision& decision) = 0;
  /// Forgets a decision every participant applied.
  virtual void forget(uint64_t transactionId) = 0;
  /// The decisions recorded and not forgotten, by transaction id.
  virtual std::map<uint64_t, CommitDecision> pending() = 0;
  /// Where the log lives, for messages.
  virtual std::string describe() const = 0;
};

/// A coordinator without a data directory or etcd: decisions live as long as the process (as its catalog does).
class MemoryCommitLog final : public CommitLog {
 public:
  uint64_t lastCommitSeq() override;
  void recordCommit(const CommitDecision& decision) override;
  void forget(uint64_t transactionId) override;
  std::map<uint64_t, CommitDecision> pending() override;
  std::string describe() const override { return "memory (no --data-dir)"; }

 private:
  std::mutex mutex_;
  uint64_t lastSeq_ = 0;                        // guarded by mutex_
  std::map<uint64_t, CommitDecision> pending_;  // guarded by mutex_
};

/// Decisions in the coordinator's data directory: an append-only file of JSON lines ("commit" and "forget"),
/// fsynced after each commit record; rewritten without forgotten decisions when it grows.
class FileCommitLog final : public CommitLog {
 public:
  explicit FileCommitLog(std::filesystem::path file);
  ~FileCommitLog() override;

  uint64_t lastCommitSeq() override;
  void recordCommit(const CommitDecision& decision) override;
  void forget(uint64_t transactionId) override;
  std::map<uint64_t, CommitDecision> pending() override;
  std::string describe() const override { return "commit log " + file_.string(); }

 private:
  void append(const std::string& line, bool sync);
  /// Rewrites the file with only the pending decisions (and the sequence); mutex_ held.
  void compact();

  const std::filesystem::path file_;
  std::mutex mutex_;
  int fd_ = -1;                                 // guarded by mutex_
  uint64_t lastSeq_ = 0;                        // guarded by mutex_
  uint64_t lines_ = 0;                          // guarded by mutex_: in the file
  std::map<uint64_t, CommitDecision> pending_;  // guarded by mutex_
};

/// Decisions in etcd, so that a coordinator started on another host continues the sequence and finishes what
/// this one decided: `<prefix>transactions/commit_seq` and one key per pending decision under
/// `<prefix>transactions/decided/`, written together in one etcd transaction.
class EtcdCommitLog final : public CommitLog {
 public:
  EtcdCommitLog(etcd::EtcdClient& client, std::string clusterPrefix);

  uint64_t lastCommitSeq() override;
  void recordCommit(const CommitDecision& decision) override;
  void forget(uint64_t transactionId) override;
  std::map<uint64_t, CommitDecision> pending() override;
  std::string describe() const override;

 private:
  etcd::EtcdClient& client_;
  const std::string prefix_;  // <cluster prefix>transactions/
};

}  // namespace shoal::coordinator
