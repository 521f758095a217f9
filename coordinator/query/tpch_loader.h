#pragma once

#include <string>
#include <vector>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/query_result.h"

namespace shoal::coordinator {

/// CALL tpch_load(sf): (re)creates the eight TPC-H tables in the standard
/// layout and has the workers generate them with tpchgen-cli, each worker a
/// share of the parts, routing every row to its owner. One load: if any part
/// fails, none of the data stays. Returns the tag; `notices` gets a summary.
std::string runTpchLoad(ClusterContext& cluster, double scaleFactor, std::vector<Notice>& notices);

/// The CREATE TABLE statements of the TPC-H schema, with Shoal's distribution options.
const std::vector<std::string>& tpchSchemaStatements();

}  // namespace shoal::coordinator
