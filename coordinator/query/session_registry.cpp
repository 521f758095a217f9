#include "coordinator/query/session_registry.h"

#include <chrono>

namespace shoal::coordinator {

int64_t SessionRegistry::nowMicros() {
  const auto sinceEpoch = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::microseconds>(sinceEpoch).count();
}

void SessionRegistry::add(SessionActivity activity) {
  std::lock_guard lock(mutex_);
  const int32_t processId = activity.processId;
  sessions_[processId] = std::move(activity);
}

void SessionRegistry::remove(int32_t processId) {
  std::lock_guard lock(mutex_);
  sessions_.erase(processId);
}

void SessionRegistry::startQuery(int32_t processId, std::string query, std::optional<int64_t> transactionStart) {
  const int64_t now = nowMicros();
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(processId);
  if (found == sessions_.end()) return;
  SessionActivity& activity = found->second;
  activity.query = std::move(query);
  activity.queryStart = now;
  activity.transactionStart = transactionStart.value_or(now);
  if (activity.state != "active") activity.stateChange = now;
  activity.state = "active";
}

void SessionRegistry::becomeIdle(int32_t processId, std::string state, std::optional<int64_t> transactionStart,
                                 std::string applicationName) {
  const int64_t now = nowMicros();
  std::lock_guard lock(mutex_);
  auto found = sessions_.find(processId);
  if (found == sessions_.end()) return;
  SessionActivity& activity = found->second;
  if (activity.state != state) activity.stateChange = now;
  activity.state = std::move(state);
  activity.transactionStart = transactionStart;
  activity.applicationName = std::move(applicationName);
}

std::vector<SessionActivity> SessionRegistry::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<SessionActivity> all;
  all.reserve(sessions_.size());
  for (const auto& [processId, activity] : sessions_) all.push_back(activity);
  return all;
}

}  // namespace shoal::coordinator
