#include "etcd/etcd_client.h"

#include <grpcpp/grpcpp.h>

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "common/status.h"
#include "proto/etcd.grpc.pb.h"

namespace shoal::etcd {
namespace {

/// gRPC's target for a list of host:port endpoints: the ipv4 scheme fails over between literal addresses.
std::string targetOf(const std::string& endpoints) {
  bool literal = true;
  for (char c : endpoints)
    literal = literal && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == ':' || c == ',');
  if (literal) return "ipv4:" + endpoints;
  return endpoints.substr(0, endpoints.find(','));
}

constexpr std::string_view kInvalidPassword = "28P01";

std::string readPemFile(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "cannot read the etcd {} file {}", what, path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::shared_ptr<grpc::ChannelCredentials> channelCredentials(const EtcdSecurity& security) {
  if (security.caFile.empty()) {
    if (!security.certificateFile.empty()) {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "--etcd-cert needs --etcd-ca (TLS to etcd)");
    }
    return grpc::InsecureChannelCredentials();
  }
  if (security.certificateFile.empty() != security.keyFile.empty()) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "--etcd-cert and --etcd-key go together");
  }
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = readPemFile(security.caFile, "CA");
  if (!security.certificateFile.empty()) {
    options.pem_cert_chain = readPemFile(security.certificateFile, "certificate");
    options.pem_private_key = readPemFile(security.keyFile, "key");
  }
  return grpc::SslCredentials(options);
}

/// etcd's answer to a token it does not know (expired, or from before its restart).
bool tokenRejected(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
         status.error_message().find("invalid auth token") != std::string::npos;
}

}  // namespace

std::string prefixEnd(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

class PrefixWatch final : public EtcdClient::Watch {
 public:
  PrefixWatch(std::shared_ptr<grpc::Channel> channel, const std::string& token, const std::string& prefix,
              int64_t startRevision, std::function<void(const std::vector<WatchEvent>&)> onEvents,
              std::function<void(const std::string&)> onError)
      : stub_(etcdserverpb::Watch::NewStub(channel)) {
    if (!token.empty()) context_.AddMetadata("token", token);
    stream_ = stub_->Watch(&context_);
    etcdserverpb::WatchRequest request;
    auto& create = *request.mutable_create_request();
    create.set_key(prefix);
    create.set_range_end(prefixEnd(prefix));
    create.set_start_revision(startRevision);
    thread_ = std::thread([this, request, onEvents = std::move(onEvents), onError = std::move(onError)] {
      if (!stream_->Write(request)) {
        if (!stopping_) onError("the watch could not start");
        return;
      }
      etcdserverpb::WatchResponse response;
      while (stream_->Read(&response)) {
        if (response.canceled()) break;
        std::vector<WatchEvent> events;
        for (const auto& event : response.events()) {
          events.push_back(WatchEvent{
              event.type() == etcdserverpb::Event::DELETE,
              KeyValue{event.kv().key(), event.kv().value(), event.kv().lease(), event.kv().mod_revision()}});
        }
        if (!events.empty()) onEvents(events);
      }
      grpc::Status status = stream_->Finish();
      if (!stopping_) onError(status.ok() ? "the watch ended" : status.error_message());
    });
  }
  ~PrefixWatch() override {
    stopping_ = true;
    context_.TryCancel();
    thread_.join();
  }

 private:
  std::unique_ptr<etcdserverpb::Watch::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>> stream_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

EtcdClient::EtcdClient(std::string endpoints, std::chrono::milliseconds timeout, EtcdSecurity security)
    : endpoints_(std::move(endpoints)), timeout_(timeout), security_(std::move(security)) {
  // etcd restarts and comes back: reconnect within a second, not after gRPC's default back-off of minutes.
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // A watch over a link that died silently ends within seconds instead of waiting for TCP's timeout
  // (etcd accepts pings every 5 s or slower).
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  arguments.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 3000);
  channel_ = grpc::CreateCustomChannel(targetOf(endpoints_), channelCredentials(security_), arguments);
  if (!security_.user.empty()) {
    std::ifstream in(security_.passwordFile);
    if (security_.passwordFile.empty() || !in) {
      SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "--etcd-user {} needs a readable --etcd-password-file",
                      security_.user);
    }
    std::getline(in, password_);
    authenticate();
  }
}

EtcdClient::~EtcdClient() = default;

void EtcdClient::authenticate() {
  etcdserverpb::AuthenticateRequest request;
  request.set_name(security_.user);
  request.set_password(password_);
  etcdserverpb::AuthenticateResponse response;
  auto stub = etcdserverpb::Auth::NewStub(channel_);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout_);
  context.set_wait_for_ready(true);
  grpc::Status status = stub->Authenticate(&context, request, &response);
  if (!status.ok()) {
    const bool refused = status.error_message().find("authentication failed") != std::string::npos;
    SHOAL_USER_FAIL(refused ? kInvalidPassword : SqlState::kConnectionFailure,
                    "etcd at {} did not let user \"{}\" in: {}", endpoints_, security_.user, status.error_message());
  }
  std::lock_guard lock(tokenMutex_);
  token_ = response.token();
}

void EtcdClient::addToken(grpc::ClientContext& context) const {
  std::lock_guard lock(tokenMutex_);
  if (!token_.empty()) context.AddMetadata("token", token_);
}

