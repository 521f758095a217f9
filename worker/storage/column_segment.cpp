#include "worker/storage/column_segment.h"

#include <bit>
#include <cstring>
#include <optional>

#include "common/hashing.h"
#include "engine/types/interval.h"

namespace shoal::worker {

using engine::LogicalType;
using engine::PhysicalType;
using engine::StringRef;
using engine::Vector;

namespace {

size_t codeWidth(ColumnEncoding encoding) {
  return encoding == ColumnEncoding::kDictionary8 ? 1 : 2;
}

bool isOffsetEncoding(ColumnEncoding encoding) {
  return encoding == ColumnEncoding::kOffset8 || encoding == ColumnEncoding::kOffset16 ||
         encoding == ColumnEncoding::kOffset32;
}

/// out[i] = base + offsets[i]: a widening loop the compiler vectorizes.
template <class Offset, class Value>
void addBase(const Offset* offsets, size_t count, int64_t base, Value* out) {
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<Value>(base + static_cast<int64_t>(offsets[i]));
}

/// Calls body(Offset{}, Value{}) with the C++ types of an offset encoding and a physical type.
template <class Body>
void withOffsetTypes(ColumnEncoding encoding, PhysicalType physical, Body&& body) {
  auto withValue = [&](auto offset) {
    if (physical == PhysicalType::kInt32) {
      body(offset, int32_t{});
    } else {
      body(offset, int64_t{});
    }
  };
  switch (encoding) {
    case ColumnEncoding::kOffset8:
      return withValue(uint8_t{});
    case ColumnEncoding::kOffset16:
      return withValue(uint16_t{});
    default:
      return withValue(uint32_t{});
  }
}

/// The range of the non-NULL rows of `values` under `less`, counting the NULL rows into `nullCount`.
template <class T, class Less>
void minMax(const T* values, const engine::ValidityMask& validity, size_t numRows, size_t& nullCount,
            std::optional<T>& min, std::optional<T>& max, Less less) {
  if constexpr (std::is_integral_v<T>) {
    // Without NULLs an integer column's range is a branch-free loop the compiler vectorizes.
    if (numRows > 0 && validity.allValid(numRows)) {
      T low = values[0];
      T high = values[0];
      for (size_t row = 1; row < numRows; ++row) {
        low = std::min(low, values[row]);
        high = std::max(high, values[row]);
      }
      min = low;
      max = high;
      return;
    }
  }
  for (size_t row = 0; row < numRows; ++row) {
    if (!validity.isValid(row)) {
      ++nullCount;
      continue;
    }
    if (!min || less(values[row], *min)) min = values[row];
    if (!max || less(*max, values[row])) max = values[row];
  }
}

/// Distinct strings of one segment column and their codes, given up as soon
/// as the column has too many for a dictionary to pay.
class DictionaryBuilder {
 public:
  explicit DictionaryBuilder(size_t maxEntries) : maxEntries_(maxEntries), slots_(1024, kEmpty) {}

  /// The code of `text`, adding it if new; nullopt once there are more than maxEntries distinct strings.
  std::optional<uint16_t> codeOf(const StringRef& text) {
    const uint32_t hash = hashOf(text);
    size_t mask = slots_.size() - 1;
    for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
      uint32_t code = slots_[slot];
      if (code == kEmpty) break;
      if (sameString(entries_[code], text)) return static_cast<uint16_t>(code);
    }
    if (entries_.size() == maxEntries_) return std::nullopt;
    entries_.push_back(text);
    if (entries_.size() * 2 > slots_.size()) {
      rehash(slots_.size() * 2);
    } else {
      insert(hash, static_cast<uint32_t>(entries_.size() - 1));
    }
    return static_cast<uint16_t>(entries_.size() - 1);
  }

  const std::vector<StringRef>& entries() const { return entries_; }

 private:
  static constexpr uint32_t kEmpty = ~uint32_t{0};

  void insert(uint32_t hash, uint32_t code) {
    size_t mask = slots_.size() - 1;
    size_t slot = hash & mask;
    while (slots_[slot] != kEmpty) slot = (slot + 1) & mask;
    slots_[slot] = code;
  }

