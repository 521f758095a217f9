#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "coordinator/cluster/cluster_context.h"
#include "sql/binder/bound_statement.h"

namespace shoal::coordinator {

class Transaction;

/// Where COPY's bytes come from: a server-side file, or the client's
/// CopyData messages (COPY FROM STDIN, psql's \copy).
class CopyInput {
 public:
  virtual ~CopyInput() = default;
  /// Reads up to `capacity` bytes; returns 0 at the end of the input.
  virtual size_t read(char* buffer, size_t capacity) = 0;
  /// "'/path/file.tbl'" or "STDIN", for error messages.
  virtual std::string sourceName() const = 0;
};

/// Opens a server-side file; 58P01 when it does not exist, 58030 on other errors.
std::unique_ptr<CopyInput> openCopyFile(const std::string& path);

/// Runs COPY t FROM ...: cuts the input into blocks of whole lines and spreads
/// them over the workers, which parse them in parallel and route each row to
/// its owner (the binary format is decoded on the coordinator instead:
/// binary_copy_in.h). All or nothing: any bad row aborts the whole load.
/// Returns the CommandComplete tag ("COPY n"). Text waiting for its line's end counts against
/// `memoryLimitBytes` (0: none) and the coordinator's memory budget (53200 past either).
/// `transaction`: the session's transaction block the rows join, or null (the COPY is a transaction of its own).
std::string runCopy(ClusterContext& cluster, const sql::CopyFrom& command, CopyInput& input,
                    const std::atomic<bool>& cancelRequested, uint64_t memoryLimitBytes,
                    Transaction* transaction = nullptr);

}  // namespace shoal::coordinator
