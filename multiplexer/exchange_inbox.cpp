#include "multiplexer/exchange_inbox.h"

#include <algorithm>

#include "common/check.h"
#include "multiplexer/heap_message.h"

namespace shoal::multiplexer {

ExchangeInbox::ExchangeInbox(ExchangeId id, uint32_t numaNodes, uint32_t clusterNodes,
                             std::shared_ptr<ReceiveSide> receiveSide)
    : id_(id), receiveSide_(std::move(receiveSide)), queues_(numaNodes), senderFinished_(clusterNodes, false) {
  SHOAL_CHECK(numaNodes > 0 && clusterNodes > 0, "inbox needs nodes");
  consumed_.locally.assign(numaNodes, 0);
  consumed_.stolen.assign(numaNodes, 0);
}

ExchangeInbox::~ExchangeInbox() {
  clearHeapAccount();
  for (auto& queue : queues_) {
    for (const Queued& queued : queue) queued.message->release();
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
  notifyChanged();
}

void ExchangeInbox::deliver(Message* message) {
  NodeId sender = message->sender();
  SHOAL_CHECK_LT(sender, senderFinished_.size(), "message from an unknown node");
  std::vector<Message*> released;
  {
    std::lock_guard lock(mutex_);
    if (senderFinished_[sender] || failure_) {
      // A message after the sender's last one, or into a failed stream: drop it.
      released.push_back(message);
    } else {
      if (message->isLast()) {
        senderFinished_[sender] = true;
        ++sendersFinished_;
      }
      if (message->payloadSize() == 0) {
        released.push_back(message);
      } else if (mustWaitOnHeapLocked()) {
        // The consumer cannot run now: the message waits as a copy, and its buffer goes back at once.
        released.push_back(message);
        if (Message* copy = copyLocked(*message)) {
          queues_[sender % queues_.size()].push_back(Queued{copy, true});
          ++queued_;
        } else {
          takeAllLocked(released);  // the stream failed: nothing of it waits any more
        }
      } else {
        queues_[sender % queues_.size()].push_back(Queued{message, false});
        ++queued_;
      }
    }
  }
  for (Message* done : released) done->release();
  notifyChanged();
}

bool ExchangeInbox::mustWaitOnHeapLocked() const {
  // An inbox no consumer opened yet holds its messages in their buffers (its senders wait): its consumer
  // opens it as its query starts here, on a thread of its own, and what it holds moves then if need be.
  if (receiveSide_ == nullptr || !opened_) return false;
  return !consumerReady_ || receiveSide_->producersWaiting();
}

void ExchangeInbox::markOpened() {
  std::lock_guard lock(mutex_);
  opened_ = true;
}

Message* ExchangeInbox::copyLocked(const Message& message) {
  const uint32_t bytes = message.payloadSize();
  Message* copy = nullptr;
  try {
    copy = copyToHeap(message);
  } catch (const std::bad_alloc&) {
    if (!failure_) failure_ = Status(SqlState::kOutOfMemory, "out of memory for a waiting exchange message");
    return nullptr;
  }
  Status charged = heapAccount_ ? heapAccount_(bytes) : Status::ok();
  if (!charged.isOk()) {
    copy->release();
    if (!failure_) failure_ = charged;
    return nullptr;
  }
  heapBytes_ += bytes;
  receiveSide_->countHeapCopy(bytes);
  return copy;
}

void ExchangeInbox::setConsumerReady(bool ready) {
  {
    std::lock_guard lock(mutex_);
    consumerReady_ = ready;
  }
  if (!ready) moveBuffersToHeap();  // what came before the consumer said so waits on the heap too
}

void ExchangeInbox::moveBuffersToHeap() {
  std::vector<Message*> released;
  bool failed = false;
  {
    std::lock_guard lock(mutex_);
    if (receiveSide_ == nullptr || !opened_) return;
    for (auto& queue : queues_) {
      for (Queued& queued : queue) {
        if (queued.onHeap || failure_) continue;
        Message* copy = copyLocked(*queued.message);
        if (copy == nullptr) break;
        released.push_back(queued.message);
        queued = Queued{copy, true};
      }
    }
    if (failure_) {
      takeAllLocked(released);
      failed = true;
    }
  }
  for (Message* message : released) message->release();
  if (failed) notifyChanged();
}

void ExchangeInbox::failSender(NodeId sender, const Status& reason) {
  std::vector<Message*> dropped;
  {
    std::lock_guard lock(mutex_);
    if (sender >= senderFinished_.size() || senderFinished_[sender] || failure_) return;
    failure_ = reason;
    takeAllLocked(dropped);
  }
  for (Message* message : dropped) message->release();
  notifyChanged();
}

void ExchangeInbox::fail(const Status& reason) {
  std::vector<Message*> dropped;
  {
    std::lock_guard lock(mutex_);
    if (!failure_) failure_ = reason;
    takeAllLocked(dropped);
  }
  for (Message* message : dropped) message->release();
  notifyChanged();
}

void ExchangeInbox::takeAllLocked(std::vector<Message*>& taken) {
  // A failed stream is read no further: its messages go back now, not when the query ends.
  for (auto& queue : queues_) {
    for (const Queued& queued : queue) taken.push_back(queued.message);
    queue.clear();
  }
  queued_ = 0;
  if (heapAccount_ && heapBytes_ > 0) (void)heapAccount_(-static_cast<int64_t>(heapBytes_));
  heapBytes_ = 0;
}

void ExchangeInbox::notifyChanged() {
  arrived_.notify_all();
  std::lock_guard lock(listenerMutex_);
  if (listener_) listener_();
}

void ExchangeInbox::setListener(std::function<void()> listener) {
  std::lock_guard lock(listenerMutex_);
  listener_ = std::move(listener);
}

void ExchangeInbox::clearListener() {
  std::lock_guard lock(listenerMutex_);
  listener_ = nullptr;
}

Message* ExchangeInbox::popLocked(uint32_t numaNode, bool steal) {
  if (queued_ == 0) return nullptr;
  size_t home = numaNode % queues_.size();
  for (size_t step = 0; step < (steal ? queues_.size() : 1); ++step) {
    auto& queue = queues_[(home + step) % queues_.size()];
    if (queue.empty()) continue;
    Queued queued = queue.front();
    queue.pop_front();
    --queued_;
    if (step > 0) ++stolen_;
    ++(step > 0 ? consumed_.stolen : consumed_.locally)[home];
    if (receiveSide_ != nullptr) receiveSide_->countConsumed(numaNode, step > 0);
    if (queued.onHeap) {
      heapBytes_ -= queued.message->payloadSize();
      if (heapAccount_) (void)heapAccount_(-static_cast<int64_t>(queued.message->payloadSize()));
    }
    return queued.message;
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

ExchangeInbox::Received ExchangeInbox::tryReceive(uint32_t numaNode, bool steal) {
  std::lock_guard lock(mutex_);
  Received result;
  if (failure_) {
    result.status = *failure_;
    return result;
  }
  result.message = popLocked(numaNode, steal);
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

ExchangeInbox::Consumed ExchangeInbox::consumed() const {
  std::lock_guard lock(mutex_);
  return consumed_;
}

void ExchangeInbox::setHeapAccount(HeapAccount account) {
  std::vector<Message*> released;
  {
    std::lock_guard lock(mutex_);
    if (heapAccount_ && heapBytes_ > 0) (void)heapAccount_(-static_cast<int64_t>(heapBytes_));
    heapAccount_ = std::move(account);
    if (!heapAccount_ || heapBytes_ == 0) return;
    Status charged = heapAccount_(static_cast<int64_t>(heapBytes_));
    if (charged.isOk()) return;
    if (!failure_) failure_ = charged;
    // Nothing of what waits is charged: it goes without a charge to give back.
    HeapAccount account = std::move(heapAccount_);
    heapAccount_ = nullptr;
    takeAllLocked(released);
    heapAccount_ = std::move(account);
  }
  for (Message* message : released) message->release();
  notifyChanged();
}

void ExchangeInbox::clearHeapAccount() {
  std::lock_guard lock(mutex_);
  if (heapAccount_ && heapBytes_ > 0) (void)heapAccount_(-static_cast<int64_t>(heapBytes_));
  heapAccount_ = nullptr;
}

uint64_t ExchangeInbox::heapBytes() const {
  std::lock_guard lock(mutex_);
  return heapBytes_;
}

}  // namespace shoal::multiplexer
