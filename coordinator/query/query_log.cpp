#include "coordinator/query/query_log.h"

namespace shoal::coordinator {

QueryLog::Handle QueryLog::start(std::string text, std::string user) {
  std::lock_guard lock(mutex_);
  const uint64_t id = nextId_++;
  QueryRecord& record = running_[id];
  record.id = id;
  record.text = std::move(text);
  record.user = std::move(user);
  record.state = "running";
  record.started = std::chrono::steady_clock::now();
  return Handle(this, id);
}

void QueryLog::finish(uint64_t id, std::string_view state, uint64_t rows) {
  std::lock_guard lock(mutex_);
  auto found = running_.find(id);
  if (found == running_.end()) return;
  QueryRecord record = std::move(found->second);
  running_.erase(found);
  record.state = std::string(state);
  record.rows = rows;
  record.finished = std::chrono::steady_clock::now();
  finished_.push_front(std::move(record));
  if (finished_.size() > kFinishedKept) finished_.pop_back();
}

void QueryLog::addShuffle(uint64_t id, const ShuffleFigures& figures) {
  std::lock_guard lock(mutex_);
  auto found = running_.find(id);
  if (found == running_.end()) return;
  found->second.shuffle += figures;
}

std::vector<QueryRecord> QueryLog::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<QueryRecord> records;
  records.reserve(running_.size() + finished_.size());
  for (const auto& [id, record] : running_) records.push_back(record);
  records.insert(records.end(), finished_.begin(), finished_.end());
  return records;
}

}  // namespace shoal::coordinator