  /// Short strings compare as their whole 16-byte handles (length and zero-padded bytes): two words.
  static bool sameString(const StringRef& entry, const StringRef& text) {
    if (!text.isInline()) return entry == text;
    uint64_t entryLow;
    uint64_t entryHigh;
    uint64_t textLow;
    uint64_t textHigh;
    entry.inlineWords(entryLow, entryHigh);
    text.inlineWords(textLow, textHigh);
    return entryLow == textLow && entryHigh == textHigh;
  }

  /// Short strings, the usual dictionary material, hash as their zero-padded 16-byte handle.
  static uint32_t hashOf(const StringRef& text) {
    if (text.isInline()) {
      uint64_t low;
      uint64_t high;
      text.inlineWords(low, high);
      return crc32Int64(high, crc32Int64(low));
    }
    std::string_view view = text.view();
    return crc32Hash(view.data(), view.size());
  }

  void rehash(size_t numSlots) {
    slots_.assign(numSlots, kEmpty);
    for (uint32_t code = 0; code < entries_.size(); ++code) insert(hashOf(entries_[code]), code);
  }

  size_t maxEntries_;
  std::vector<uint32_t> slots_;
  std::vector<StringRef> entries_;  // point into the source vectors until the segment re-homes them
};

}  // namespace

ColumnSegment::ColumnSegment(const LogicalType& type, size_t numRows, uint32_t numaNode, SegmentMemory& memory)
    : type_(type), numRows_(numRows), numaNode_(numaNode), memory_(memory), validity_(numRows) {}

ColumnSegment::ColumnSegment(const LogicalType& type, std::span<const Vector* const> sources, size_t numRows,
                             uint32_t numaNode, SegmentMemory& memory)
    : ColumnSegment(type, numRows, numaNode, memory) {
  const size_t width = engine::physicalTypeWidth(type.physicalType());
  std::unique_ptr<std::byte[]> scratch = startInScratch(numRows * width);
  size_t row = 0;
  for (const Vector* source : sources) {
    const size_t count = std::min(source->size(), numRows - row);
    std::memcpy(static_cast<std::byte*>(values_) + row * width, source->data<std::byte>(), count * width);
    if (!source->validity().allValid(count)) {
      for (size_t i = 0; i < count; ++i) {
        if (source->isNull(i)) validity_.setValid(row + i, false);
      }
    }
    row += count;
  }
  SHOAL_CHECK(row == numRows, "segment of {} rows built from {} rows", numRows, row);
  if (type.physicalType() == PhysicalType::kString) {
    // The copied handles still point into the sources: a dictionary, or this segment's own block, re-homes them.
    tryDictionary();
    if (encoding_ == ColumnEncoding::kPlain) {
      settleValues();
      homeStrings(static_cast<StringRef*>(values_), numRows);
    }
  }
  computeZoneMap();
  tryOffsets();
  settleValues();
}

std::unique_ptr<std::byte[]> ColumnSegment::startInScratch(size_t bytes) {
  auto scratch = std::make_unique_for_overwrite<std::byte[]>(bytes);
  values_ = scratch.get();
  valueBytes_ = bytes;
  valuesInScratch_ = true;
  return scratch;
}

void ColumnSegment::settleValues() {
  if (!valuesInScratch_) return;
  const void* plain = values_;
  valuesInScratch_ = false;
  allocateValues(valueBytes_);
  std::memcpy(values_, plain, valueBytes_);
}

void ColumnSegment::replaceValues(size_t bytes) {
  if (!valuesInScratch_) memory_.release(values_, valueBytes_);
  valuesInScratch_ = false;
  allocateValues(bytes);
}

