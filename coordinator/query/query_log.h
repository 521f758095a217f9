#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "coordinator/query/shuffle_figures.h"

namespace shoal::coordinator {

/// One statement as shoal_queries shows it.
struct QueryRecord {
  uint64_t id = 0;
  std::string text;
  /// The role whose session ran it: another role sees its text only with that role's privileges.
  std::string user;
  std::string state;  // running, done, failed, cancelled, closed (a portal dropped before its last row)
  std::chrono::steady_clock::time_point started;
  std::chrono::steady_clock::time_point finished;  // set once the state is no longer running
  uint64_t rows = 0;
  /// What the query's exchanges did (0 until plans are cut into fragments).
  ShuffleFigures shuffle;
};

/// The statements clients ran through this coordinator: every running one and
/// the most recent finished ones, for the shoal_queries view. Thread-safe.
class QueryLog {
 public:
  static constexpr size_t kFinishedKept = 200;

  /// A running statement's entry; finishing it (or dropping it) moves it to the finished ones.
  class Handle {
   public:
    Handle(QueryLog* log, uint64_t id) : log_(log), id_(id) {}
    Handle(Handle&& other) noexcept : log_(other.log_), id_(other.id_), rows_(other.rows_) { other.log_ = nullptr; }
    Handle& operator=(Handle&& other) noexcept {
      if (this != &other) {
        if (log_ != nullptr) log_->finish(id_, "closed", rows_);
        log_ = other.log_;
        id_ = other.id_;
        rows_ = other.rows_;
        other.log_ = nullptr;
      }
      return *this;
    }
    Handle(const Handle&) = delete;
    ~Handle() {
      if (log_ != nullptr) log_->finish(id_, "closed", rows_);
    }
    uint64_t id() const { return id_; }
    void addRows(uint64_t rows) { rows_ += rows; }
    /// What the query's exchanges did.
    void addShuffle(const ShuffleFigures& figures) {
      if (log_ != nullptr) log_->addShuffle(id_, figures);
    }
    void finish(std::string_view state) {
      if (log_ != nullptr) log_->finish(id_, state, rows_);
      log_ = nullptr;
    }

   private:
    QueryLog* log_;
    uint64_t id_;
    uint64_t rows_ = 0;
  };

  Handle start(std::string text, std::string user);
  /// Running statements first (oldest first), then finished ones (newest first).
  std::vector<QueryRecord> snapshot() const;

 private:
  void finish(uint64_t id, std::string_view state, uint64_t rows);
  void addShuffle(uint64_t id, const ShuffleFigures& figures);

  mutable std::mutex mutex_;
  uint64_t nextId_ = 1;
  std::map<uint64_t, QueryRecord> running_;
  std::deque<QueryRecord> finished_;  // newest at the front
};

}  // namespace shoal::coordinator
