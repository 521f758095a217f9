#pragma once

// How each aggregate of a hash aggregation keeps its state in a group row: folding a chunk's rows in,
// merging two threads' states of one group, and writing the final value. Internal to engine/aggregate.

#include "engine/aggregate/aggregate_function.h"
#include "engine/aggregate/group_store.h"
#include "engine/vector/chunk.h"

namespace shoal::engine::aggregation {

/// Folds one chunk's argument column(s) into the states of its rows' groups.
void updateStates(const GroupedAggregate& spec, const Chunk& chunk, const Window& window, size_t offset,
                  GroupStore& store);
/// Folds the state `source` (of a thread-local table) into `target` (of the merged table).
void mergeState(const GroupedAggregate& spec, AggregateState& target, const AggregateState& source,
                GroupStore& targetStore, GroupStore& sourceStore);
/// Moves the side state (DISTINCT set, collection, moments) of `source` over to `target`, a fresh copy of
/// `source`'s row in the merged table.
void adoptSideState(const GroupedAggregate& spec, AggregateState& target, const AggregateState& source,
                    GroupStore& targetStore, GroupStore& sourceStore);
/// Writes the final value of one aggregate of one group into row `row` of `out`.
void writeFinal(const GroupedAggregate& spec, const AggregateState& state, GroupStore& store, Vector& out, size_t row);

}  // namespace shoal::engine::aggregation
