#pragma once

#include <cstdint>

namespace shoal::coordinator {

/// What a distributed query's exchanges did, summed over its workers.
struct ShuffleFigures {
  /// Sent between workers.
  uint64_t bytes = 0;
  uint64_t messages = 0;
  /// Received messages taken by a consumer on the NUMA node whose queue they arrived in, and stolen from
  /// another node's queue (a worker's own messages to itself included).
  uint64_t consumedLocally = 0;
  uint64_t stolen = 0;

  ShuffleFigures& operator+=(const ShuffleFigures& other) {
    bytes += other.bytes;
    messages += other.messages;
    consumedLocally += other.consumedLocally;
    stolen += other.stolen;
    return *this;
  }
};

}  // namespace shoal::coordinator
