#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/vector/chunk.h"

namespace shoal::engine {

class FilterOperator;
class SourceGate;

/// Per-thread state of a sink (a hash table being built, rows being collected).
class LocalSinkState {
 public:
  virtual ~LocalSinkState() = default;
};

/// Where a pipeline's rows come from: a table scan, a finished hash
/// aggregation, an exchange. Split into morsels that any thread may produce.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  /// How many morsels; asked once the pipelines this one depends on are done.
  virtual size_t numMorsels() const = 0;
  /// The NUMA node the morsel's data lives on.
  virtual uint32_t morselNode(size_t /*morsel*/) const { return 0; }
  /// Produces the morsel's rows as chunks of at most kVectorSize rows, each passed to `consume`.
  virtual void produce(size_t morsel, const std::function<void(Chunk&)>& consume) const = 0;
  /// Offered the filter that would follow this source. A source that applies it itself (a table
  /// scan, which then reads the columns the filter does not need only for the rows that pass)
  /// keeps it and returns true; the pipeline then has no filter step.
  virtual bool absorbFilter(std::shared_ptr<const FilterOperator> /*filter*/) { return false; }
  /// A source whose rows come from other nodes returns the gate that opens once they are all here;
  /// its pipeline does not start before (numMorsels is asked only then).
  virtual std::shared_ptr<SourceGate> gate() const { return nullptr; }
};

/// A streaming step of a pipeline (filter, projection, hash-join probe):
/// rewrites one chunk in place. Stateless, so every thread shares it.
class ChunkOperator {
 public:
  virtual ~ChunkOperator() = default;
  virtual void execute(Chunk& chunk) const = 0;
  /// Rewrites `chunk` and passes on what is left. An operator whose output can be far larger than its
  /// input (a join on a key that many build rows share) overrides this to pass it on in chunks of about
  /// kVectorSize rows, so that memory stays bounded and a cancelled query stops between them.
  virtual void stream(Chunk& chunk, const std::function<void(Chunk&)>& emit) const {
    execute(chunk);
    if (chunk.size() > 0) emit(chunk);
  }
};

/// Where a pipeline ends (a pipeline breaker): every thread consumes into its
/// own local state; when all morsels are done, the local states are combined
/// into the sink's global state and finalized, once.
class ChunkSink {
 public:
  virtual ~ChunkSink() = default;
  virtual std::unique_ptr<LocalSinkState> makeLocalState() const = 0;
  virtual void consume(Chunk& chunk, LocalSinkState& state) const = 0;
  /// Called once per local state, one at a time, after the last morsel.
  virtual void combine(LocalSinkState& state) = 0;
  /// Whether the sink needs no more rows (a LIMIT that holds enough): the runner then stops feeding it, and
  /// the rest of its pipeline's work (morsels not started, chunks a running one would still make) is skipped.
  /// Any thread, at any time.
  virtual bool satisfied() const { return false; }
  /// Called once, after every combine.
  virtual void finalize() {}
};

/// Source, operators, sink; and the pipelines that must finish before this
/// one starts (the build side before the probe side).
struct Pipeline {
  std::shared_ptr<ChunkSource> source;
  std::vector<std::shared_ptr<ChunkOperator>> operators;
  std::shared_ptr<ChunkSink> sink;
  /// Indexes of pipelines of the same plan.
  std::vector<size_t> dependencies;
};

}  // namespace shoal::engine
