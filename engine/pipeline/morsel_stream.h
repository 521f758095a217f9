#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

namespace shoal::engine {

/// Implemented by a pipeline source whose input arrives while the pipeline runs (an exchange). When it
/// streams, its pipeline has no morsel count known up front: each morsel is one piece of input (one
/// message), taken as it arrives by the thread that then produces it, from that thread's NUMA node first.
/// A thread that finds nothing waiting moves on; `wake` brings one back when more arrives.
class MorselStream {
 public:
  virtual ~MorselStream() = default;
  /// False: read this source the ordinary way (numMorsels once its gate opened).
  virtual bool streams() const = 0;
  /// The pipeline is ready and takes morsels from now on (before, the stream may keep its input elsewhere).
  virtual void startConsuming() = 0;
  /// A piece that has arrived, for a thread on `numaNode` (from its own node's share only, unless `steal`):
  /// the morsel to produce, or nullopt when none is waiting. Throws the stream's error (a lost sender's
  /// 08006, a memory limit's 53200).
  virtual std::optional<size_t> tryTake(uint32_t numaNode, bool steal) = 0;
  /// A taken morsel that will not be produced (its pipeline's sink needs no more): lets its piece go.
  virtual void skip(size_t morsel) = 0;
  /// Every piece has been taken: every sender finished.
  virtual bool exhausted() const = 0;
  /// `wake` runs after each arrival, and when the stream ends or fails, on the thread that caused it
  /// (often the network thread): it must be short and must not block.
  virtual void onArrival(std::function<void()> wake) = 0;
};

}  // namespace shoal::engine
