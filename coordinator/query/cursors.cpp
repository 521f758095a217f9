#include "coordinator/query/cursors.h"

#include <numeric>

#include "common/status.h"

namespace shoal::coordinator {
namespace {

constexpr std::string_view kDuplicateCursor = "42P03";

}  // namespace

void Cursors::declare(const std::string& name, QueryResult result, bool withHold, bool inTransactionBlock) {
  if (cursors_.contains(name)) SHOAL_USER_FAIL(kDuplicateCursor, "cursor \"{}\" already exists", name);
  Cursor cursor;
  cursor.result = std::move(result);
  cursor.withHold = withHold;
  cursor.declaredInTransaction = inTransactionBlock;
  cursor.declaration = declarations_++;
  cursors_.emplace(name, std::move(cursor));
}

std::optional<std::vector<ResultColumn>> Cursors::columnsOf(const std::string& name) const {
  auto found = cursors_.find(name);
  if (found == cursors_.end()) return std::nullopt;
  return found->second.result.columns;
}

Cursors::Cursor& Cursors::find(const std::string& name) {
  auto found = cursors_.find(name);
  if (found == cursors_.end()) SHOAL_USER_FAIL(SqlState::kInvalidCursorName, "cursor \"{}\" does not exist", name);
  return found->second;
}

QueryResult Cursors::fetch(const std::string& name, std::optional<uint64_t> count) {
  Cursor& cursor = find(name);
  QueryResult rows;
  rows.columns = cursor.result.columns;
  take(cursor, count, &rows.chunks);
  return rows;
}

uint64_t Cursors::move(const std::string& name, std::optional<uint64_t> count) {
  return take(find(name), count, nullptr);
}

uint64_t Cursors::take(Cursor& cursor, std::optional<uint64_t> count, std::deque<engine::Chunk>* out) {
  uint64_t taken = 0;
  while (!count || taken < *count) {
    if (!cursor.current || cursor.nextRow == cursor.current->size()) {
      cursor.current = cursor.result.nextChunk();
      cursor.nextRow = 0;
      if (!cursor.current) break;
      continue;
    }
    const engine::Chunk& chunk = *cursor.current;
    size_t available = chunk.size() - cursor.nextRow;
    size_t wanted = count ? static_cast<size_t>(std::min<uint64_t>(available, *count - taken)) : available;
    if (cursor.nextRow == 0 && wanted == chunk.size()) {  // the whole chunk, as it is
      if (out != nullptr) out->push_back(std::move(*cursor.current));
      cursor.current.reset();
      taken += wanted;
      continue;
    }
    if (out != nullptr) {
      {
        std::vector<uint32_t> selection(wanted);
        std::iota(selection.begin(), selection.end(), static_cast<uint32_t>(cursor.nextRow));
        engine::Chunk part(wanted);
        for (size_t column = 0; column < chunk.numColumns(); ++column) {
          part.addColumn(chunk.column(column).select(selection));
        }
        out->push_back(std::move(part));
      }
    }
    cursor.nextRow += wanted;
    taken += wanted;
  }
  return taken;
}

void Cursors::close(const std::string& name) {
  if (name.empty()) {
    cursors_.clear();
    return;
  }
  find(name);
  cursors_.erase(name);
}

void Cursors::endTransaction(bool committed) {
  std::erase_if(cursors_, [&](const auto& entry) {
    const Cursor& cursor = entry.second;
    return !cursor.withHold || (!committed && cursor.declaredInTransaction);
  });
  for (auto& [name, cursor] : cursors_) cursor.declaredInTransaction = false;
}

void Cursors::closeDeclaredSince(uint64_t mark) {
  std::erase_if(cursors_, [&](const auto& entry) { return entry.second.declaration >= mark; });
}

}  // namespace shoal::coordinator
