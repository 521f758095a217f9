#pragma once

#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/query_result.h"

namespace shoal::coordinator {

/// CALL tpch_load(sf [, generators]): (re)creates the eight TPC-H tables in
/// the standard layout and has workers generate them with tpchgen-cli, each
/// its own part, routing every row to its owner. By default one worker per
/// host generates: workers on one host share its cores, and tpchgen-cli's
/// parts cost more together than the whole (on 2 cores, two halves of SF 1
/// run side by side took 1.6 times one whole run). `generators` > 0 asks for
/// that many generating workers instead (at most one per live worker). One
/// load: if any part fails, none of the data stays. Returns the tag;
/// `notices` gets a summary.
/// `chunked`: every table but nation and region DISTRIBUTED RANDOMLY instead of hashed (the paper's chunked layout).
/// The tables belong to `user`, who called it.
std::string runTpchLoad(ClusterContext& cluster, double scaleFactor, uint32_t generators, bool chunked,
                        const std::string& user, std::vector<Notice>& notices);

/// The CREATE TABLE statements of the TPC-H schema, with Shoal's distribution options.
const std::vector<std::string>& tpchSchemaStatements();

}  // namespace shoal::coordinator
