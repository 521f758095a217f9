#include "multiplexer/rdma_transport.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "common/check.h"
#include "multiplexer/rdma_link.h"

namespace shoal::multiplexer {
namespace {

constexpr int kResolveTimeoutMs = 2000;
/// Receive buffers beyond the credit window, for inline control frames.
constexpr uint32_t kControlReceiveSlack = 4;
/// Send queue depth: the data window plus room for control frames.
constexpr uint32_t kControlSendSlack = 64;
constexpr uint8_t kRnrRetryForever = 7;

struct AcceptReply {
  uint32_t magic;
  uint32_t nodeId;
  uint32_t receiveWindow;
};

std::string errnoText() {
  return std::strerror(errno);
}

/// Waits for the next rdma_cm event on `channel` and checks its type.
bool waitForEvent(rdma_event_channel* channel, rdma_cm_event_type expected, int timeoutMs, std::string* error,
                  AcceptReply* reply = nullptr) {
  pollfd pfd{channel->fd, POLLIN, 0};
  if (::poll(&pfd, 1, timeoutMs) <= 0) {
    *error = "timed out waiting for " + std::string(rdma_event_str(expected));
    return false;
  }
  rdma_cm_event* event = nullptr;
  if (rdma_get_cm_event(channel, &event) != 0) {
    *error = "rdma_get_cm_event: " + errnoText();
    return false;
  }
  bool ok = event->event == expected;
  if (!ok) {
    *error = std::string(rdma_event_str(event->event)) + " (status " + std::to_string(event->status) + ")";
    if (event->event == RDMA_CM_EVENT_REJECTED) *error = "refused (see that node's log)";
  }
  if (ok && reply != nullptr && event->param.conn.private_data != nullptr &&
      event->param.conn.private_data_len >= sizeof(AcceptReply)) {
    std::memcpy(reply, event->param.conn.private_data, sizeof(AcceptReply));
  }
  rdma_ack_cm_event(event);
  return ok;
}

std::string peerAddressText(rdma_cm_id* id) {
  sockaddr* address = rdma_get_peer_addr(id);
  char host[INET6_ADDRSTRLEN] = "?";
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(address)->sin_addr, host, sizeof(host));
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(address)->sin6_addr, host, sizeof(host));
  }
  return host;
}

void setNonBlocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

}  // namespace

std::unique_ptr<RdmaTransport> RdmaTransport::create(LinkIdentity identity, bool busyPoll, std::string* whyNot) {
  int devices = 0;
  ibv_device** list = ibv_get_device_list(&devices);
  if (list != nullptr) ibv_free_device_list(list);
  if (devices == 0) {
    *whyNot = "no RDMA device found (ibv_get_device_list lists none)";
    return nullptr;
  }
  const NodeAddress& self = identity.nodes[identity.self];
  sockaddr_storage address{};
  socklen_t length = 0;
  if (!resolveNodeAddress(self, &address, &length, whyNot)) return nullptr;
  rdma_event_channel* channel = rdma_create_event_channel();
  if (channel == nullptr) {
    *whyNot = "rdma_create_event_channel: " + errnoText();
    return nullptr;
  }
  rdma_cm_id* listenId = nullptr;
  if (rdma_create_id(channel, &listenId, nullptr, RDMA_PS_TCP) != 0) {
    *whyNot = "rdma_create_id: " + errnoText();
    rdma_destroy_event_channel(channel);
    return nullptr;
  }
  auto giveUp = [&](std::string why) -> std::unique_ptr<RdmaTransport> {
    *whyNot = std::move(why);
    rdma_destroy_id(listenId);
    rdma_destroy_event_channel(channel);
    return nullptr;
  };
  if (rdma_bind_addr(listenId, reinterpret_cast<sockaddr*>(&address)) != 0) {
    return giveUp("no RDMA device holds this node's address " + self.toString() + " (rdma_bind_addr: " + errnoText() +
                  ")");
  }
  if (listenId->verbs == nullptr) {
    return giveUp("this node's address " + self.host + " is not on an RDMA device");
  }
  ibv_pd* pd = ibv_alloc_pd(listenId->verbs);
  if (pd == nullptr) return giveUp("ibv_alloc_pd: " + errnoText());
  ibv_comp_channel* completions = ibv_create_comp_channel(listenId->verbs);
  if (completions == nullptr) {
    ibv_dealloc_pd(pd);
    return giveUp("ibv_create_comp_channel: " + errnoText());
  }
  spdlog::info("multiplexer: RDMA device {} holds {}", ibv_get_device_name(listenId->verbs->device), self.host);
  return std::unique_ptr<RdmaTransport>(
      new RdmaTransport(std::move(identity), busyPoll, channel, listenId, pd, completions));
}

