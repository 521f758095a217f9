#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/aligned_buffer.h"
#include "common/byte_reader.h"
#include "engine/types/value.h"
#include "engine/vector/vector.h"
#include "worker/storage/segment_memory.h"

namespace shoal::worker {

/// Rows per segment: one morsel's worth, so that a scan hands whole segments to threads.
inline constexpr size_t kSegmentRows = 50 * engine::kVectorSize;  // 102,400

/// The min/max of a column segment's non-NULL values, so that scans can skip
/// segments a filter cannot match. min and max are NULL when every row is.
struct ZoneMap {
  engine::Value min;
  engine::Value max;
  size_t nullCount = 0;
  /// False for columns whose values have no range here (arrays): min and max stay NULL whatever the rows.
  bool ranged = true;
};

/// How a column segment holds its values.
enum class ColumnEncoding : uint8_t {
  kPlain = 0,         // fixed-width values, or one 16-byte StringRef per row
  kDictionary8 = 1,   // strings: a 1-byte code per row into a dictionary of StringRefs
  kDictionary16 = 2,  // strings: a 2-byte code per row
  // In memory only (files hold such a column plain): integers, dates and 64-bit decimals whose
  // segment spans a narrow range, as an unsigned offset per row from the segment's minimum.
  kOffset8 = 3,
  kOffset16 = 4,
  kOffset32 = 5,
};

/// One column of one segment, immutable once built. Values sit in one array
/// allocated on the segment's NUMA node. Strings are 16-byte StringRefs
/// (prefix inline, long bytes in one block of the segment's); a string column with
/// few distinct values in the segment (flags, modes, clerks) is stored as
/// codes into a dictionary of StringRefs instead, a tenth of the memory, and
/// an integer column whose values span a narrow range as 1-, 2- or 4-byte
/// offsets from its minimum. NULLs are a validity bitmap.
class ColumnSegment {
 public:
  /// Copies `numRows` rows, spread over `sources` in order, into a new segment on `numaNode`.
  ColumnSegment(const engine::LogicalType& type, std::span<const engine::Vector* const> sources, size_t numRows,
                uint32_t numaNode, SegmentMemory& memory);
  ~ColumnSegment();
  ColumnSegment(const ColumnSegment&) = delete;
  ColumnSegment& operator=(const ColumnSegment&) = delete;

  /// Appends this column in the segment file layout of docs/storage-format.md.
  void serialize(AlignedBuffer& out) const;
  /// Reads a column written by serialize; malformed bytes fail through `reader` (XX001).
  static std::unique_ptr<ColumnSegment> deserialize(const engine::LogicalType& type, size_t numRows, ByteReader& reader,
                                                    uint32_t numaNode, SegmentMemory& memory);

  const engine::LogicalType& type() const { return type_; }
  size_t size() const { return numRows_; }
  uint32_t numaNode() const { return numaNode_; }
  ColumnEncoding encoding() const { return encoding_; }
  /// The distinct strings of a dictionary-coded column (empty when plain).
  std::span<const engine::StringRef> dictionary() const { return dictionary_; }
  const ZoneMap& zoneMap() const { return zoneMap_; }
  /// For an integer column held as 1- or 2-byte offsets: its distinct non-NULL values, at most 65536,
  /// found with a bitmap instead of hashing. Nullopt for any other encoding.
  std::optional<engine::Vector> distinctNarrowValues() const;

  /// Copies rows [start, start + count) into `out`, which is resized to `count`.
  /// Strings are copied as handles: they stay valid while this segment lives.
  void read(size_t start, size_t count, engine::Vector& out) const;
  /// Copies rows start + rows[i] into row i of `out`, which is resized to rows.size(): a scan
  /// reads the columns its filter does not need only for the rows that passed it.
  void gather(size_t start, std::span<const uint32_t> rows, engine::Vector& out) const;

  bool isNull(size_t row) const { return !validity_.isValid(row); }
  const engine::ValidityMask& validity() const { return validity_; }

  /// Bytes this segment holds (values, dictionary, bitmap and string heap), for memory accounting.
  size_t memoryBytes() const;

 private:
  ColumnSegment(const engine::LogicalType& type, size_t numRows, uint32_t numaNode, SegmentMemory& memory);

  void allocateValues(size_t bytes);
  /// While a column is built, its plain rows sit in a scratch array (malloc's, reused from segment to
  /// segment), and only the encoding it ends up with is allocated in segment memory. Points values_ at a
  /// new scratch array of `bytes`, which the caller keeps alive until settleValues.
  std::unique_ptr<std::byte[]> startInScratch(size_t bytes);
  /// Moves values still in scratch into segment memory.
  void settleValues();
  /// Points values_ at `bytes` of new segment memory, freeing the old values unless they are scratch.
  void replaceValues(size_t bytes);
  /// Copies the long strings among `strings` into one block of segment memory and points them at it.
  /// Once per column segment.
  void homeStrings(engine::StringRef* strings, size_t count);
  /// Re-encodes a plain string column as dictionary codes when that is smaller.
  void tryDictionary();
  /// Re-encodes a plain integer column as offsets from its minimum when they fit in fewer bytes:
  /// a scan then reads a half to an eighth of the memory, and it is memory a scan waits on.
  void tryOffsets();
  /// The values of rows [start, start + count) as plain values, into `out` (a physical-width array).
  void decodeOffsets(size_t start, size_t count, std::byte* out) const;
  void computeZoneMap();

  engine::LogicalType type_;
  size_t numRows_;
  uint32_t numaNode_;
  SegmentMemory& memory_;
  ColumnEncoding encoding_ = ColumnEncoding::kPlain;
  void* values_ = nullptr;  // per row: a value, a StringRef or a dictionary code
  size_t valueBytes_ = 0;
  bool valuesInScratch_ = false;  // values_ is a builder's scratch array, not ours to free
  std::vector<engine::StringRef> dictionary_;
  int64_t offsetBase_ = 0;  // kOffset*: the value of offset 0
  engine::ValidityMask validity_;
  char* stringBytes_ = nullptr;  // the long strings' bytes, which their StringRefs point into
  size_t stringBytesSize_ = 0;
  ZoneMap zoneMap_;
};

}  // namespace shoal::worker