void ColumnSegment::homeStrings(StringRef* strings, size_t count) {
  SHOAL_CHECK(stringBytes_ == nullptr, "a column segment's strings are homed once");
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) bytes += strings[i].isInline() ? 0 : strings[i].size();
  if (bytes == 0) return;
  char* next = static_cast<char*>(memory_.allocate(bytes, numaNode_));
  stringBytes_ = next;
  stringBytesSize_ = bytes;
  for (size_t i = 0; i < count; ++i) {
    if (strings[i].isInline()) continue;
    const std::string_view text = strings[i].view();
    std::memcpy(next, text.data(), text.size());
    strings[i] = StringRef(std::string_view(next, text.size()));
    next += text.size();
  }
}

namespace {

constexpr size_t kDictionarySampleRows = 4096;

}  // namespace

void ColumnSegment::tryDictionary() {
  // Codes pay when each distinct string serves many rows; a column of comments gives up within a few
  // thousand rows.
  const size_t maxEntries = std::min<size_t>(65535, numRows_ / 8);
  if (maxEntries == 0) return;
  DictionaryBuilder builder(maxEntries);
  std::vector<uint16_t> codes(numRows_, 0);
  const StringRef* strings = static_cast<const StringRef*>(values_);
  for (size_t row = 0; row < numRows_; ++row) {
    if (!validity_.isValid(row)) continue;  // NULL rows keep code 0, which exists unless every row is NULL
    std::optional<uint16_t> code = builder.codeOf(strings[row]);
    if (!code) return;
    codes[row] = *code;
    // A sample that is nearly all distinct means far more distinct strings than maxEntries (a column
    // of 8 rows per string shows about 85 % distinct in its first 4096 rows): give up now, not after
    // hashing maxEntries rows.
    if (row + 1 == kDictionarySampleRows && builder.entries().size() * 16 > kDictionarySampleRows * 15) return;
  }
  if (builder.entries().empty()) return;
  encoding_ = builder.entries().size() <= 256 ? ColumnEncoding::kDictionary8 : ColumnEncoding::kDictionary16;
  dictionary_.assign(builder.entries().begin(), builder.entries().end());
  homeStrings(dictionary_.data(), dictionary_.size());
  replaceValues(numRows_ * codeWidth(encoding_));
  if (encoding_ == ColumnEncoding::kDictionary8) {
    auto* narrow = static_cast<uint8_t*>(values_);
    for (size_t row = 0; row < numRows_; ++row) narrow[row] = static_cast<uint8_t>(codes[row]);
  } else {
    std::memcpy(values_, codes.data(), numRows_ * sizeof(uint16_t));
  }
}

void ColumnSegment::tryOffsets() {
  const PhysicalType physical = type_.physicalType();
  if (encoding_ != ColumnEncoding::kPlain || numRows_ == 0) return;
  if (physical != PhysicalType::kInt32 && physical != PhysicalType::kInt64) return;
  auto encode = [&](auto tag) {
    using T = decltype(tag);
    const T* values = static_cast<const T*>(values_);
    std::optional<T> min;
    std::optional<T> max;
    size_t nulls = 0;
    minMax(values, validity_, numRows_, nulls, min, max, std::less<T>());
    const int64_t base = min ? static_cast<int64_t>(*min) : 0;
    // The span in unsigned arithmetic: max - min never overflows there.
    const uint64_t span = min ? static_cast<uint64_t>(static_cast<int64_t>(*max)) - static_cast<uint64_t>(base) : 0;
    ColumnEncoding encoding = span <= UINT8_MAX    ? ColumnEncoding::kOffset8
                              : span <= UINT16_MAX ? ColumnEncoding::kOffset16
                              : span <= UINT32_MAX ? ColumnEncoding::kOffset32
                                                   : ColumnEncoding::kPlain;
    const size_t width = encoding == ColumnEncoding::kOffset8 ? 1 : encoding == ColumnEncoding::kOffset16 ? 2 : 4;
    if (encoding == ColumnEncoding::kPlain || width >= sizeof(T)) return;
    void* plain = values_;
    const size_t plainBytes = valueBytes_;
    const bool plainInScratch = valuesInScratch_;
    valuesInScratch_ = false;
    allocateValues(numRows_ * width);
    auto store = [&](auto offsetTag) {
      using Offset = decltype(offsetTag);
      auto* offsets = static_cast<Offset*>(values_);
      if (nulls == 0) {
        for (size_t row = 0; row < numRows_; ++row) {
          offsets[row] = static_cast<Offset>(static_cast<uint64_t>(static_cast<int64_t>(values[row])) -
                                             static_cast<uint64_t>(base));
        }
        return;
      }
      for (size_t row = 0; row < numRows_; ++row) {
        // NULL rows hold offset 0 (their values are never read).
        offsets[row] = validity_.isValid(row)
                           ? static_cast<Offset>(static_cast<uint64_t>(static_cast<int64_t>(values[row])) -
                                                 static_cast<uint64_t>(base))
                           : Offset{0};
      }
    };
    if (width == 1) {
      store(uint8_t{});
    } else if (width == 2) {
      store(uint16_t{});
    } else {
      store(uint32_t{});
    }
    if (!plainInScratch) memory_.release(plain, plainBytes);
    encoding_ = encoding;
    offsetBase_ = base;
  };
  if (physical == PhysicalType::kInt32) {
    encode(int32_t{});
  } else {
    encode(int64_t{});
  }
}