RdmaTransport::RdmaTransport(LinkIdentity identity, bool busyPoll, rdma_event_channel* listenChannel,
                             rdma_cm_id* listenId, ibv_pd* pd, ibv_comp_channel* completions)
    : identity_(std::move(identity)),
      busyPoll_(busyPoll),
      listenChannel_(listenChannel),
      listenId_(listenId),
      pd_(pd),
      completions_(completions) {}

RdmaTransport::~RdmaTransport() {
  stop();
  for (ibv_mr* region : regions_) ibv_dereg_mr(region);
  ibv_destroy_comp_channel(completions_);
  ibv_dealloc_pd(pd_);
  rdma_destroy_id(listenId_);
  rdma_destroy_event_channel(listenChannel_);
  if (linkChannel_ != nullptr) rdma_destroy_event_channel(linkChannel_);
}

bool RdmaTransport::canReach(NodeId peer, std::string* whyNot) {
  sockaddr_storage address{};
  socklen_t length = 0;
  if (!resolveNodeAddress(identity_.nodes[peer], &address, &length, whyNot)) return false;
  rdma_event_channel* channel = rdma_create_event_channel();
  if (channel == nullptr) {
    *whyNot = "rdma_create_event_channel: " + errnoText();
    return false;
  }
  rdma_cm_id* id = nullptr;
  bool reachable = false;
  if (rdma_create_id(channel, &id, nullptr, RDMA_PS_TCP) != 0) {
    *whyNot = "rdma_create_id: " + errnoText();
  } else if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&address), kResolveTimeoutMs) != 0) {
    *whyNot = "rdma_cm cannot resolve its address: " + errnoText();
  } else if (!waitForEvent(channel, RDMA_CM_EVENT_ADDR_RESOLVED, kResolveTimeoutMs + 500, whyNot)) {
    *whyNot = "rdma_cm address resolution failed: " + *whyNot;
  } else if (id->verbs != listenId_->verbs) {
    *whyNot = "it is reached through another RDMA device than this node's";
  } else {
    reachable = true;
  }
  if (id != nullptr) rdma_destroy_id(id);
  rdma_destroy_event_channel(channel);
  return reachable;
}

MemoryRegistrar RdmaTransport::registrar() {
  return [this](void* base, size_t bytes) -> uint32_t {
    ibv_mr* region = ibv_reg_mr(pd_, base, bytes, IBV_ACCESS_LOCAL_WRITE);
    SHOAL_CHECK(region != nullptr, "ibv_reg_mr of {} bytes failed: {} (is the memlock limit too low? see README)",
                bytes, std::strerror(errno));
    std::lock_guard lock(regionsMutex_);
    regions_.push_back(region);
    return region->lkey;
  };
}

