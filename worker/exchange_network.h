#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "multiplexer/multiplexer.h"

namespace shoal::worker {

/// This worker's end of the exchange network: one communication multiplexer
/// for the current set of workers. A query names its workers (node id i is
/// the i-th exchange address) and their incarnations; while those stay the same,
/// every query shares one multiplexer and its connections. When they change (a
/// worker joined, left, or came back, on new ports or the same), the old multiplexer shuts down,
/// failing the exchanges still open on it, and a new one starts on the same
/// port. Thread-safe.
class ExchangeNetwork {
 public:
  /// `listenHost`:`port` is where peers reach this worker (port 0: pick a free one now).
  /// `base`: every multiplexer's options but the nodes (transport, schedule, message size, cluster id and
  /// secret, NUMA nodes).
  ExchangeNetwork(std::string listenHost, uint16_t port, multiplexer::MultiplexerOptions base);
  ~ExchangeNetwork();

  /// host:port that peers connect to (sent to the coordinator at registration).
  std::string address() const;

  /// The multiplexer for these workers, this one being node `self`; `incarnations` counts each one's
  /// (re)joins (empty: not known).
  std::shared_ptr<multiplexer::Multiplexer> forWorkers(const std::vector<std::string>& addresses,
                                                       const std::vector<uint64_t>& incarnations, uint32_t self);

  /// Shuts the current multiplexer down (its open exchanges fail); the next query starts a fresh one.
  void reset();

 private:
  /// The multiplexer for these workers, restarted when they changed.
  std::shared_ptr<multiplexer::Multiplexer> multiplexerFor(const std::vector<std::string>& addresses,
                                                           const std::vector<uint64_t>& incarnations, uint32_t self);

  std::string listenHost_;
  uint16_t port_;
  multiplexer::MultiplexerOptions base_;  // its secret proves membership in the multiplexer handshake
  /// The socket that holds a port picked at start (-1 when --exchange-port named one).
  int reservedPort_ = -1;
  std::mutex mutex_;
  std::vector<std::string> addresses_;                     // guarded by mutex_
  std::vector<uint64_t> incarnations_;                     // guarded by mutex_
  std::shared_ptr<multiplexer::Multiplexer> multiplexer_;  // guarded by mutex_
};

}  // namespace shoal::worker