std::optional<engine::Vector> ColumnSegment::distinctNarrowValues() const {
  if (encoding_ != ColumnEncoding::kOffset8 && encoding_ != ColumnEncoding::kOffset16) return std::nullopt;
  std::vector<uint64_t> seen(encoding_ == ColumnEncoding::kOffset8 ? 256 / 64 : 65536 / 64, 0);
  auto mark = [&](auto offsetTag) {
    using Offset = decltype(offsetTag);
    const auto* offsets = static_cast<const Offset*>(values_);
    const bool allValid = zoneMap_.nullCount == 0;
    for (size_t row = 0; row < numRows_; ++row) {
      if (allValid || validity_.isValid(row)) seen[offsets[row] >> 6] |= uint64_t{1} << (offsets[row] & 63);
    }
  };
  if (encoding_ == ColumnEncoding::kOffset8) {
    mark(uint8_t{});
  } else {
    mark(uint16_t{});
  }
  size_t count = 0;
  for (uint64_t word : seen) count += static_cast<size_t>(std::popcount(word));
  engine::Vector distinct(type_, count);
  distinct.resize(count);
  auto fill = [&](auto valueTag) {
    using Value = decltype(valueTag);
    Value* out = distinct.data<Value>();
    for (size_t word = 0; word < seen.size(); ++word) {
      for (uint64_t bits = seen[word]; bits != 0; bits &= bits - 1) {
        const uint64_t offset = word * 64 + static_cast<uint64_t>(std::countr_zero(bits));
        *out++ = static_cast<Value>(offsetBase_ + static_cast<int64_t>(offset));
      }
    }
  };
  if (type_.physicalType() == PhysicalType::kInt32) {
    fill(int32_t{});
  } else {
    fill(int64_t{});
  }
  return distinct;
}

void ColumnSegment::decodeOffsets(size_t start, size_t count, std::byte* out) const {
  withOffsetTypes(encoding_, type_.physicalType(), [&](auto offsetTag, auto valueTag) {
    using Offset = decltype(offsetTag);
    using Value = decltype(valueTag);
    addBase(static_cast<const Offset*>(values_) + start, count, offsetBase_, reinterpret_cast<Value*>(out));
  });
}

ColumnSegment::~ColumnSegment() {
  if (!valuesInScratch_) memory_.release(values_, valueBytes_);
  memory_.release(stringBytes_, stringBytesSize_);
}

void ColumnSegment::allocateValues(size_t bytes) {
  valueBytes_ = bytes;
  values_ = memory_.allocate(bytes, numaNode_);
}

