#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "proto/storage.pb.h"
#include "worker/loading/tpch_generator.h"
#include "worker/peer_channels.h"
#include "worker/storage/storage_manager.h"

namespace shoal::worker {

/// Loads the .tbl files a running TpchGeneratorProcess writes while it writes
/// them: a reader per table follows "<file>.inprogress" and hands blocks of
/// whole lines to `numThreads` parsing threads, which route the rows to their
/// owners. Parsing so overlaps generation instead of waiting for it. A table
/// whose file never appears (nation and region beyond part 1) loads nothing.
/// Returns the rows loaded; fails with the first error, the generator's
/// included.
uint64_t loadGeneratedTables(uint64_t loadId, const std::vector<proto::TableLayout>& layouts,
                             TpchGeneratorProcess& generator, size_t numThreads, const std::string& selfAddress,
                             StorageManager& storage, PeerChannels& peers);

}  // namespace shoal::worker
