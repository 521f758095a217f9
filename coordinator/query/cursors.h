#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "coordinator/query/query_result.h"

namespace shoal::coordinator {

/// A session's open cursors (DECLARE name CURSOR FOR query): each holds its query's result as it streams
/// from the workers, and FETCH and MOVE take rows off its front. Forward only, as PostgreSQL's cursors are
/// for most plans; a cursor WITHOUT HOLD ends with its transaction.
class Cursors {
 public:
  /// Opens cursor `name` over `result`; 42P03 when one of that name is open.
  /// `inTransactionBlock`: declared inside BEGIN ... (a ROLLBACK of that block closes it even WITH HOLD).
  void declare(const std::string& name, QueryResult result, bool withHold, bool inTransactionBlock);
  /// The columns cursor `name` yields, or nullopt when no such cursor is open (for Describe of a portal).
  std::optional<std::vector<ResultColumn>> columnsOf(const std::string& name) const;
  /// Up to `count` next rows of cursor `name` (all that remain when `count` is nullopt), as a result of its
  /// columns; 34000 when there is no such cursor.
  QueryResult fetch(const std::string& name, std::optional<uint64_t> count);
  /// Skips up to `count` rows (all when nullopt); returns how many it skipped.
  uint64_t move(const std::string& name, std::optional<uint64_t> count);
  /// CLOSE name (34000 when there is none) and CLOSE ALL (`name` empty).
  void close(const std::string& name);
  /// COMMIT or ROLLBACK: cursors WITHOUT HOLD close; on ROLLBACK, those declared WITH HOLD in the
  /// transaction close too (PostgreSQL's rule); `committed` tells which.
  void endTransaction(bool committed);
  /// A mark before the next DECLARE, for a savepoint: ROLLBACK TO closes the cursors declared since.
  uint64_t declarationMark() const { return declarations_; }
  void closeDeclaredSince(uint64_t mark);

 private:
  struct Cursor {
    QueryResult result;
    std::optional<engine::Chunk> current;  // the chunk being read, from row `nextRow` on
    size_t nextRow = 0;
    bool withHold = false;
    bool declaredInTransaction = true;  // until its transaction commits
    uint64_t declaration = 0;           // the how-many-th DECLARE of the session made it
  };

  Cursor& find(const std::string& name);
  /// Takes up to `count` rows off the cursor's front, appending them to `out` unless it is null.
  uint64_t take(Cursor& cursor, std::optional<uint64_t> count, std::deque<engine::Chunk>* out);

  std::map<std::string, Cursor> cursors_;
  uint64_t declarations_ = 0;
};

}  // namespace shoal::coordinator