void ColumnSegment::read(size_t start, size_t count, Vector& out) const {
  SHOAL_DCHECK(start + count <= numRows_);
  out.resize(count);
  switch (encoding_) {
    case ColumnEncoding::kPlain: {
      const size_t width = engine::physicalTypeWidth(type_.physicalType());
      std::memcpy(out.data<std::byte>(), static_cast<const std::byte*>(values_) + start * width, count * width);
      break;
    }
    case ColumnEncoding::kDictionary8: {
      const uint8_t* codes = static_cast<const uint8_t*>(values_) + start;
      StringRef* target = out.data<StringRef>();
      for (size_t i = 0; i < count; ++i) target[i] = dictionary_[codes[i]];
      break;
    }
    case ColumnEncoding::kDictionary16: {
      const uint16_t* codes = static_cast<const uint16_t*>(values_) + start;
      StringRef* target = out.data<StringRef>();
      for (size_t i = 0; i < count; ++i) target[i] = dictionary_[codes[i]];
      break;
    }
    case ColumnEncoding::kOffset8:
    case ColumnEncoding::kOffset16:
    case ColumnEncoding::kOffset32:
      decodeOffsets(start, count, out.data<std::byte>());
      break;
  }
  engine::ValidityMask& validity = out.validity();
  if (zoneMap_.nullCount == 0) {
    validity.setAllValid();
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    validity.setValid(i, validity_.isValid(start + i));
  }
}

void ColumnSegment::gather(size_t start, std::span<const uint32_t> rows, Vector& out) const {
  SHOAL_DCHECK(rows.empty() || start + rows.back() < numRows_);
  out.resize(rows.size());
  auto gatherCodes = [&](auto codes) {
    StringRef* target = out.data<StringRef>();
    for (size_t i = 0; i < rows.size(); ++i) target[i] = dictionary_[codes[start + rows[i]]];
  };
  switch (encoding_) {
    case ColumnEncoding::kPlain: {
      const size_t width = engine::physicalTypeWidth(type_.physicalType());
      const std::byte* from = static_cast<const std::byte*>(values_) + start * width;
      std::byte* to = out.data<std::byte>();
      for (size_t i = 0; i < rows.size(); ++i) engine::copyValue(to + i * width, from + rows[i] * width, width);
      break;
    }
    case ColumnEncoding::kDictionary8:
      gatherCodes(static_cast<const uint8_t*>(values_));
      break;
    case ColumnEncoding::kDictionary16:
      gatherCodes(static_cast<const uint16_t*>(values_));
      break;
    case ColumnEncoding::kOffset8:
    case ColumnEncoding::kOffset16:
    case ColumnEncoding::kOffset32:
      withOffsetTypes(encoding_, type_.physicalType(), [&](auto offsetTag, auto valueTag) {
        using Offset = decltype(offsetTag);
        using Value = decltype(valueTag);
        const Offset* offsets = static_cast<const Offset*>(values_) + start;
        Value* target = out.data<Value>();
        for (size_t i = 0; i < rows.size(); ++i) {
          target[i] = static_cast<Value>(offsetBase_ + static_cast<int64_t>(offsets[rows[i]]));
        }
      });
      break;
  }
  engine::ValidityMask& validity = out.validity();
  if (zoneMap_.nullCount == 0) {
    validity.setAllValid();
    return;
  }
  for (size_t i = 0; i < rows.size(); ++i) validity.setValid(i, validity_.isValid(start + rows[i]));
}

size_t ColumnSegment::memoryBytes() const {
  return valueBytes_ + dictionary_.capacity() * sizeof(StringRef) + validity_.numWords() * sizeof(uint64_t) +
         stringBytesSize_;
}

namespace {

/// Lengths, then the bytes, of `strings` (NULL rows are empty strings).
void appendStrings(AlignedBuffer& out, const StringRef* strings, size_t count) {
  char* lengths = out.extend(count * sizeof(uint32_t));
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t length = strings[i].size();
    std::memcpy(lengths + i * sizeof(uint32_t), &length, sizeof(length));
    bytes += length;
  }
  char* text = out.extend(bytes);
  for (size_t i = 0; i < count; ++i) {
    std::string_view view = strings[i].view();
    std::memcpy(text, view.data(), view.size());
    text += view.size();
  }
}

