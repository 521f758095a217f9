#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace shoal::etcd {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t lease = 0;
  int64_t modRevision = 0;
};

struct WatchEvent {
  bool deleted = false;  // else a put
  KeyValue kv;
};

/// How Shoal reaches a secured etcd (--etcd-ca, --etcd-cert, --etcd-key, --etcd-user, --etcd-password-file).
struct EtcdSecurity {
  /// TLS: etcd's certificate must chain to this CA (PEM). Empty: plaintext.
  std::string caFile;
  /// A client certificate and its key (PEM), for an etcd run with --client-cert-auth.
  std::string certificateFile;
  std::string keyFile;
  /// etcd's own authentication (`etcdctl auth enable`): this user, with the password on the first line of
  /// passwordFile. Empty: none.
  std::string user;
  std::string passwordFile;
};

/// A client of etcd's v3 gRPC API (proto/etcd.proto) through the project's own gRPC: the key-value calls,
/// leases and prefix watches that membership and the catalog need. Every call has a deadline and fails with
/// 08006 naming the endpoints when etcd cannot be reached. Thread-safe.
class EtcdClient {
 public:
  /// `endpoints`: host:port[,host:port...]; gRPC fails over between them. Fails (08006, or 28P01 for a
  /// wrong password) when `security` names a user that etcd does not let in.
  explicit EtcdClient(std::string endpoints, std::chrono::milliseconds timeout = std::chrono::seconds(2),
                      EtcdSecurity security = {});
  ~EtcdClient();

  const std::string& endpoints() const { return endpoints_; }

  /// Stores `value` under `key`, attached to `lease` when it is not 0 (the key goes when the lease does).
  void put(const std::string& key, const std::string& value, int64_t lease = 0);
  /// Every key starting with `prefix`, in key order; `revision` gets the store's revision of the answer.
  std::vector<KeyValue> getPrefix(const std::string& prefix, int64_t* revision = nullptr);
  void remove(const std::string& key);
  void removePrefix(const std::string& prefix);
  /// Stores every key of `puts` and deletes every key of `removals` in one transaction: all or nothing.
  void commit(const std::vector<std::pair<std::string, std::string>>& puts, const std::vector<std::string>& removals);

  /// A lease of `ttlSeconds`; keys put with it vanish that long after the last keep-alive.
  int64_t grantLease(int64_t ttlSeconds);
  /// Renews `lease` once; false when etcd no longer knows it (it expired).
  bool keepAlive(int64_t lease);
  void revokeLease(int64_t lease);

  /// Watches every key under `prefix` from `startRevision` (0: from now) on a thread of its own, handing
  /// each batch of events to `onEvents`; `onError` hears when the watch stream broke (etcd went away). The
  /// watch ends with the returned object.
  class Watch {
   public:
    virtual ~Watch() = default;
  };
  std::unique_ptr<Watch> watchPrefix(const std::string& prefix, int64_t startRevision,
                                     std::function<void(const std::vector<WatchEvent>&)> onEvents,
                                     std::function<void(const std::string&)> onError);

 private:
  /// Runs one unary call with a deadline and the auth token; a token etcd no longer knows (it expires after
  /// minutes without use) is renewed and the call made once more.
  template <class Call>
  void call(const char* what, Call call);
  void addToken(grpc::ClientContext& context) const;
  /// Logs in as security_.user and keeps the token etcd answers with.
  void authenticate();

  std::string endpoints_;
  std::chrono::milliseconds timeout_;
  EtcdSecurity security_;
  std::string password_;
  std::shared_ptr<grpc::Channel> channel_;
  mutable std::mutex tokenMutex_;
  std::string token_;  // guarded by tokenMutex_; empty without a user
};

/// The end of a prefix key range: the first key after every key that starts with `prefix`.
std::string prefixEnd(const std::string& prefix);

}  // namespace shoal::etcd