Status RdmaTransport::start(EventLoop& loop, LinkEvents& events, MessagePool& receivePool) {
  loop_ = &loop;
  events_ = &events;
  receivePool_ = &receivePool;
  if (rdma_listen(listenId_, 64) != 0) {
    return Status(SqlState::kConnectionFailure,
                  "rdma_listen on " + identity_.nodes[identity_.self].toString() + ": " + errnoText());
  }
  linkChannel_ = rdma_create_event_channel();
  if (linkChannel_ == nullptr) return Status(SqlState::kConnectionFailure, "rdma_create_event_channel: " + errnoText());
  setNonBlocking(linkChannel_->fd);
  setNonBlocking(completions_->fd);
  loop.add(completions_->fd, EPOLLIN, [this](uint32_t) { onCompletionEvent(); });
  loop.add(linkChannel_->fd, EPOLLIN, [this](uint32_t) { onConnectionEvent(); });
  connectionThread_.start(
      listenChannel_->fd, [this] { handleListenEvent(); },
      [this](NodeId peer) {
        Established result = connectTo(peer);
        {
          std::lock_guard lock(mutex_);
          established_.push_back(std::move(result));
        }
        loop_->wake();
      });
  return Status::ok();
}

void RdmaTransport::stop() {
  if (stopped_) return;
  stopped_ = true;
  connectionThread_.stop();
  if (loop_ != nullptr) {
    loop_->remove(completions_->fd);
    if (linkChannel_ != nullptr) loop_->remove(linkChannel_->fd);
  }
  accepting_.clear();
  established_.clear();
}

void RdmaTransport::connect(NodeId peer) {
  connectionThread_.requestConnect(peer);
}

std::unique_ptr<RdmaLink> RdmaTransport::makeLink(rdma_cm_id* id, NodeId peer, uint32_t peerWindow,
                                                  std::string* error) {
  uint32_t receiveDepth = identity_.receiveWindow + kControlReceiveSlack;
  uint32_t sendDepth = peerWindow + kControlSendSlack;
  ibv_cq* cq = ibv_create_cq(id->verbs, static_cast<int>(receiveDepth + sendDepth), nullptr, completions_, 0);
  if (cq == nullptr) {
    *error = "ibv_create_cq: " + errnoText();
    return nullptr;
  }
  ibv_qp_init_attr attributes{};
  attributes.send_cq = cq;
  attributes.recv_cq = cq;
  attributes.qp_type = IBV_QPT_RC;
  attributes.cap.max_send_wr = sendDepth;
  attributes.cap.max_recv_wr = receiveDepth;
  attributes.cap.max_send_sge = 1;
  attributes.cap.max_recv_sge = 1;
  attributes.cap.max_inline_data = kFrameHeaderBytes;
  if (rdma_create_qp(id, pd_, &attributes) != 0) {
    *error = "rdma_create_qp: " + errnoText();
    ibv_destroy_cq(cq);
    return nullptr;
  }
  auto link = std::make_unique<RdmaLink>(*this, id, cq, peer, peerWindow, sendDepth, *receivePool_);
  cq->cq_context = link.get();
  // The completion queue is armed only once the network thread owns the link (runPending).
  if (!link->postInitialReceives(receiveDepth, error)) return nullptr;
  return link;
}