/// Reads what appendStrings wrote, as handles to the reader's bytes.
void readStrings(ByteReader& reader, size_t count, StringRef* out) {
  std::string_view lengths = reader.take(count * sizeof(uint32_t));
  for (size_t i = 0; i < count; ++i) {
    uint32_t length;
    std::memcpy(&length, lengths.data() + i * sizeof(uint32_t), sizeof(length));
    out[i] = StringRef(reader.take(length));
  }
}

}  // namespace

void ColumnSegment::serialize(AlignedBuffer& out) const {
  const bool hasNulls = zoneMap_.nullCount > 0;
  // Offsets are an in-memory encoding: the file holds the column plain.
  const bool offsets = isOffsetEncoding(encoding_);
  out.appendRaw(static_cast<uint8_t>(offsets ? ColumnEncoding::kPlain : encoding_));
  out.appendRaw(static_cast<uint8_t>(hasNulls));
  if (hasNulls) out.append(validity_.words(), validity_.numWords() * sizeof(uint64_t));
  if (offsets) {
    char* plain = out.extend(numRows_ * engine::physicalTypeWidth(type_.physicalType()));
    decodeOffsets(0, numRows_, reinterpret_cast<std::byte*>(plain));
    return;
  }
  if (encoding_ == ColumnEncoding::kPlain) {
    if (type_.physicalType() == PhysicalType::kString) {
      appendStrings(out, static_cast<const StringRef*>(values_), numRows_);
    } else {
      out.append(values_, valueBytes_);
    }
    return;
  }
  out.appendRaw(static_cast<uint32_t>(dictionary_.size()));
  appendStrings(out, dictionary_.data(), dictionary_.size());
  out.append(values_, valueBytes_);
}

std::unique_ptr<ColumnSegment> ColumnSegment::deserialize(const LogicalType& type, size_t numRows, ByteReader& reader,
                                                          uint32_t numaNode, SegmentMemory& memory) {
  std::unique_ptr<ColumnSegment> column(new ColumnSegment(type, numRows, numaNode, memory));
  const auto encoding = reader.read<uint8_t>();
  const auto hasNulls = reader.read<uint8_t>();
  const bool isString = type.physicalType() == PhysicalType::kString;
  if (encoding > static_cast<uint8_t>(ColumnEncoding::kDictionary16) || hasNulls > 1 || (encoding != 0 && !isString)) {
    reader.fail(fmt::format("column of type {} has encoding {} and null flag {}", type.toString(), encoding, hasNulls));
  }
  column->encoding_ = static_cast<ColumnEncoding>(encoding);
  if (hasNulls) {
    std::string_view words = reader.take(column->validity_.numWords() * sizeof(uint64_t));
    std::memcpy(column->validity_.words(), words.data(), words.size());
  }
  std::unique_ptr<std::byte[]> scratch;
  if (column->encoding_ == ColumnEncoding::kPlain) {
    const size_t width = engine::physicalTypeWidth(type.physicalType());
    if (isString) {
      column->allocateValues(numRows * width);
      auto* strings = static_cast<StringRef*>(column->values_);
      readStrings(reader, numRows, strings);
      column->homeStrings(strings, numRows);
    } else {
      // Plain in scratch first: an integer column is kept as offsets (tryOffsets, below).
      scratch = column->startInScratch(numRows * width);
      std::memcpy(column->values_, reader.take(column->valueBytes_).data(), column->valueBytes_);
    }
  } else {
    const uint32_t entries = reader.read<uint32_t>();
    const size_t width = codeWidth(column->encoding_);
    if (entries == 0 || entries > (size_t{1} << (8 * width))) reader.fail("impossible dictionary size");
    column->dictionary_.resize(entries);
    readStrings(reader, entries, column->dictionary_.data());
    column->homeStrings(column->dictionary_.data(), entries);
    column->allocateValues(numRows * width);
    std::memcpy(column->values_, reader.take(column->valueBytes_).data(), column->valueBytes_);
    for (size_t row = 0; row < numRows; ++row) {
      size_t code = width == 1 ? static_cast<const uint8_t*>(column->values_)[row]
                               : static_cast<const uint16_t*>(column->values_)[row];
      if (code >= entries) reader.fail("dictionary code out of range");
    }
  }
  column->computeZoneMap();
  column->tryOffsets();
  column->settleValues();
  return column;
}

