#include "engine/vector/row_gather.h"

namespace shoal::engine {
namespace {

/// Copies one column of the rows `rows` names, from several chunks, into `out`: values through a pointer per
/// chunk, NULLs only where a chunk has some.
template <class T>
void gatherColumn(const std::vector<const Chunk*>& chunks, size_t column, const std::vector<RowRef>& rows,
                  Vector& out) {
  std::vector<const T*> values;
  std::vector<const Vector*> vectors;
  bool anyNull = false;
  for (const Chunk* chunk : chunks) {
    const Vector& vector = chunk->column(column);
    values.push_back(vector.data<T>());
    vectors.push_back(&vector);
    anyNull = anyNull || !vector.validity().allValid(chunk->size());
  }
  T* target = out.data<T>();
  for (size_t i = 0; i < rows.size(); ++i) target[i] = values[rows[i].chunk][rows[i].row];
  if (anyNull) {
    for (size_t i = 0; i < rows.size(); ++i) {
      if (vectors[rows[i].chunk]->isNull(rows[i].row)) out.setNull(i, true);
    }
  }
}

}  // namespace

Chunk gatherRows(const std::vector<const Chunk*>& chunks, const std::vector<RowRef>& rows) {
  Chunk out(rows.size());
  for (size_t column = 0; column < chunks[0]->numColumns(); ++column) {
    const LogicalType& type = chunks[0]->column(column).type();
    Vector values(type, rows.size());
    switch (type.physicalType()) {
      case PhysicalType::kBool:
        gatherColumn<uint8_t>(chunks, column, rows, values);
        break;
      case PhysicalType::kInt32:
        gatherColumn<int32_t>(chunks, column, rows, values);
        break;
      case PhysicalType::kInt64:
        gatherColumn<int64_t>(chunks, column, rows, values);
        break;
      case PhysicalType::kInt128:
        gatherColumn<__int128>(chunks, column, rows, values);
        break;
      case PhysicalType::kDouble:
        gatherColumn<double>(chunks, column, rows, values);
        break;
      case PhysicalType::kString:
        for (const Chunk* chunk : chunks) values.shareStringsOf(chunk->column(column));
        gatherColumn<StringRef>(chunks, column, rows, values);
        break;
    }
    out.addColumn(std::move(values));
  }
  return out;
}

}  // namespace shoal::engine
