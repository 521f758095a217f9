#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/pipeline/morsel_stream.h"
#include "engine/pipeline/source_gate.h"

namespace shoal::scheduler {

/// One piece of a pipeline's input (about 100k rows) and the NUMA node its data lives on.
struct Morsel {
  uint64_t index = 0;
  uint32_t numaNode = 0;
  /// Not input but the end of a streamed job's input: the thread that claims it runs nothing and completes it.
  bool endOfStream = false;
};

/// What a running morsel knows about the thread it runs on.
class WorkerContext {
 public:
  WorkerContext(uint32_t threadIndex, uint32_t numaNode, const std::atomic<bool>* cancelled)
      : threadIndex_(threadIndex), numaNode_(numaNode), cancelled_(cancelled) {}

  /// Index of the dispatcher thread (0 .. threads-1): the slot of thread-local operator state.
  uint32_t threadIndex() const { return threadIndex_; }
  uint32_t numaNode() const { return numaNode_; }
  /// Long loops inside a morsel call this between vectors: it throws 57014 once the query is cancelled.
  void checkCancelled() const;
  bool cancelled() const { return cancelled_->load(std::memory_order_relaxed); }

 private:
  uint32_t threadIndex_;
  uint32_t numaNode_;
  const std::atomic<bool>* cancelled_;
};

/// One pipeline of a query, as the dispatcher sees it: `runMorsel` runs once
/// for each morsel, on any threads in parallel; then `finish` runs once, on
/// the thread that completed the last morsel (a hash table's final build
/// step, a merge). A job waits for the jobs in `dependencies` (build before
/// probe); when they are done, `prepare` (if set) runs once and returns the
/// job's morsels, for pipelines whose input is only known then.
struct PipelineJob {
  std::string name;
  std::vector<Morsel> morsels;
  std::function<std::vector<Morsel>()> prepare;
  std::function<void(const Morsel&, WorkerContext&)> runMorsel;
  std::function<void()> finish;
  /// Indexes of jobs of the same query that must finish first.
  std::vector<size_t> dependencies;
  /// When set, the job also waits for this gate to open (input from other nodes).
  std::shared_ptr<engine::SourceGate> gate;
  /// Set for a job whose input streams in (an exchange): once its dependencies are done, its morsels are
  /// taken from the stream as they arrive (`morsels`, `prepare` and `gate` are unused). It finishes once the
  /// stream is exhausted and every morsel taken ran.
  std::shared_ptr<engine::MorselStream> stream;
};

}  // namespace shoal::scheduler