void ColumnSegment::computeZoneMap() {
  zoneMap_.min = engine::Value::null(type_);
  zoneMap_.max = engine::Value::null(type_);
  auto fill = [&](auto tag, auto less, auto toValue) {
    using T = decltype(tag);
    std::optional<T> min;
    std::optional<T> max;
    minMax(static_cast<const T*>(values_), validity_, numRows_, zoneMap_.nullCount, min, max, less);
    if (min) {
      zoneMap_.min = toValue(*min);
      zoneMap_.max = toValue(*max);
    }
  };
  auto less = [](const auto& a, const auto& b) { return a < b; };
  switch (type_.id()) {
    case engine::TypeId::kBoolean:
      fill(uint8_t{}, less, [](uint8_t v) { return engine::Value::boolean(v != 0); });
      break;
    case engine::TypeId::kSmallInt:
    case engine::TypeId::kInteger:
    case engine::TypeId::kDate:
      fill(int32_t{}, less, [&](int32_t v) { return engine::Value::ofInt32(type_, v); });
      break;
    case engine::TypeId::kBigInt:
    case engine::TypeId::kTimestamp:
    case engine::TypeId::kTimestampTz:
    case engine::TypeId::kTime:
      fill(int64_t{}, less, [&](int64_t v) { return engine::Value::ofInt64(type_, v); });
      break;
    case engine::TypeId::kDecimal:
      if (type_.physicalType() == PhysicalType::kInt64) {
        fill(int64_t{}, less, [&](int64_t v) { return engine::Value::decimal(type_, v); });
      } else {
        fill(engine::int128_t{}, less, [&](engine::int128_t v) { return engine::Value::decimal(type_, v); });
      }
      break;
    case engine::TypeId::kDouble:
      // NaN sorts above every number, as in PostgreSQL.
      fill(
          double{}, [](double a, double b) { return std::isnan(b) ? !std::isnan(a) : a < b; },
          [&](double v) { return engine::Value::ofDouble(type_, v); });
      break;
    case engine::TypeId::kArray:
    case engine::TypeId::kRecord:
      // No range (an array's bytes do not order as the array does): only the NULLs are counted.
      zoneMap_.ranged = false;
      for (size_t row = 0; row < numRows_; ++row) zoneMap_.nullCount += !validity_.isValid(row);
      break;
    case engine::TypeId::kUuid:
      fill(engine::int128_t{}, less, [](engine::int128_t v) { return engine::Value::uuid(v); });
      break;
    case engine::TypeId::kInterval:
      // Intervals order by their span ('1 mon' = '30 days'), not by their packed bits.
      fill(
          engine::int128_t{},
          [](engine::int128_t a, engine::int128_t b) { return engine::intervalSpan(a) < engine::intervalSpan(b); },
          [](engine::int128_t v) { return engine::Value::interval(v); });
      break;
    case engine::TypeId::kVarchar:
    case engine::TypeId::kChar:
    case engine::TypeId::kBytea:
    case engine::TypeId::kUnknown: {
      auto stringLess = [](const StringRef& a, const StringRef& b) { return compare(a, b) < 0; };
      auto toValue = [&](const StringRef& v) { return engine::Value::varchar(std::string(v.view()), type_); };
      if (encoding_ == ColumnEncoding::kPlain) {
        fill(StringRef{}, stringLess, toValue);
        break;
      }
      // Every dictionary entry comes from a non-NULL row, so the entries' range is the column's.
      for (size_t row = 0; row < numRows_; ++row) zoneMap_.nullCount += !validity_.isValid(row);
      const StringRef* min = &dictionary_[0];
      const StringRef* max = &dictionary_[0];
      for (const StringRef& entry : dictionary_) {
        if (stringLess(entry, *min)) min = &entry;
        if (stringLess(*max, entry)) max = &entry;
      }
      zoneMap_.min = toValue(*min);
      zoneMap_.max = toValue(*max);
      break;
    }
  }
}

}  // namespace shoal::worker