template <class Call>
void EtcdClient::call(const char* what, Call call) {
  for (int attempt = 0;; ++attempt) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + timeout_);
    context.set_wait_for_ready(true);  // a channel still (re)connecting is waited for, within the deadline
    addToken(context);
    grpc::Status status = call(context);
    if (status.ok()) return;
    if (attempt == 0 && !security_.user.empty() && tokenRejected(status)) {
      authenticate();
      continue;
    }
    SHOAL_USER_FAIL(SqlState::kConnectionFailure, "etcd at {} failed to {}: {}", endpoints_, what,
                    status.error_message());
  }
}

void EtcdClient::put(const std::string& key, const std::string& value, int64_t lease) {
  etcdserverpb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  request.set_lease(lease);
  etcdserverpb::PutResponse response;
  auto stub = etcdserverpb::KV::NewStub(channel_);
  call("store a key", [&](grpc::ClientContext& context) { return stub->Put(&context, request, &response); });
}

std::vector<KeyValue> EtcdClient::getPrefix(const std::string& prefix, int64_t* revision) {
  etcdserverpb::RangeRequest request;
  request.set_key(prefix);
  request.set_range_end(prefixEnd(prefix));
  etcdserverpb::RangeResponse response;
  auto stub = etcdserverpb::KV::NewStub(channel_);
  call("read keys", [&](grpc::ClientContext& context) { return stub->Range(&context, request, &response); });
  if (revision != nullptr) *revision = response.header().revision();
  std::vector<KeyValue> kvs;
  for (const auto& kv : response.kvs()) kvs.push_back(KeyValue{kv.key(), kv.value(), kv.lease(), kv.mod_revision()});
  return kvs;
}

void EtcdClient::remove(const std::string& key) {
  etcdserverpb::DeleteRangeRequest request;
  request.set_key(key);
  etcdserverpb::DeleteRangeResponse response;
  auto stub = etcdserverpb::KV::NewStub(channel_);
  call("delete a key", [&](grpc::ClientContext& context) { return stub->DeleteRange(&context, request, &response); });
}

void EtcdClient::removePrefix(const std::string& prefix) {
  etcdserverpb::DeleteRangeRequest request;
  request.set_key(prefix);
  request.set_range_end(prefixEnd(prefix));
  etcdserverpb::DeleteRangeResponse response;
  auto stub = etcdserverpb::KV::NewStub(channel_);
  call("delete keys", [&](grpc::ClientContext& context) { return stub->DeleteRange(&context, request, &response); });
}

void EtcdClient::commit(const std::vector<std::pair<std::string, std::string>>& puts,
                        const std::vector<std::string>& removals) {
  if (puts.empty() && removals.empty()) return;
  etcdserverpb::TxnRequest request;
  for (const auto& [key, value] : puts) {
    auto& put = *request.add_success()->mutable_request_put();
    put.set_key(key);
    put.set_value(value);
  }
  for (const auto& key : removals) request.add_success()->mutable_request_delete_range()->set_key(key);
  etcdserverpb::TxnResponse response;
  auto stub = etcdserverpb::KV::NewStub(channel_);
  call("commit a transaction", [&](grpc::ClientContext& context) { return stub->Txn(&context, request, &response); });
}

int64_t EtcdClient::grantLease(int64_t ttlSeconds) {
  etcdserverpb::LeaseGrantRequest request;
  request.set_ttl(ttlSeconds);
  etcdserverpb::LeaseGrantResponse response;
  auto stub = etcdserverpb::Lease::NewStub(channel_);
  call("grant a lease", [&](grpc::ClientContext& context) { return stub->LeaseGrant(&context, request, &response); });
  if (!response.error().empty()) {
    SHOAL_USER_FAIL(SqlState::kConnectionFailure, "etcd at {} refused a lease: {}", endpoints_, response.error());
  }
  return response.id();
}

bool EtcdClient::keepAlive(int64_t lease) {
  auto stub = etcdserverpb::Lease::NewStub(channel_);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + timeout_);
  context.set_wait_for_ready(true);
  addToken(context);
  auto stream = stub->LeaseKeepAlive(&context);
  etcdserverpb::LeaseKeepAliveRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseKeepAliveResponse response;
  const bool answered = stream->Write(request) && stream->Read(&response);
  stream->WritesDone();
  grpc::Status status = stream->Finish();
  if (!answered) {
    SHOAL_USER_FAIL(SqlState::kConnectionFailure, "etcd at {} failed to renew lease {}: {}", endpoints_, lease,
                    status.ok() ? "no answer" : status.error_message());
  }
  return response.ttl() > 0;
}

void EtcdClient::revokeLease(int64_t lease) {
  etcdserverpb::LeaseRevokeRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseRevokeResponse response;
  auto stub = etcdserverpb::Lease::NewStub(channel_);
  call("revoke a lease", [&](grpc::ClientContext& context) { return stub->LeaseRevoke(&context, request, &response); });
}

std::unique_ptr<EtcdClient::Watch> EtcdClient::watchPrefix(const std::string& prefix, int64_t startRevision,
                                                           std::function<void(const std::vector<WatchEvent>&)> onEvents,
                                                           std::function<void(const std::string&)> onError) {
  std::string token;
  {
    std::lock_guard lock(tokenMutex_);
    token = token_;
  }
  return std::make_unique<PrefixWatch>(channel_, token, prefix, startRevision, std::move(onEvents), std::move(onError));
}

}  // namespace shoal::etcd
