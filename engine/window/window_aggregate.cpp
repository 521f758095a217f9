#include "engine/window/window_aggregate.h"

#include <cstring>

#include "engine/aggregate/aggregate_states.h"
#include "engine/aggregate/group_store.h"
#include "engine/pipeline/query_memory.h"

namespace shoal::engine::window {
namespace {

using aggregation::AggregateState;
using aggregation::GroupStore;

AggregateState emptyState() {
  AggregateState state;
  std::memset(&state, 0, sizeof(state));
  return state;
}

uint8_t* bytesOf(AggregateState& state) {
  return reinterpret_cast<uint8_t*>(&state);
}

/// Folds rows [from, to) of `rows` into `state`.
void fold(const GroupedAggregate& aggregate, const Chunk& rows, size_t from, size_t to, AggregateState& state,
          GroupStore& store) {
  std::vector<uint8_t*> groups(std::min(to - from, kVectorSize), bytesOf(state));
  for (size_t first = from; first < to; first += kVectorSize) {
    const size_t count = std::min(kVectorSize, to - first);
    aggregation::updateStates(aggregate, rows, aggregation::Window{first, count, groups.data()}, 0, store);
  }
}

/// The states an aggregate can merge without side state: a segment tree can hold them.
bool hasFixedState(AggregateFunction function) {
  switch (function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
    case AggregateFunction::kMin:
    case AggregateFunction::kMax:
      return true;
    default:
      return false;
  }
}

/// Whether writing the final value leaves the state as it was (collections are moved out when finished).
bool finishesWithoutConsuming(AggregateFunction function) {
  return !isCollectingAggregate(function) && !isSketchAggregate(function);
}

/// A binary tree of states over a partition's rows, leaves at [size, 2 * size): a node merges its two children.
class SegmentTree {
 public:
  SegmentTree(const GroupedAggregate& aggregate, const Partition& partition)
      : aggregate_(aggregate), store_(1, sizeof(AggregateState)) {
    size_ = 1;
    while (size_ < partition.size()) size_ *= 2;
    reserveQueryMemory(2 * size_ * sizeof(AggregateState));
    nodes_.assign(2 * size_, emptyState());
    std::vector<uint8_t*> leaves;
    for (size_t first = partition.begin; first < partition.end; first += kVectorSize) {
      const size_t count = std::min(kVectorSize, partition.end - first);
      leaves.clear();
      for (size_t i = 0; i < count; ++i) leaves.push_back(bytesOf(nodes_[size_ + first - partition.begin + i]));
      aggregation::updateStates(aggregate, partition.rows, aggregation::Window{first, count, leaves.data()}, 0, store_);
    }
    for (size_t node = size_ - 1; node >= 1; --node) {
      nodes_[node] = nodes_[2 * node];
      aggregation::mergeState(aggregate, nodes_[node], nodes_[2 * node + 1], store_, store_);
    }
    begin_ = partition.begin;
  }

  /// Merges the states of rows [from, to) into `into`.
  void query(size_t from, size_t to, AggregateState& into) {
    size_t low = from - begin_ + size_;
    size_t high = to - begin_ + size_;
    while (low < high) {
      if (low & 1) aggregation::mergeState(aggregate_, into, nodes_[low++], store_, store_);
      if (high & 1) aggregation::mergeState(aggregate_, into, nodes_[--high], store_, store_);
      low /= 2;
      high /= 2;
    }
  }

  GroupStore& store() { return store_; }

 private:
  const GroupedAggregate& aggregate_;
  GroupStore store_;
  std::vector<AggregateState> nodes_;
  size_t size_ = 1;
  size_t begin_ = 0;
};

}  // namespace

void computeAggregate(const GroupedAggregate& aggregate, const Partition& partition,
                      const std::function<FrameRows(size_t row)>& frameOf, bool growingFrames, Vector& out) {
  FrameRows previous;
  bool havePrevious = false;
  auto reusePrevious = [&](size_t row, const FrameRows& frame) {
    if (!havePrevious || !(frame == previous)) return false;
    out.copyRow(row, out, row - 1);
    return true;
  };

  if (growingFrames && finishesWithoutConsuming(aggregate.function)) {
    GroupStore store(1, sizeof(AggregateState));
    AggregateState state = emptyState();
    size_t folded = partition.begin;
    for (size_t row = partition.begin; row < partition.end; ++row) {
      FrameRows frame = frameOf(row);
      const size_t end = frame.count == 0 ? partition.begin : frame.runs[0].second;
      if (!reusePrevious(row, frame)) {
        if (end > folded) fold(aggregate, partition.rows, folded, end, state, store);
        folded = std::max(folded, end);
        aggregation::writeFinal(aggregate, state, store, out, row);
      }
      previous = frame;
      havePrevious = true;
    }
    return;
  }

  if (hasFixedState(aggregate.function)) {
    SegmentTree tree(aggregate, partition);
    for (size_t row = partition.begin; row < partition.end; ++row) {
      FrameRows frame = frameOf(row);
      if (!reusePrevious(row, frame)) {
        AggregateState state = emptyState();
        for (size_t i = 0; i < frame.count; ++i) tree.query(frame.runs[i].first, frame.runs[i].second, state);
        aggregation::writeFinal(aggregate, state, tree.store(), out, row);
      }
      previous = frame;
      havePrevious = true;
    }
    return;
  }

  for (size_t row = partition.begin; row < partition.end; ++row) {
    FrameRows frame = frameOf(row);
    if (!reusePrevious(row, frame)) {
      GroupStore store(1, sizeof(AggregateState));
      AggregateState state = emptyState();
      for (size_t i = 0; i < frame.count; ++i) {
        fold(aggregate, partition.rows, frame.runs[i].first, frame.runs[i].second, state, store);
      }
      aggregation::writeFinal(aggregate, state, store, out, row);
    }
    previous = frame;
    havePrevious = true;
  }
}

}  // namespace shoal::engine::window
