#include "multiplexer/multiplexer.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/check.h"
#include "multiplexer/rdma_transport.h"
#include "multiplexer/tcp_transport.h"

namespace shoal::multiplexer {
namespace {

/// How long a producer waits for a send buffer before it counts as stalled (Multiplexer::acquire).
constexpr std::chrono::milliseconds kProducerGrace{100};

/// Data messages handed to one link and not yet completed: enough to keep a
/// link busy, few enough that the schedule still decides the order.
constexpr size_t kMaxDataInFlightPerLink = 8;
/// Receive buffers beyond the credit window per peer (RDMA control frames land in them).
constexpr uint32_t kReceiveSlackPerPeer = 4;

}  // namespace

std::string_view transportChoiceName(TransportChoice choice) {
  switch (choice) {
    case TransportChoice::kAuto:
      return "auto";
    case TransportChoice::kRdma:
      return "rdma";
    case TransportChoice::kTcp:
      return "tcp";
  }
  return "?";
}

std::optional<TransportChoice> parseTransportChoice(std::string_view text) {
  if (text == "auto") return TransportChoice::kAuto;
  if (text == "rdma") return TransportChoice::kRdma;
  if (text == "tcp") return TransportChoice::kTcp;
  return std::nullopt;
}

Multiplexer::Multiplexer(MultiplexerOptions options)
    : options_(std::move(options)),
      topology_(options_.fakeNumaNodes > 0 ? NumaTopology::fake(options_.fakeNumaNodes) : NumaTopology::detect()) {
  uint32_t nodes = clusterSize();
  SHOAL_CHECK(nodes >= 1 && options_.self < nodes, "node {} of a {}-node cluster", options_.self, nodes);
  SHOAL_CHECK(options_.receiveWindow >= 1, "receive window must be positive");
  MessagePoolOptions sendOptions;
  sendOptions.messageBytes = options_.messageBytes;
  sendOptions.maxMessagesPerNode = options_.sendMessagesPerNumaNode;
  sendOptions.messagesPerSlab = std::min<uint32_t>(8, options_.sendMessagesPerNumaNode);
  sendPool_ = std::make_unique<MessagePool>(topology_, sendOptions);
  // Peer p's receive buffers live on NUMA node p mod nodes; size each node's
  // share for the credit window of every peer it serves, plus slack.
  uint32_t peersPerNumaNode = (nodes + topology_.numNodes() - 1) / topology_.numNodes();
  MessagePoolOptions receiveOptions;
  receiveOptions.messageBytes = options_.messageBytes;
  receiveOptions.maxMessagesPerNode = (options_.receiveWindow + kReceiveSlackPerPeer) * peersPerNumaNode;
  receiveOptions.messagesPerSlab = options_.receiveWindow + kReceiveSlackPerPeer;
  receivePool_ = std::make_unique<MessagePool>(topology_, receiveOptions);
  receivePool_->setReturnHandler([this](Message* message) { onReceiveReleased(message); });
  receiveSide_ = std::make_shared<ReceiveSide>(topology_.numNodes());
  peers_.resize(nodes);
  peerStatus_.resize(nodes);
  for (NodeId node = 0; node < nodes; ++node) peers_[node].id = node;
  if (options_.schedule == ScheduleKind::kRoundRobin && nodes >= 2) {
    roundRobin_.emplace(options_.self, nodes, options_.messagesPerPhase);
  }
}

Multiplexer::~Multiplexer() {
  shutdown(std::chrono::milliseconds(0));
}

Status Multiplexer::chooseTransports() {
  LinkIdentity identity;
  identity.self = options_.self;
  identity.nodes = options_.nodes;
  identity.clusterId = options_.clusterId;
  identity.secret = options_.secret;
  identity.receiveWindow = options_.receiveWindow;
  identity.messageBytes = static_cast<uint32_t>(options_.messageBytes);
  if (options_.transport != TransportChoice::kTcp) {
    std::string whyNot;
    auto rdma = RdmaTransport::create(identity, options_.busyPoll, &whyNot);
    if (rdma == nullptr) {
      if (options_.transport == TransportChoice::kRdma) {
        return Status(SqlState::kConnectionFailure, "--transport rdma, but " + whyNot);
      }
      spdlog::info("multiplexer: {}; using TCP for every peer", whyNot);
    } else {
      rdma_ = rdma.get();
      transports_.push_back(std::move(rdma));
    }
  }
  if (options_.transport != TransportChoice::kRdma) {
    transports_.push_back(std::make_unique<TcpTransport>(identity));
    tcp_ = transports_.back().get();
  }
  for (NodeId node = 0; node < options_.self; ++node) {
    Peer& peer = peers_[node];
    if (rdma_ == nullptr) {
      peer.connectVia = tcp_;
      continue;
    }
    std::string whyNot;
    if (static_cast<RdmaTransport*>(rdma_)->canReach(node, &whyNot)) {
      peer.connectVia = rdma_;
      spdlog::info("multiplexer: node {} at {} is reachable over RDMA; using rdma", node,
                   options_.nodes[node].toString());
    } else if (tcp_ != nullptr) {
      peer.connectVia = tcp_;
      spdlog::info("multiplexer: node {} at {}: {}; using tcp", node, options_.nodes[node].toString(), whyNot);
    } else {
      return Status(SqlState::kConnectionFailure, fmt::format("--transport rdma, but node {} at {}: {}", node,
                                                              options_.nodes[node].toString(), whyNot));
    }
  }
  return Status::ok();
}

Status Multiplexer::start() {
  SHOAL_CHECK(!started_.exchange(true), "multiplexer started twice");
  Status chosen = chooseTransports();
  if (!chosen.isOk()) return chosen;
  for (auto& transport : transports_) {
    if (transport.get() == rdma_) {
      MemoryRegistrar registrar = static_cast<RdmaTransport*>(rdma_)->registrar();
      sendPool_->setRegistrar(registrar);
      receivePool_->setRegistrar(registrar);
    }
    Status started = transport->start(loop_, *this, *receivePool_);
    if (!started.isOk()) return started;
  }
  auto now = Clock::now();
  for (Peer& peer : peers_) peer.nextConnectAttempt = now;
  acceptingSends_ = true;
  networkThread_ = std::thread([this] { networkThreadMain(); });
  return Status::ok();
}

bool Multiplexer::waitForPeers(std::chrono::milliseconds timeout) {
  std::unique_lock lock(statusMutex_);
  return statusChanged_.wait_for(lock, timeout, [&] {
    for (NodeId node = 0; node < clusterSize(); ++node) {
      if (node != options_.self && peerStatus_[node].state != PeerState::kConnected) return false;
    }
    return true;
  });
}

void Multiplexer::shutdown(std::chrono::milliseconds drainTimeout) {
  if (!started_.load() || stopRequested_.load()) return;
  acceptingSends_ = false;
  drainDeadline_ = Clock::now() + drainTimeout;
  stopRequested_ = true;
  wakeNetworkThread();
  if (networkThread_.joinable()) networkThread_.join();
  for (auto& transport : transports_) transport->stop();
  {
    std::lock_guard lock(submissionMutex_);
    networkStopped_ = true;
    for (Message* message : releasedReceives_) receivePool_->giveBack(message);
    releasedReceives_.clear();
  }
  std::unordered_map<ExchangeId, std::shared_ptr<ExchangeInbox>> inboxes;
  {
    std::lock_guard lock(inboxMutex_);
    inboxes.swap(inboxes_);
  }
  for (auto& [id, inbox] : inboxes) {
    inbox->fail(
        Status(SqlState::kAdminShutdown, "the multiplexer of node " + std::to_string(options_.self) + " shut down"));
  }
  sendPool_->close();
}

void Multiplexer::wakeNetworkThread() {
  if (!wakePending_.exchange(true)) loop_.wake();
}

Message* Multiplexer::acquire(uint32_t numaNode, std::chrono::milliseconds timeout) {
  const uint32_t node = numaNode % topology_.numNodes();
  // Buffers come back as the network sends: a short wait is the network's pace, not a stall.
  const auto grace = std::min<std::chrono::milliseconds>(timeout, kProducerGrace);
  if (Message* message = sendPool_->acquire(node, grace)) return message;
  if (grace == timeout) return nullptr;
  // This producer is stalled on the network. What waits for consumers here moves to the heap while it is,
  // so that no credit (and none of this node's own send buffers) stays held by a consumer that may need this
  // very thread to run (ReceiveSide).
  receiveSide_->producerWaits(true);
  struct Resume {
    ReceiveSide& side;
    ~Resume() { side.producerWaits(false); }
  } resume{*receiveSide_};
  std::vector<std::shared_ptr<ExchangeInbox>> inboxes;
  {
    std::lock_guard lock(inboxMutex_);
    for (auto& [id, inbox] : inboxes_) inboxes.push_back(inbox);
  }
  for (auto& inbox : inboxes) inbox->moveBuffersToHeap();
  return sendPool_->acquire(node, timeout - grace);
}

Status Multiplexer::peerLostStatus(NodeId node) const {
  std::lock_guard lock(statusMutex_);
  return Status(
      SqlState::kConnectionFailure,
      fmt::format("node {} at {} is lost: {}", node, options_.nodes[node].toString(), peerStatus_[node].lostReason));
}

Status Multiplexer::send(NodeId destination, Message* message) {
  SHOAL_CHECK_LT(destination, clusterSize(), "send to an unknown node");
  message->setSender(options_.self);
  if (!acceptingSends_.load()) {
    message->release();
    return Status(SqlState::kAdminShutdown, "the multiplexer is shutting down");
  }
  if (destination == options_.self) {
    deliverLocally(message);
    return Status::ok();
  }
  if (peerStatus(destination).state == PeerState::kLost) {
    message->release();
    return peerLostStatus(destination);
  }
  message->writeFrameHeader();
  {
    std::lock_guard lock(submissionMutex_);
    submissions_.push_back({destination, message});
  }
  wakeNetworkThread();
  return Status::ok();
}

Status Multiplexer::broadcast(Message* message, bool includeSelf) {
  message->setSender(options_.self);
  if (!acceptingSends_.load()) {
    message->release();
    return Status(SqlState::kAdminShutdown, "the multiplexer is shutting down");
  }
  for (NodeId node = 0; node < clusterSize(); ++node) {
    if (node != options_.self && peerStatus(node).state == PeerState::kLost) {
      message->release();
      return peerLostStatus(node);
    }
  }
  uint32_t remote = clusterSize() - 1;
  uint32_t references = remote + (includeSelf ? 1 : 0);
  if (references == 0) {
    message->release();
    return Status::ok();
  }
  message->retain(references - 1);
  message->writeFrameHeader();
  if (remote > 0) {
    std::lock_guard lock(submissionMutex_);
    for (NodeId node = 0; node < clusterSize(); ++node) {
      if (node != options_.self) submissions_.push_back({node, message});
    }
  }
  if (remote > 0) wakeNetworkThread();
  if (includeSelf) deliverLocally(message);
  return Status::ok();
}

std::shared_ptr<ExchangeInbox> Multiplexer::openExchange(ExchangeId id) {
  std::lock_guard lock(inboxMutex_);
  unopenedSince_.erase(id);
  auto& inbox = inboxes_[id];
  if (inbox == nullptr) inbox = std::make_shared<ExchangeInbox>(id, topology_.numNodes(), clusterSize(), receiveSide_);
  inbox->markOpened();
  return inbox;
}

void Multiplexer::closeExchange(ExchangeId id) {
  std::shared_ptr<ExchangeInbox> inbox;
  {
    std::lock_guard lock(inboxMutex_);
    auto it = inboxes_.find(id);
    if (it != inboxes_.end()) {
      inbox = std::move(it->second);
      inboxes_.erase(it);
    }
    unopenedSince_.erase(id);
    const Clock::time_point now = Clock::now();
    if (closedExchanges_.insert(id).second) closedOrder_.emplace_back(now, id);
    forgetOldExchangesLocked(now);
  }
  if (inbox != nullptr) inbox->fail(Status(SqlState::kQueryCanceled, "exchange closed"));
}

void Multiplexer::forgetOldExchangesLocked(Clock::time_point now) {
  while (!closedOrder_.empty() && now - closedOrder_.front().first > options_.forgetExchangesAfter) {
    closedExchanges_.erase(closedOrder_.front().second);
    closedOrder_.pop_front();
  }
  for (auto it = unopenedSince_.begin(); it != unopenedSince_.end();) {
    if (now - it->second <= options_.forgetExchangesAfter) {
      ++it;
      continue;
    }
    spdlog::warn("multiplexer: dropping messages for exchange {}, which no query here opened within {} s", it->first,
                 std::chrono::duration_cast<std::chrono::seconds>(options_.forgetExchangesAfter).count());
    inboxes_.erase(it->first);  // its destructor returns the messages' receive buffers
    it = unopenedSince_.erase(it);
  }
}

void Multiplexer::deliverLocally(Message* message) {
  std::shared_ptr<ExchangeInbox> inbox;
  {
    std::lock_guard lock(inboxMutex_);
    if (closedExchanges_.count(message->exchangeId()) == 0) {
      auto& slot = inboxes_[message->exchangeId()];
      if (slot == nullptr) {
        slot =
            std::make_shared<ExchangeInbox>(message->exchangeId(), topology_.numNodes(), clusterSize(), receiveSide_);
        unopenedSince_.emplace(message->exchangeId(), Clock::now());
      }
      inbox = slot;
    }
  }
  if (inbox == nullptr) {
    message->release();
    return;
  }
  inbox->deliver(message);
}

PeerStatus Multiplexer::peerStatus(NodeId node) const {
  std::lock_guard lock(statusMutex_);
  return peerStatus_[node];
}

void Multiplexer::setPeerStatus(NodeId node, PeerState state, const std::string& transport, const std::string& reason) {
  {
    std::lock_guard lock(statusMutex_);
    peerStatus_[node].state = state;
    if (!transport.empty()) peerStatus_[node].transport = transport;
    peerStatus_[node].lostReason = reason;
  }
  statusChanged_.notify_all();
}

MultiplexerStats Multiplexer::stats() const {
  MultiplexerStats stats;
  stats.messagesSent = messagesSent_.load();
  stats.bytesSent = bytesSent_.load();
  stats.messagesReceived = messagesReceived_.load();
  stats.bytesReceived = bytesReceived_.load();
  stats.controlFramesSent = controlFramesSent_.load();
  stats.phases = phases_.load();
  stats.connectionsRefused = connectionsRefused_.load();
  if (rdma_ != nullptr) stats.memoryRegistrations = static_cast<const RdmaTransport*>(rdma_)->registrations();
  for (uint32_t node = 0; node < receiveSide_->numaNodes(); ++node) {
    stats.consumedLocally.push_back(receiveSide_->consumedLocally(node));
    stats.stolen.push_back(receiveSide_->stolen(node));
  }
  stats.heapCopies = receiveSide_->heapCopies();
  stats.heapCopyBytes = receiveSide_->heapCopyBytes();
  return stats;
}

void Multiplexer::onReceiveReleased(Message* message) {
  {
    std::lock_guard lock(submissionMutex_);
    if (!networkStopped_) {
      releasedReceives_.push_back(message);
      message = nullptr;
    }
  }
  if (message != nullptr) {
    receivePool_->giveBack(message);
    return;
  }
  wakeNetworkThread();
}

// ---- network thread ----

void Multiplexer::networkThreadMain() {
  if (options_.networkCpu >= 0) {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(options_.networkCpu, &cpus);
    const int failed = pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
    if (failed != 0) {
      spdlog::warn("multiplexer: cannot pin the network thread to CPU {}: {}", options_.networkCpu,
                   std::strerror(failed));
    } else {
      spdlog::info("multiplexer: the network thread runs on CPU {}", options_.networkCpu);
    }
  }
  for (NodeId node = 0; node < options_.self; ++node) {
    peers_[node].connectPending = true;
    peers_[node].connectVia->connect(node);
  }
  bool goodbyeSent = false;
  while (true) {
    wakePending_.store(false);
    for (auto& transport : transports_) transport->runPending();
    drainSubmissions();
    drainReleasedReceives();
    closedLinks_.clear();
    pumpSends();
    runTimers();
    if (stopRequested_.load() && !goodbyeSent && (allSendsDone() || Clock::now() >= drainDeadline_)) {
      for (Peer& peer : peers_) {
        if (peer.link == nullptr) continue;
        peer.link->sendControl(FrameKind::kGoodbye, 0);
        peer.link->finishSending();
      }
      goodbyeSent = true;
      // Let the goodbyes leave and the peers close their ends (reading until
      // then), so that our close does not reset a connection with unread data.
      for (auto until = Clock::now() + std::chrono::milliseconds(200); Clock::now() < until;) {
        bool anyOpen = false;
        for (Peer& peer : peers_) anyOpen |= peer.link != nullptr;
        if (!anyOpen) break;
        loop_.runOnce(10);
        closedLinks_.clear();
      }
      break;
    }
    bool moreWork = wakePending_.load() || (anySendable() && !stopRequested_.load());
    // Idle, the thread sleeps until the next timer is due rather than on a fixed tick: a connected idle
    // cluster wakes for its heartbeats only.
    int timeoutMs = options_.busyPoll || moreWork ? 0 : millisecondsUntilNextTimer();
    if (stopRequested_.load()) timeoutMs = std::min(timeoutMs, 10);
    loop_.runOnce(timeoutMs);
    if (options_.busyPoll) {
      for (auto& transport : transports_) transport->poll();
    }
  }
  for (Peer& peer : peers_) {
    if (peer.link != nullptr) {
      peer.link->close();
      closedLinks_.push_back(std::move(peer.link));
    }
    failSendQueue(peer);
  }
  closedLinks_.clear();
}

void Multiplexer::drainSubmissions() {
  std::vector<Submission> submissions;
  {
    std::lock_guard lock(submissionMutex_);
    submissions.swap(submissions_);
  }
  for (const Submission& submission : submissions) {
    Peer& peer = peers_[submission.destination];
    if (peer.link == nullptr && peerStatus(submission.destination).state == PeerState::kLost) {
      submission.message->release();
      continue;
    }
    peer.sendQueue.push_back(submission.message);
  }
}

void Multiplexer::drainReleasedReceives() {
  std::vector<Message*> released;
  {
    std::lock_guard lock(submissionMutex_);
    released.swap(releasedReceives_);
  }
  for (Message* message : released) {
    Peer& peer = peers_[message->sender()];
    if (peer.link == nullptr || peer.link->epoch() != message->connectionEpoch()) {
      receivePool_->giveBack(message);  // from a connection that is gone: no credit to return
      continue;
    }
    peer.link->returnReceiveBuffer(message);
    ++peer.creditsToReturn;
    if (peer.creditsToReturn >= std::max<uint32_t>(1, options_.receiveWindow / 4)) {
      sendControl(peer, FrameKind::kCredit, peer.creditsToReturn);
      peer.creditsToReturn = 0;
    }
  }
}

bool Multiplexer::anySendable() const {
  for (const Peer& peer : peers_) {
    if (!peer.sendQueue.empty() && peer.link != nullptr && peer.credits > 0) return true;
  }
  return false;
}

bool Multiplexer::allSendsDone() {
  {
    // A message submitted after this turn's drain (say, a producer's last
    // broadcast just before it asked for shutdown) is not sent yet either.
    std::lock_guard lock(submissionMutex_);
    if (!submissions_.empty()) return false;
  }
  for (const Peer& peer : peers_) {
    if (peer.link == nullptr) continue;
    if (!peer.sendQueue.empty() || peer.link->dataInFlight() > 0) return false;
  }
  return true;
}

void Multiplexer::sendControl(Peer& peer, FrameKind kind, uint64_t value) {
  if (peer.link == nullptr) return;
  peer.link->sendControl(kind, value);
  peer.lastSent = Clock::now();
  controlFramesSent_.fetch_add(1, std::memory_order_relaxed);
}

bool Multiplexer::sendQueued(Peer& peer, uint32_t limit) {
  uint32_t sent = 0;
  while (sent < limit && peer.link != nullptr && !peer.sendQueue.empty() && peer.credits > 0 &&
         peer.link->dataInFlight() < kMaxDataInFlightPerLink) {
    Message* message = peer.sendQueue.front();
    peer.sendQueue.pop_front();
    --peer.credits;
    ++sent;
    messagesSent_.fetch_add(1, std::memory_order_relaxed);
    bytesSent_.fetch_add(message->frameBytes(), std::memory_order_relaxed);
    peer.lastSent = Clock::now();
    peer.link->sendData(message);
    if (roundRobin_) roundRobin_->countSent();
  }
  if (sent > 0) peer.link->flushSends();
  return sent > 0;
}

void Multiplexer::pumpSends() {
  if (roundRobin_) {
    pumpRoundRobin();
  } else {
    pumpFree();
  }
}

void Multiplexer::pumpFree() {
  // Everyone may send to anyone: serve the peers in turn, a few messages each.
  for (size_t step = 0; step < peers_.size(); ++step) {
    Peer& peer = peers_[(freeScheduleCursor_ + step) % peers_.size()];
    sendQueued(peer, kMaxDataInFlightPerLink);
  }
  freeScheduleCursor_ = (freeScheduleCursor_ + 1) % peers_.size();
}

void Multiplexer::pumpRoundRobin() {
  RoundRobinSchedule& schedule = *roundRobin_;
  if (!schedule.started()) {
    bool allConnected = true;
    for (const Peer& peer : peers_) allConnected &= peer.id == options_.self || peer.link != nullptr;
    if (!allConnected) {
      // Until this node reaches every peer there is no common schedule: send freely.
      pumpFree();
      return;
    }
    schedule.start();
    spdlog::debug("multiplexer: node {} starts the round-robin schedule at phase {}", options_.self, schedule.phase());
  }
  for (int rounds = 0; rounds < 64; ++rounds) {
    if (schedule.paused() && anySendable()) schedule.wake();
    if (!schedule.sending()) {
      if (!schedule.advanceIfComplete()) return;
      phases_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    Peer& target = peers_[schedule.target()];
    if (target.link != nullptr) sendQueued(target, schedule.budget());
    bool inFlight = target.link != nullptr && target.link->dataInFlight() > 0;
    bool canSendMore =
        target.link != nullptr && schedule.budget() > 0 && !target.sendQueue.empty() && target.credits > 0;
    if (canSendMore || inFlight) return;  // this phase is still busy (sending, or waiting for sends to complete)
    // This node's part of the phase is over: tell everyone, then move on once they have all told us.
    uint64_t value = schedule.finishLocalPart(anySendable());
    for (Peer& peer : peers_) {
      if (peer.link != nullptr) sendControl(peer, FrameKind::kPhaseDone, value);
    }
  }
}

void Multiplexer::runTimers() {
  auto now = Clock::now();
  for (Peer& peer : peers_) {
    if (peer.id == options_.self) continue;
    if (peer.link != nullptr) {
      if (now - peer.lastHeard > options_.peerTimeout) {
        markLost(peer, fmt::format("nothing heard for {} ms", options_.peerTimeout.count()));
        continue;
      }
      if (now - peer.lastSent > options_.heartbeatInterval) {
        if (peer.creditsToReturn > 0) {
          sendControl(peer, FrameKind::kCredit, peer.creditsToReturn);
          peer.creditsToReturn = 0;
        } else {
          sendControl(peer, FrameKind::kHeartbeat, 0);
        }
      }
      continue;
    }
    if (isConnector(peer.id) && !peer.connectPending && !stopRequested_.load() && now >= peer.nextConnectAttempt) {
      peer.connectPending = true;
      peer.connectVia->connect(peer.id);
    }
  }
}

int Multiplexer::millisecondsUntilNextTimer() const {
  auto now = Clock::now();
  auto next = now + std::chrono::seconds(1);
  for (const Peer& peer : peers_) {
    if (peer.id == options_.self) continue;
    if (peer.link != nullptr) {
      next = std::min({next, peer.lastSent + options_.heartbeatInterval, peer.lastHeard + options_.peerTimeout});
    } else if (isConnector(peer.id) && !peer.connectPending && !stopRequested_.load()) {
      next = std::min(next, peer.nextConnectAttempt);
    }
  }
  // Round up, so that a timer due in 0.4 ms is not polled for with zero timeouts.
  auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
  return static_cast<int>(std::clamp<int64_t>(wait, 0, 1000));
}

void Multiplexer::failSendQueue(Peer& peer) {
  for (Message* message : peer.sendQueue) message->release();
  peer.sendQueue.clear();
}

void Multiplexer::markLost(Peer& peer, const std::string& reason) {
  if (peer.link != nullptr) {
    peer.link->close();
    closedLinks_.push_back(std::move(peer.link));
  }
  std::string why = peer.saidGoodbye ? "it shut down" : reason;
  if (peer.saidGoodbye || stopRequested_.load()) {
    spdlog::info("multiplexer: node {} at {} left: {}", peer.id, options_.nodes[peer.id].toString(), why);
  } else {
    spdlog::warn("multiplexer: lost node {} at {}: {}", peer.id, options_.nodes[peer.id].toString(), why);
  }
  setPeerStatus(peer.id, PeerState::kLost, "", why);
  failSendQueue(peer);
  peer.credits = 0;
  peer.creditsToReturn = 0;
  peer.saidGoodbye = false;
  peer.nextConnectAttempt = Clock::now() + options_.reconnectInterval;
  if (roundRobin_) roundRobin_->setNodeAlive(peer.id, false);
  Status lost = peerLostStatus(peer.id);
  std::vector<std::shared_ptr<ExchangeInbox>> inboxes;
  {
    std::lock_guard lock(inboxMutex_);
    for (auto& [id, inbox] : inboxes_) inboxes.push_back(inbox);
  }
  for (auto& inbox : inboxes) inbox->failSender(peer.id, lost);
}

void Multiplexer::onLinkUp(std::unique_ptr<PeerLink> link) {
  Peer& peer = peers_[link->peer()];
  if (stopRequested_.load()) {
    link->close();
    closedLinks_.push_back(std::move(link));
    return;
  }
  if (peer.link != nullptr) markLost(peer, "it connected again (it restarted)");
  link->setEpoch(nextEpoch_++);
  peer.credits = link->peerReceiveWindow();
  peer.creditsToReturn = 0;
  peer.connectPending = false;
  peer.lastHeard = peer.lastSent = Clock::now();
  std::string transport(link->transportName());
  peer.link = std::move(link);
  spdlog::info("multiplexer: node {} connected to node {} at {} over {}", options_.self, peer.id,
               options_.nodes[peer.id].toString(), transport);
  setPeerStatus(peer.id, PeerState::kConnected, transport, "");
  if (roundRobin_) {
    roundRobin_->setNodeAlive(peer.id, true);
    sendControl(peer, FrameKind::kPhaseSync, roundRobin_->phase());
    if (auto vote = roundRobin_->localVote()) sendControl(peer, FrameKind::kPhaseDone, *vote);
  }
}

void Multiplexer::onConnectFailed(NodeId node, const std::string& reason) {
  Peer& peer = peers_[node];
  peer.connectPending = false;
  peer.nextConnectAttempt = Clock::now() + options_.reconnectInterval;
  PeerStatus status = peerStatus(node);
  if (status.state == PeerState::kConnecting) {
    spdlog::debug("multiplexer: node {} not reachable yet: {}", node, reason);
  } else if (status.lostReason.find(reason) == std::string::npos) {
    setPeerStatus(node, PeerState::kLost, "", status.lostReason + "; reconnecting failed: " + reason);
  }
}

void Multiplexer::onDataFrame(PeerLink& link, Message* message) {
  Peer& peer = peers_[link.peer()];
  peer.lastHeard = Clock::now();
  messagesReceived_.fetch_add(1, std::memory_order_relaxed);
  bytesReceived_.fetch_add(message->frameBytes(), std::memory_order_relaxed);
  deliverLocally(message);
}

void Multiplexer::onControlFrame(PeerLink& link, const FrameHeader& header) {
  Peer& peer = peers_[link.peer()];
  peer.lastHeard = Clock::now();
  switch (header.kind) {
    case FrameKind::kCredit:
      peer.credits += static_cast<uint32_t>(header.value);
      break;
    case FrameKind::kPhaseDone:
      if (roundRobin_) roundRobin_->onPeerPhaseDone(peer.id, header.value);
      break;
    case FrameKind::kPhaseSync:
      if (roundRobin_) roundRobin_->onPeerPhase(header.value);
      break;
    case FrameKind::kGoodbye:
      peer.saidGoodbye = true;
      break;
    case FrameKind::kHeartbeat:
    case FrameKind::kData:
      break;
  }
}

void Multiplexer::onSendComplete(PeerLink&, Message* message) {
  message->release();
}

void Multiplexer::onLinkLost(PeerLink& link, const std::string& reason) {
  Peer& peer = peers_[link.peer()];
  if (peer.link.get() != &link) return;  // an older connection that was already replaced
  markLost(peer, reason);
}

void Multiplexer::onConnectionRefused(const std::string& transport, const std::string& from, const std::string& why) {
  connectionsRefused_.fetch_add(1, std::memory_order_relaxed);
  spdlog::warn("multiplexer: node {} refused a {} connection from {}: {}", options_.self, transport, from, why);
}

}  // namespace shoal::multiplexer
