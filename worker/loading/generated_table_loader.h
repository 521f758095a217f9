#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto/storage.pb.h"
#include "worker/loading/tpch_generator.h"
#include "worker/peer_channels.h"
#include "worker/storage/storage_manager.h"

namespace shoal::worker {

/// Loads the .tbl text a running TpchGeneratorProcess writes into its pipes
/// while it writes it: a reader per table drains that table's pipe and hands
/// blocks of whole lines to `numThreads` parsing threads, which route the rows
/// to their owners. Parsing so overlaps generation instead of waiting for it.
/// A table whose pipe the generator never opens (nation and region beyond
/// part 1) loads nothing.
/// Returns the rows loaded; fails with the first error, the generator's
/// included.
uint64_t loadGeneratedTables(uint64_t loadId, const std::vector<proto::TableLayout>& layouts,
                             TpchGeneratorProcess& generator, size_t numThreads, const std::string& selfAddress,
                             StorageManager& storage, PeerChannels& peers);

}  // namespace shoal::worker