RdmaTransport::Established RdmaTransport::connectTo(NodeId peer) {
  Established result;
  result.peer = peer;
  const NodeAddress& target = identity_.nodes[peer];
  sockaddr_storage address{};
  socklen_t length = 0;
  if (!resolveNodeAddress(target, &address, &length, &result.error)) return result;
  rdma_event_channel* channel = rdma_create_event_channel();
  rdma_cm_id* id = nullptr;
  if (channel == nullptr || rdma_create_id(channel, &id, nullptr, RDMA_PS_TCP) != 0) {
    result.error = "rdma_create_id: " + errnoText();
    if (channel != nullptr) rdma_destroy_event_channel(channel);
    return result;
  }
  std::unique_ptr<RdmaLink> link;
  auto fail = [&](std::string why) {
    result.error = "RDMA connect to " + target.toString() + ": " + why;
    if (link != nullptr) {
      link.reset();  // destroys the queue pair and the id
    } else {
      rdma_destroy_id(id);
    }
    rdma_destroy_event_channel(channel);
    return std::move(result);
  };
  std::string error;
  if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&address), kResolveTimeoutMs) != 0 ||
      !waitForEvent(channel, RDMA_CM_EVENT_ADDR_RESOLVED, kResolveTimeoutMs + 500, &error)) {
    return fail("address resolution: " + error);
  }
  if (rdma_resolve_route(id, kResolveTimeoutMs) != 0 ||
      !waitForEvent(channel, RDMA_CM_EVENT_ROUTE_RESOLVED, kResolveTimeoutMs + 500, &error)) {
    return fail("route resolution: " + error);
  }
  // The peer's window is not known before it replies; assume ours (every node
  // of a cluster runs with the same flags) and take the reply's value after.
  link = makeLink(id, peer, identity_.receiveWindow, &error);
  if (link == nullptr) return fail(error);
  RdmaConnectRequest request;
  request.nodeId = identity_.self;
  request.receiveWindow = identity_.receiveWindow;
  request.messageBytes = identity_.messageBytes;
  request.clusterIdHash = clusterIdHash(identity_.clusterId);
  request.nonce = randomNonce();
  auto proof = handshakeProof(identity_.secret, identity_.clusterId, identity_.self, request.nonce);
  std::copy_n(proof.begin(), request.proof.size(), request.proof.begin());
  std::byte privateData[kRdmaConnectRequestBytes];
  encodeRdmaConnectRequest(request, privateData);
  rdma_conn_param parameters{};
  parameters.private_data = privateData;
  parameters.private_data_len = sizeof(privateData);
  parameters.retry_count = 7;
  parameters.rnr_retry_count = kRnrRetryForever;
  AcceptReply reply{};
  if (rdma_connect(id, &parameters) != 0 ||
      !waitForEvent(channel, RDMA_CM_EVENT_ESTABLISHED, kResolveTimeoutMs * 2, &error, &reply)) {
    return fail("connect: " + error);
  }
  if (reply.magic != kHandshakeMagic || reply.nodeId != peer) {
    return fail("the node there is not node " + std::to_string(peer));
  }
  if (rdma_migrate_id(id, linkChannel_) != 0) return fail("rdma_migrate_id: " + errnoText());
  rdma_destroy_event_channel(channel);
  result.link = std::move(link);
  return result;
}

void RdmaTransport::handleListenEvent() {
  rdma_cm_event* event = nullptr;
  if (rdma_get_cm_event(listenChannel_, &event) != 0) return;
  rdma_cm_id* id = event->id;
  if (event->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
    RdmaConnectRequest request;
    std::string refusal;
    const auto* data = static_cast<const std::byte*>(event->param.conn.private_data);
    if (data == nullptr || !decodeRdmaConnectRequest(data, event->param.conn.private_data_len, &request)) {
      refusal = "not a Shoal multiplexer handshake (or another version)";
    } else if (request.clusterIdHash != clusterIdHash(identity_.clusterId)) {
      refusal = "wrong cluster id";
    } else {
      auto proof = handshakeProof(identity_.secret, identity_.clusterId, request.nodeId, request.nonce);
      if (!std::equal(request.proof.begin(), request.proof.end(), proof.begin())) {
        refusal = "wrong cluster secret";
      } else if (request.nodeId >= identity_.nodes.size() || request.nodeId == identity_.self) {
        refusal = "node id " + std::to_string(request.nodeId) + " is not a peer of this node";
      } else if (request.messageBytes != identity_.messageBytes) {
        refusal = "message size " + std::to_string(request.messageBytes) + " differs from this node's";
      } else if (id->verbs != listenId_->verbs) {
        refusal = "it arrived on another RDMA device";
      }
    }
    std::unique_ptr<RdmaLink> link;
    if (refusal.empty()) {
      link = makeLink(id, request.nodeId, request.receiveWindow, &refusal);
    }
    if (!refusal.empty()) {
      events_->onConnectionRefused("rdma", peerAddressText(id), refusal);
      rdma_reject(id, nullptr, 0);
      rdma_ack_cm_event(event);
      if (link == nullptr) rdma_destroy_id(id);
      return;
    }
    AcceptReply reply{kHandshakeMagic, identity_.self, identity_.receiveWindow};
    rdma_conn_param parameters{};
    parameters.private_data = &reply;
    parameters.private_data_len = sizeof(reply);
    parameters.retry_count = 7;
    parameters.rnr_retry_count = kRnrRetryForever;
    rdma_ack_cm_event(event);
    if (rdma_accept(id, &parameters) != 0) {
      spdlog::warn("multiplexer: rdma_accept failed: {}", errnoText());
      return;  // the link's destructor destroys the id
    }
    accepting_[id] = std::move(link);
    return;
  }
  rdma_cm_event_type type = event->event;
  rdma_ack_cm_event(event);
  auto it = accepting_.find(id);
  if (it == accepting_.end()) return;
  std::unique_ptr<RdmaLink> link = std::move(it->second);
  accepting_.erase(it);
  Established result;
  result.peer = link->peer();
  if (type != RDMA_CM_EVENT_ESTABLISHED) {
    spdlog::warn("multiplexer: an accepted RDMA connection from node {} failed: {}", result.peer, rdma_event_str(type));
    return;
  }
  if (rdma_migrate_id(id, linkChannel_) != 0) {
    spdlog::warn("multiplexer: rdma_migrate_id: {}", errnoText());
    return;
  }
  result.link = std::move(link);
  {
    std::lock_guard lock(mutex_);
    established_.push_back(std::move(result));
  }
  loop_->wake();
}

