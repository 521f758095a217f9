#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "worker/storage/row_versions.h"
#include "worker/storage/table_partition.h"

namespace shoal::worker {

/// A unique key of a table (its PRIMARY KEY or a UNIQUE constraint): no two live rows have equal values in all
/// its columns, unless one of them is NULL.
struct UniqueKey {
  std::string name;  // the constraint's, as errors name it
  std::vector<size_t> columns;
  bool arbiter = false;  // ON CONFLICT: a conflict on this key is the one the statement handles
};

/// What a statement does with a row that conflicts on an arbiter key.
enum class ConflictAction : uint32_t {
  kFail = 0,    // 23505, as a plain INSERT, COPY or UPDATE
  kSkip = 1,    // ON CONFLICT DO NOTHING: the row is dropped
  kReport = 2,  // ON CONFLICT DO UPDATE: the row is dropped and handed back, for the UPDATE of the old one
};

struct KeyCheck {
  uint64_t writeId = 0;
  /// The transaction's writes, writeId among them (sorted); commitSeq: the statement's snapshot.
  ReadSnapshot transaction;
  std::vector<UniqueKey> keys;
  ConflictAction action = ConflictAction::kFail;
};

struct KeyCheckOutcome {
  uint64_t rowsSkipped = 0;
  std::string reported;  // kReport: the dropped rows, every column, as chunks encoded back to back
};

/// Checks the rows that write `check.writeId` added to `partition` (all of them staged, in segments) against
/// the partition's other live rows and against each other, for every key.
///
/// The rows compared with are the latest ones, whatever the statement's snapshot, as PostgreSQL does: the
/// committed rows no commit deleted, and the transaction's own. A row that another transaction is adding, or
/// is deleting, may or may not be there once it decides: a conflict with it fails with 40001 (PostgreSQL
/// would wait for that transaction; retrying does the same). A conflict on a key that is not an arbiter, or
/// under kFail, fails with 23505. Under kReport, two rows of the write that conflict with each other fail with
/// 21000, and an arbiter conflict with a row committed after the statement's snapshot with 40001 (its UPDATE
/// could not see that row). The caller serializes checks of one partition (TablePartition::keyCheckMutex) and
/// builds the write's rows into segments first; rows another write staged and has not checked yet are not
/// compared with, since that write's own check, later, will meet these.
KeyCheckOutcome checkUniqueKeys(TablePartition& partition, const KeyCheck& check);

}  // namespace shoal::worker
