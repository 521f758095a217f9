#include "multiplexer/exchange_inbox.h"

#include <algorithm>

#include "common/check.h"

namespace shoal::multiplexer {

ExchangeInbox::ExchangeInbox(ExchangeId id, uint32_t numaNodes, uint32_t clusterNodes)
    : id_(id), queues_(numaNodes), senderFinished_(clusterNodes, false) {
  SHOAL_CHECK(numaNodes > 0 && clusterNodes > 0, "inbox needs nodes");
}

ExchangeInbox::~ExchangeInbox() {
  for (auto& queue : queues_) {
    for (Message* message : queue) message->release();
  }
}

void ExchangeInbox::expectSendersOnly(const std::vector<NodeId>& senders) {
  {
    std::lock_guard lock(mutex_);
    for (NodeId node = 0; node < senderFinished_.size(); ++node) {
      bool expected = std::find(senders.begin(), senders.end(), node) != senders.end();
      if (!expected && !senderFinished_[node]) {
        senderFinished_[node] = true;
        ++sendersFinished_;
      }
    }
  }
  arrived_.notify_all();
}

void ExchangeInbox::deliver(Message* message) {
  NodeId sender = message->sender();
  SHOAL_CHECK_LT(sender, senderFinished_.size(), "message from an unknown node");
  {
    std::lock_guard lock(mutex_);
    if (senderFinished_[sender] || failure_) {
      // A message after the sender's last one, or into a failed stream: drop it.
      message->release();
      return;
    }
    if (message->isLast()) {
      senderFinished_[sender] = true;
      ++sendersFinished_;
    }
    if (message->payloadSize() > 0) {
      queues_[sender % queues_.size()].push_back(message);
      ++queued_;
      message = nullptr;
    }
  }
  if (message != nullptr) message->release();
  arrived_.notify_all();
}

void ExchangeInbox::failSender(NodeId sender, const Status& reason) {
  {
    std::lock_guard lock(mutex_);
    if (sender >= senderFinished_.size() || senderFinished_[sender] || failure_) return;
    failure_ = reason;
  }
  arrived_.notify_all();
}

void ExchangeInbox::fail(const Status& reason) {
  {
    std::lock_guard lock(mutex_);
    if (!failure_) failure_ = reason;
  }
  arrived_.notify_all();
}

Message* ExchangeInbox::popLocked(uint32_t numaNode) {
  if (queued_ == 0) return nullptr;
  size_t home = numaNode % queues_.size();
  for (size_t step = 0; step < queues_.size(); ++step) {
    auto& queue = queues_[(home + step) % queues_.size()];
    if (queue.empty()) continue;
    Message* message = queue.front();
    queue.pop_front();
    --queued_;
    if (step > 0) ++stolen_;
    return message;
  }
  return nullptr;
}

bool ExchangeInbox::endedLocked() const {
  return queued_ == 0 && sendersFinished_ == senderFinished_.size();
}

ExchangeInbox::Received ExchangeInbox::receive(uint32_t numaNode, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  Received result;
  bool ready = arrived_.wait_for(lock, timeout, [&] {
    if (failure_) return true;
    result.message = popLocked(numaNode);
    return result.message != nullptr || endedLocked();
  });
  if (failure_ && result.message == nullptr) {
    result.status = *failure_;
  } else if (!ready) {
    result.status = Status(SqlState::kConnectionFailure,
                           fmt::format("no message for exchange {} within {} ms", id_, timeout.count()));
  }
  return result;
}

ExchangeInbox::Received ExchangeInbox::tryReceive(uint32_t numaNode) {
  std::lock_guard lock(mutex_);
  Received result;
  result.message = popLocked(numaNode);
  if (result.message == nullptr && failure_) result.status = *failure_;
  return result;
}

bool ExchangeInbox::finished() const {
  std::lock_guard lock(mutex_);
  return endedLocked();
}

uint64_t ExchangeInbox::stolenMessages() const {
  std::lock_guard lock(mutex_);
  return stolen_;
}

}  // namespace shoal::multiplexer