void RdmaTransport::runPending() {
  std::vector<Established> done;
  {
    std::lock_guard lock(mutex_);
    done.swap(established_);
  }
  for (Established& result : done) {
    if (result.link == nullptr) {
      events_->onConnectFailed(result.peer, result.error);
      continue;
    }
    result.link->attach(*loop_, *events_);
    RdmaLink* link = result.link.get();
    rdma_cm_id* id = link->id();
    links_[id] = link;
    events_->onLinkUp(std::move(result.link));
    // Frames may have arrived since the connection came up, before anyone
    // watched its completions: arm the queue, then take what is already there.
    if (links_.count(id) != 0) link->armAndPoll(busyPoll_);
  }
}

void RdmaTransport::onCompletionEvent() {
  while (true) {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if (ibv_get_cq_event(completions_, &cq, &context) != 0) return;  // EAGAIN: drained
    ibv_ack_cq_events(cq, 1);
    // An event may name a link that has closed since; only live links are polled.
    auto* link = static_cast<RdmaLink*>(context);
    bool live = false;
    for (auto& [id, candidate] : links_) live |= candidate == link;
    if (!live) continue;
    ibv_req_notify_cq(cq, 0);
    link->pollCompletions();
  }
}

bool RdmaTransport::poll() {
  std::vector<RdmaLink*> links;
  links.reserve(links_.size());
  for (auto& [id, link] : links_) links.push_back(link);
  for (RdmaLink* link : links) {
    if (links_.count(link->id()) != 0) link->pollCompletions();
  }
  return !links.empty();
}

void RdmaTransport::onConnectionEvent() {
  rdma_cm_event* event = nullptr;
  while (rdma_get_cm_event(linkChannel_, &event) == 0) {
    rdma_cm_id* id = event->id;
    rdma_cm_event_type type = event->event;
    rdma_ack_cm_event(event);
    auto it = links_.find(id);
    if (it == links_.end()) continue;
    if (type == RDMA_CM_EVENT_DISCONNECTED || type == RDMA_CM_EVENT_DEVICE_REMOVAL ||
        type == RDMA_CM_EVENT_TIMEWAIT_EXIT) {
      it->second->lose(std::string("RDMA connection ended: ") + rdma_event_str(type));
    }
  }
}

}  // namespace shoal::multiplexer
