#pragma once

#include <atomic>
#include <string>

#include "coordinator/cluster/cluster_context.h"
#include "coordinator/query/copy_executor.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

class Transaction;

/// Runs COPY t FROM ... (FORMAT binary): reads PostgreSQL's binary copy format (signature, flags, header
/// extension, then per row a field count and each field's length and binary value, -1 for NULL, and the
/// trailer), decodes the values on the coordinator as Bind decodes binary parameters, and streams them to the
/// workers in chunks, all or nothing. Malformed input fails with PostgreSQL's 22P04 (and 22P03 for a bad
/// value). Returns the CommandComplete tag ("COPY n").
std::string runBinaryCopy(ClusterContext& cluster, const sql::CopyFrom& command, CopyInput& input,
                          const std::atomic<bool>& cancelRequested, Transaction* transaction = nullptr);

}  // namespace shoal::coordinator
