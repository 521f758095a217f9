#include "coordinator/cluster/worker_clients.h"

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include "common/status.h"

#include "proto/data_channel.h"
#include "proto/plan_codec.h"

namespace shoal::coordinator {

proto::WorkerData::Stub& WorkerClients::dataStub(const std::string& address) {
  std::lock_guard lock(mutex_);
  const uint64_t incarnation = registry_.incarnationAt(address);
  auto& entry = stubs_[address];
  if (!entry.stub || entry.incarnation != incarnation) {
    if (entry.stub) retired_.push_back(std::move(entry.stub));
    entry = Stub{incarnation, proto::WorkerData::NewStub(proto::createDataChannel(address))};
  }
  return *entry.stub;
}

std::vector<LiveWorker> WorkerClients::liveWorkers() const {
  std::vector<LiveWorker> workers;
  for (const auto& node : registry_.nodes()) {
    if (node.role == "worker" && node.state == "up")
      workers.push_back(LiveWorker{node.nodeName, node.address, node.exchangeAddress});
  }
  return workers;
}

std::vector<std::string> WorkerClients::placementAddresses(const TableEntry& table) const {
  std::vector<MemberSnapshot> nodes = registry_.nodes();
  std::vector<std::string> addresses;
  for (size_t partition = 0; partition < table.placement.size(); ++partition) {
    const std::string& name = table.placement[partition];
    auto node =
        std::find_if(nodes.begin(), nodes.end(), [&](const MemberSnapshot& member) { return member.nodeName == name; });
    if (node == nodes.end() || node->state != "up") {
      SHOAL_USER_FAIL(SqlState::kConnectionFailure, "worker \"{}\", which holds partition {} of table \"{}\", is {}",
                      name, partition, table.name, node == nodes.end() ? "not registered" : node->state);
    }
    addresses.push_back(node->address);
  }
  return addresses;
}

std::vector<std::string> WorkerClients::readableAddresses(const TableEntry& table) const {
  if (table.distribution != Distribution::kReplicated) return placementAddresses(table);
  std::vector<MemberSnapshot> nodes = registry_.nodes();
  std::vector<std::string> addresses;
  for (const auto& name : table.placement) {
    for (const auto& node : nodes) {
      if (node.nodeName == name && node.state == "up") addresses.push_back(node.address);
    }
  }
  if (addresses.empty() && !table.placement.empty()) {
    SHOAL_USER_FAIL(SqlState::kConnectionFailure, "no worker holding a copy of table \"{}\" is up (\"{}\" is {})",
                    table.name, table.placement[0], registry_.stateOf(table.placement[0]));
  }
  return addresses;
}

void WorkerClients::prepareExchange(const std::vector<std::string>& addresses,
                                    const std::vector<uint64_t>& incarnations) {
  std::lock_guard lock(exchangeMutex_);
  if (addresses == exchangeAddresses_ && incarnations == exchangeIncarnations_) return;
  for (const auto& address : addresses) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    proto::ResetExchangeResponse response;
    // A worker that does not answer fails the query itself, naming it; the others are reset all the same.
    dataStub(address).ResetExchange(&context, proto::ResetExchangeRequest(), &response);
  }
  exchangeAddresses_ = addresses;
  exchangeIncarnations_ = incarnations;
}

proto::TableLayout WorkerClients::layoutOf(const TableEntry& table) const {
  proto::TableLayout layout;
  layout.set_storage_id(table.storageId);
  layout.set_table_name(table.name);
  for (const auto& column : table.columns) {
    auto* out = layout.add_columns();
    out->set_name(column.name);
    *out->mutable_type() = proto::encodeType(column.type);
    out->set_not_null(column.notNull);
  }
  layout.set_distribution(static_cast<uint32_t>(table.distribution));
  for (size_t column : table.distributionColumns) layout.add_distribution_columns(static_cast<uint32_t>(column));
  for (const auto& address : placementAddresses(table)) layout.add_placement_addresses(address);
  return layout;
}

uint32_t WorkerClients::rowTagOf(const std::string& address) const {
  for (const auto& node : registry_.nodes()) {
    if (node.role == "worker" && node.address == address) return node.nodeId;
  }
  return 0;
}

std::string WorkerClients::addressOfRowTag(uint32_t tag) const {
  for (const auto& node : registry_.nodes()) {
    if (node.role == "worker" && node.nodeId == tag && node.state == "up") return node.address;
  }
  SHOAL_USER_FAIL(SqlState::kConnectionFailure, "the worker that holds rows to change (node {}) is not up", tag);
}

}  // namespace shoal::coordinator
