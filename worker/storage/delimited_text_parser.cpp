#include "worker/storage/delimited_text_parser.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "common/status.h"
#include "engine/types/array_value.h"
#include "engine/types/bytea_text.h"
#include "engine/types/date.h"
#include "engine/types/decimal.h"
#include "engine/types/interval.h"
#include "engine/types/json_text.h"
#include "engine/types/jsonb_text.h"
#include "engine/types/text_format.h"
#include "engine/types/time_zone.h"
#include "engine/types/timestamp_text.h"
#include "engine/types/uuid_value.h"

namespace shoal::worker {

using engine::LogicalType;
using engine::PhysicalType;
using engine::StringRef;
using engine::TypeId;

namespace {

inline bool isDigit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

/// 10^0 to 10^19, all that a uint64_t holds.
constexpr std::array<uint64_t, 20> kPowersOf10 = [] {
  std::array<uint64_t, 20> powers{};
  uint64_t power = 1;
  for (uint64_t& entry : powers) {
    entry = power;
    power *= 10;  // wraps after the last entry, unused
  }
  return powers;
}();

/// A bitmap of the bytes among the 64 at `p` that are `a`, `b` or `c`.
inline uint64_t matchBits(const char* p, char a, char b, char c) {
#if defined(__AVX2__)
  const __m256i va = _mm256_set1_epi8(a);
  const __m256i vb = _mm256_set1_epi8(b);
  const __m256i vc = _mm256_set1_epi8(c);
  auto match32 = [&](const char* q) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
    __m256i any =
        _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, va), _mm256_cmpeq_epi8(v, vb)), _mm256_cmpeq_epi8(v, vc));
    return static_cast<uint32_t>(_mm256_movemask_epi8(any));
  };
  return match32(p) | (uint64_t{match32(p + 32)} << 32);
#else
  uint64_t bits = 0;
  for (int i = 0; i < 64; ++i) bits |= uint64_t{p[i] == a || p[i] == b || p[i] == c} << i;
  return bits;
#endif
}

/// A bitmap of the bytes among the `size` (< 64) at `p` that are `a`, `b` or `c`, reading no further.
[[gnu::noinline]] uint64_t matchBitsOfTail(const char* p, size_t size, char a, char b, char c) {
  char padded[64] = {};
  std::memcpy(padded, p, size);
  return matchBits(padded, a, b, c) & ((uint64_t{1} << size) - 1);
}

/// The value of the `length` (1 to 8) decimal digits that end at `end`, from one 8-byte load of the bytes
/// before `end` (which must be readable); false if one of them is not a digit.
[[gnu::always_inline]] inline bool swarDigits(const char* end, size_t length, uint64_t& value) {
  uint64_t bytes;
  std::memcpy(&bytes, end - 8, 8);
  // Digits become 0..9 and the bytes before the number 0, i.e. leading zeros (the first byte is the most
  // significant digit: little endian).
  bytes = (bytes ^ 0x3030303030303030) & (~uint64_t{0} << (8 * (8 - length)));
  // A byte above 9 sets its top bit once 0x76 is added (a carry out of a bad byte only spoils a bad result).
  if ((((bytes + 0x7676767676767676) | bytes) & 0x8080808080808080) != 0) return false;
  // Pairs, then fours, then eight digits (Lemire, "Faster parsing of eight digits").
  bytes = bytes * 10 + (bytes >> 8);
  value = (((bytes & 0x000000FF000000FF) * (100 + (1000000ULL << 32))) +
           (((bytes >> 16) & 0x000000FF000000FF) * (1 + (10000ULL << 32)))) >>
          32;
  return true;
}

/// The value of the plain decimal digits [begin, end), at most 19 of them; false for anything else (an
/// empty text too). Loads 16 bytes before `end` when they are readable (from `readable` on).
[[gnu::always_inline]] inline bool fastDigits(const char* begin, const char* end, const char* readable,
                                              uint64_t& value) {
  size_t length = static_cast<size_t>(end - begin);
  if (length - 1 >= 19) return false;
  if (end - readable >= 16 && length <= 16) {
    if (length <= 8) return swarDigits(end, length, value);
    uint64_t high;
    uint64_t low;
    if (!swarDigits(end - 8, length - 8, high) || !swarDigits(end, 8, low)) return false;
    value = high * 100000000 + low;
    return true;
  }
  uint64_t result = 0;
  for (const char* p = begin; p != end; ++p) {
    unsigned digit = static_cast<unsigned char>(*p) - '0';
    if (digit > 9) return false;
    result = result * 10 + digit;
  }
  value = result;
  return true;
}

/// [-]digits, at most `maxDigits` (< 19) of them so that the value cannot overflow; false for anything else.
[[gnu::always_inline]] inline bool fastInteger(const char* begin, const char* end, const char* readable, int maxDigits,
                                               int64_t& value) {
  bool negative = *begin == '-';
  uint64_t magnitude;
  if (end - begin - negative > maxDigits || !fastDigits(begin + negative, end, readable, magnitude)) return false;
  value = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

/// [-]digits[.digits] with at most `scale` fraction digits (more need rounding), at most `maxIntegerDigits`
/// integer digits and an integer part below `integerPartLimit` (10^(precision - scale)), scaled to `scale`;
/// false for anything else. `maxIntegerDigits` + `scale` <= 18 keeps the value in an int64.
[[gnu::always_inline]] inline bool fastDecimal(const char* begin, const char* end, const char* readable, int scale,
                                               int maxIntegerDigits, uint64_t integerPartLimit, int64_t& value) {
  if (maxIntegerDigits < 0) return false;  // a scale above 18
  const char* p = begin + (*begin == '-');
  uint64_t result = 0;
  int fractionDigits = scale;
  if (scale > 0 && end - p > scale && end[-1 - scale] == '.') {
    // The usual layout, with exactly `scale` fraction digits: each part in one go.
    const char* point = end - 1 - scale;
    uint64_t integerPart = 0;
    uint64_t fraction;
    if (point - p > maxIntegerDigits || (point != p && !fastDigits(p, point, readable, integerPart)) ||
        integerPart >= integerPartLimit || !fastDigits(point + 1, end, readable, fraction)) {
      return false;
    }
    result = integerPart * kPowersOf10[scale] + fraction;
  } else {
    const char* integerStart = p;
    for (; p != end && isDigit(*p); ++p) result = result * 10 + static_cast<unsigned>(*p - '0');
    // A wrapped result is never used: too many digits fail the first test.
    if (p - integerStart > maxIntegerDigits || result >= integerPartLimit) return false;
    bool anyDigit = p != integerStart;
    fractionDigits = 0;
    if (p != end) {
      if (*p != '.' || end - p - 1 > scale) return false;
      fractionDigits = static_cast<int>(end - p - 1);
      anyDigit |= fractionDigits > 0;
      for (++p; p != end; ++p) {
        if (!isDigit(*p)) return false;
        result = result * 10 + static_cast<unsigned>(*p - '0');
      }
    }
    if (!anyDigit) return false;
  }
  value = static_cast<int64_t>(result * kPowersOf10[scale - fractionDigits]);
  if (*begin == '-') value = -value;
  return true;
}

/// YYYY-MM-DD, validated; false for any other layout.
[[gnu::always_inline]] inline bool fastDate(const char* text, const char* end, int32_t& days) {
  if (end - text != 10) return false;
  uint64_t head;  // "YYYY-MM-", first character in the lowest byte
  uint16_t tail;  // "DD"
  std::memcpy(&head, text, 8);
  std::memcpy(&tail, text + 8, 2);
  constexpr uint64_t kDashBytes = 0xFF0000FF00000000;  // bytes 4 and 7
  if ((head & kDashBytes) != 0x2D00002D00000000) return false;
  uint64_t digits = (head ^ 0x3030303030303030) & ~kDashBytes;
  uint32_t dayDigits = tail ^ 0x3030U;
  if ((((digits + 0x7676767676767676) | digits) & 0x8080808080808080) != 0 ||
      (((dayDigits + 0x7676) | dayDigits) & 0x8080) != 0) {
    return false;
  }
  auto digit = [&](int index) { return static_cast<uint32_t>((digits >> (8 * index)) & 0xFF); };
  int32_t year = static_cast<int32_t>(digit(0) * 1000 + digit(1) * 100 + digit(2) * 10 + digit(3));
  uint32_t month = digit(5) * 10 + digit(6);
  uint32_t day = (dayDigits & 0xFF) * 10 + (dayDigits >> 8);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > engine::daysInMonth(year, month)) return false;
  days = engine::daysFromCivil(engine::CivilDate{year, month, day});
  return true;
}

/// Whether the line at `line` is PostgreSQL's end-of-data marker, "\\." alone (before "\n", "\r\n" or the end).
inline bool isEndOfDataMarker(const char* line, const char* end) {
  if (end - line < 2 || line[0] != '\\' || line[1] != '.') return false;
  const char* after = line + 2;
  if (after != end && *after == '\r') ++after;
  return after == end || *after == '\n';
}

/// Characters (not bytes) of UTF-8 text, counted only when the byte length could exceed `limit`.
inline bool exceedsCharacters(std::string_view text, uint32_t limit) {
  if (text.size() <= limit) return false;
  size_t characters = 0;
  for (char c : text) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return characters > limit;
}

}  // namespace

size_t endOfLastCompleteLine(std::string_view text, const TextFormatOptions& options) {
  if (options.format != TextFileFormat::kCsv) {
    size_t end = text.rfind('\n');
    return end == std::string_view::npos ? 0 : end + 1;
  }
  // CSV: a newline inside quotes is data. Track the quote state from the start, jumping from quote to quote
  // (a doubled quote closes and reopens).
  const char* begin = text.data();
  const char* end = begin + text.size();
  const char* cursor = begin;
  size_t last = 0;
  while (cursor != end) {
    const char* open = static_cast<const char*>(std::memchr(cursor, options.quote, static_cast<size_t>(end - cursor)));
    const char* outside = open ? open : end;
    if (const void* newline = ::memrchr(cursor, '\n', static_cast<size_t>(outside - cursor))) {
      last = static_cast<size_t>(static_cast<const char*>(newline) - begin) + 1;
    }
    if (!open) break;
    const char* close =
        static_cast<const char*>(std::memchr(open + 1, options.quote, static_cast<size_t>(end - open - 1)));
    if (!close) break;  // the rest is inside quotes
    cursor = close + 1;
  }
  return last;
}

DelimitedTextParser::DelimitedTextParser(std::vector<LogicalType> columnTypes, std::vector<std::string> columnNames,
                                         TextFormatOptions options, std::string sourceName)
    : types_(std::move(columnTypes)),
      names_(std::move(columnNames)),
      options_(options),
      timeZone_(&engine::TimeZone::named(options.timeZone)),
      nullText_(options.nullText.value_or(options.format == TextFileFormat::kText ? "\\N" : "")),
      sourceName_(std::move(sourceName)) {
  SHOAL_CHECK(types_.size() == names_.size() && !types_.empty(), "parser of {} types and {} names", types_.size(),
              names_.size());
  // Checked per CSV field: sized to the fields once, so that the check needs no bounds test.
  for (auto* flags : {&options_.forceNotNull, &options_.forceNull}) {
    if (flags->empty()) flags->assign(types_.size(), false);
    if (flags->size() != types_.size()) {
      SHOAL_USER_FAIL(SqlState::kDataCorrupted, "FORCE_NULL or FORCE_NOT_NULL of {} fields for {} columns",
                      flags->size(), types_.size());
    }
  }
  for (const LogicalType& type : types_) {
    Column column{};
    column.scale = type.scale();
    column.width = static_cast<uint32_t>(engine::physicalTypeWidth(type.physicalType()));
    column.maxLength = type.maxLength();
    switch (type.id()) {
      case TypeId::kBoolean:
        column.kind = Kind::kBoolean;
        break;
      case TypeId::kSmallInt:
        column.kind = Kind::kInt16;
        break;
      case TypeId::kInteger:
        column.kind = Kind::kInt32;
        break;
      case TypeId::kBigInt:
        column.kind = Kind::kInt64;
        break;
      case TypeId::kDecimal: {
        column.kind = type.physicalType() == PhysicalType::kInt64 ? Kind::kDecimal64 : Kind::kDecimal128;
        // The fast path works in an int64 of at most 18 digits; wider values (and scales) take the exact path.
        column.maxFastIntegerDigits = type.scale() <= 18 ? 18 - type.scale() : -1;
        int integerDigits = type.precision() - type.scale();
        column.integerPartLimit = integerDigits < static_cast<int>(kPowersOf10.size())
                                      ? kPowersOf10[integerDigits]
                                      : std::numeric_limits<uint64_t>::max();
        break;
      }
      case TypeId::kDouble:
        column.kind = type.isReal() ? Kind::kTimestamp : Kind::kDouble;  // a real rounds on the exact path
        break;
      case TypeId::kDate:
        column.kind = Kind::kDate;
        break;
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTime:
      case TypeId::kInterval:
      case TypeId::kUuid:
      case TypeId::kBytea:
        column.kind = Kind::kTimestamp;  // the exact path only
        break;
      case TypeId::kVarchar:
        column.kind = type.isJson() ? Kind::kTimestamp : Kind::kVarchar;  // json is validated on the exact path
        break;
      case TypeId::kChar:
        column.kind = Kind::kChar;
        break;
      case TypeId::kArray:
      case TypeId::kRecord:              // refused by parseValue on the exact path
        column.kind = Kind::kTimestamp;  // the exact path only: array_in
        break;
      case TypeId::kUnknown:
        SHOAL_UNREACHABLE("column of type {}", type.toString());
    }
    columns_.push_back(column);
  }
}

void DelimitedTextParser::failRow(std::string_view sqlState, size_t column, const std::string& message) const {
  if (column < names_.size()) {
    SHOAL_USER_FAIL(sqlState, "COPY from {}, line {}, column {}: {}", sourceName_, lineNumber_, names_[column],
                    message);
  }
  SHOAL_USER_FAIL(sqlState, "COPY from {}, line {}: {}", sourceName_, lineNumber_, message);
}

void DelimitedTextParser::failShortTblLine(size_t column, const char* lineStart, const char* fieldStart,
                                           const char* lineEnd) const {
  if (lineEnd > lineStart && lineEnd[-1] == '\r') --lineEnd;
  if (fieldStart >= lineEnd) {
    failRow(SqlState::kBadCopyFileFormat, column, "missing data (the line has too few fields)");
  }
  failRow(SqlState::kBadCopyFileFormat, column, fmt::format("field does not end with '{}'", options_.delimiter));
}

void DelimitedTextParser::startChunk() {
  current_ = engine::Chunk(0);
  for (size_t c = 0; c < types_.size(); ++c) {
    current_.addColumn(engine::Vector::uninitialized(types_[c], engine::kVectorSize));
    engine::Vector& vector = current_.column(c);
    columns_[c].values = vector.data<std::byte>();
    columns_[c].validity = vector.validity().words();
    columns_[c].heap = &vector.heap();
    columns_[c].longTextSize = 0;  // after a failed parse
    columns_[c].longStrings.clear();
  }
  row_ = 0;
}

void DelimitedTextParser::finishChunk(std::vector<engine::Chunk>& out) {
  if (row_ == 0) return;
  for (Column& column : columns_) {
    if (column.longStrings.empty()) continue;
    // One copy into the heap for the whole chunk, then each string points into it.
    std::string_view copy = column.heap->add(std::string_view(column.longText.data(), column.longTextSize)).view();
    auto* refs = reinterpret_cast<StringRef*>(column.values);
    size_t offset = 0;
    for (auto [row, length] : column.longStrings) {
      refs[row] = StringRef(copy.substr(offset, length));
      offset += length;
    }
    column.longStrings.clear();
    column.longTextSize = 0;
  }
  for (size_t c = 0; c < current_.numColumns(); ++c) current_.column(c).resize(row_);
  current_.setSize(row_);
  out.push_back(std::move(current_));
  row_ = 0;
}

class DelimitedTextParser::BoundaryScanner {
 public:
  /// For .tbl, pass '\n' as `quote`: there are no quotes.
  BoundaryScanner(const char* begin, const char* end, char delimiter, char quote)
      : begin_(begin), size_(static_cast<size_t>(end - begin)), delimiter_(delimiter), quote_(quote) {
    if (size_ != 0) load(0);
  }

  /// The first delimiter, newline or quote at or after `from` (which is at most the end); the end if none.
  [[gnu::always_inline]] const char* next(const char* from) {
    size_t position = static_cast<size_t>(from - begin_);
    while (true) {
      size_t offset = position - window_;
      if (offset >= 64) {  // also when `from` is before the window
        if (position >= size_) return begin_ + size_;
        load(position);
        offset = 0;
      }
      uint64_t bits = mask_ >> offset;
      if (bits != 0) return begin_ + position + std::countr_zero(bits);
      position = window_ + 64;
    }
  }

 private:
  [[gnu::always_inline]] void load(size_t position) {
    window_ = position;
    mask_ = size_ - position >= 64 ? matchBits(begin_ + position, delimiter_, '\n', quote_)
                                   : matchBitsOfTail(begin_ + position, size_ - position, delimiter_, '\n', quote_);
  }

  const char* begin_;
  size_t size_;
  char delimiter_;
  char quote_;
  size_t window_ = 0;  // the offset of the 64 bytes that mask_ maps, a bit per byte
  uint64_t mask_ = 0;
};

[[gnu::always_inline]] inline void DelimitedTextParser::setField(size_t index, const char* begin, const char* end,
                                                                 Readable readable) {
  Column& column = columns_[index];
  if (begin == end) {  // only a quoted CSV field ("") is empty here
    setFieldExactly(index, {});
    return;
  }
  switch (column.kind) {
    case Kind::kInt16: {
      int64_t value;
      if (!fastInteger(begin, end, readable.begin, 4, value)) break;  // 4 digits always fit
      reinterpret_cast<int32_t*>(column.values)[row_] = static_cast<int32_t>(value);
      return;
    }
    case Kind::kInt32: {
      int64_t value;
      if (!fastInteger(begin, end, readable.begin, 9, value)) break;  // 9 digits always fit
      reinterpret_cast<int32_t*>(column.values)[row_] = static_cast<int32_t>(value);
      return;
    }
    case Kind::kInt64: {
      int64_t value;
      if (!fastInteger(begin, end, readable.begin, 18, value)) break;
      reinterpret_cast<int64_t*>(column.values)[row_] = value;
      return;
    }
    case Kind::kDecimal64:
    case Kind::kDecimal128: {
      int64_t value;
      if (!fastDecimal(begin, end, readable.begin, column.scale, column.maxFastIntegerDigits, column.integerPartLimit,
                       value)) {
        break;
      }
      if (column.kind == Kind::kDecimal64) {
        reinterpret_cast<int64_t*>(column.values)[row_] = value;
      } else {
        reinterpret_cast<engine::int128_t*>(column.values)[row_] = value;
      }
      return;
    }
    case Kind::kDouble: {
      double value;
      auto [parsedEnd, error] = std::from_chars(begin, end, value);
      if (error != std::errc() || parsedEnd != end || !std::isfinite(value)) break;
      reinterpret_cast<double*>(column.values)[row_] = value;
      return;
    }
    case Kind::kDate: {
      int32_t days;
      if (!fastDate(begin, end, days)) break;
      reinterpret_cast<int32_t*>(column.values)[row_] = days;
      return;
    }
    case Kind::kTimestamp:
      break;
    case Kind::kBoolean: {
      // The common spellings; the rest (any case, prefixes, yes/no/on/off, spaces) take the exact path.
      std::string_view text(begin, static_cast<size_t>(end - begin));
      bool isTrue = text == "t" || text == "true" || text == "1";
      if (!isTrue && text != "f" && text != "false" && text != "0") break;
      reinterpret_cast<uint8_t*>(column.values)[row_] = isTrue;
      return;
    }
    case Kind::kVarchar:
    case Kind::kChar: {
      if (column.kind == Kind::kChar) {
        while (end != begin && end[-1] == ' ') --end;  // CHAR(n) keeps no trailing spaces
      }
      std::string_view text(begin, static_cast<size_t>(end - begin));
      if (column.maxLength > 0 && exceedsCharacters(text, column.maxLength)) break;
      if (text.size() <= StringRef::kInlineBytes) {
        // In place: a temporary costs a store-forwarding stall on the copy.
        std::construct_at(reinterpret_cast<StringRef*>(column.values) + row_, text);
      } else {
        addLongString(column, text, readable);
      }
      return;
    }
  }
  setFieldExactly(index, std::string_view(begin, static_cast<size_t>(end - begin)));
}

[[gnu::always_inline]] inline void DelimitedTextParser::addLongString(Column& column, std::string_view text,
                                                                      Readable readable) {
  // Keep 64 bytes of slack, so that a string of up to 64 bytes is one fixed-size copy (of the bytes after it
  // too, overwritten by the next), with no branches on its length.
  size_t needed = column.longTextSize + std::max<size_t>(text.size(), 64);
  if (needed > column.longText.size()) column.longText.resize(std::max(needed, 2 * column.longText.size()));
  char* target = column.longText.data() + column.longTextSize;
  if (text.size() <= 64 && readable.end - text.data() >= 64) {
    std::memcpy(target, text.data(), 64);
  } else {
    std::memcpy(target, text.data(), text.size());
  }
  column.longTextSize += text.size();
  column.longStrings.emplace_back(static_cast<uint32_t>(row_), static_cast<uint32_t>(text.size()));
}

void DelimitedTextParser::setFieldExactly(size_t index, std::string_view text) {
  const LogicalType& type = types_[index];
  std::byte* values = columns_[index].values;
  try {
    switch (type.id()) {
      case TypeId::kSmallInt:
        reinterpret_cast<int32_t*>(values)[row_] = engine::parseSmallInt(text);
        return;
      case TypeId::kInteger:
        reinterpret_cast<int32_t*>(values)[row_] = engine::parseInteger(text);
        return;
      case TypeId::kBigInt:
        reinterpret_cast<int64_t*>(values)[row_] = engine::parseBigInt(text);
        return;
      case TypeId::kDecimal: {
        engine::int128_t value = engine::parseDecimal(text, type.precision(), type.scale());
        if (type.physicalType() == PhysicalType::kInt64) {
          reinterpret_cast<int64_t*>(values)[row_] = static_cast<int64_t>(value);
        } else {
          reinterpret_cast<engine::int128_t*>(values)[row_] = value;
        }
        return;
      }
      case TypeId::kDouble:
        reinterpret_cast<double*>(values)[row_] = type.isReal() ? engine::parseReal(text) : engine::parseDouble(text);
        return;
      case TypeId::kDate:
        reinterpret_cast<int32_t*>(values)[row_] = engine::parseDate(text);
        return;
      case TypeId::kTimestamp:  // rounded to timestamp(p)'s digits, and so on
        reinterpret_cast<int64_t*>(values)[row_] = engine::roundToFractionalDigits(engine::parseTimestamp(text), type);
        return;
      case TypeId::kTimestampTz:
        reinterpret_cast<int64_t*>(values)[row_] =
            engine::roundToFractionalDigits(engine::parseTimestampTz(text, *timeZone_), type);
        return;
      case TypeId::kTime:
        reinterpret_cast<int64_t*>(values)[row_] = engine::roundToFractionalDigits(engine::parseTime(text), type);
        return;
      case TypeId::kInterval:
        reinterpret_cast<engine::int128_t*>(values)[row_] = engine::packInterval(engine::parseInterval(text));
        return;
      case TypeId::kUuid:
        reinterpret_cast<engine::int128_t*>(values)[row_] = engine::parseUuid(text);
        return;
      case TypeId::kBytea:
        reinterpret_cast<StringRef*>(values)[row_] = columns_[index].heap->add(engine::parseBytea(text));
        return;
      case TypeId::kBoolean:
        reinterpret_cast<uint8_t*>(values)[row_] = engine::parseBoolean(text);
        return;
      case TypeId::kVarchar:
        if (type.maxLength() > 0 && exceedsCharacters(text, type.maxLength())) {
          SHOAL_USER_FAIL(SqlState::kStringDataRightTruncation, "value too long for type character varying({})",
                          type.maxLength());
        }
        if (type.isJsonb()) {
          reinterpret_cast<StringRef*>(values)[row_] = columns_[index].heap->add(engine::jsonbFromText(text));
          return;
        }
        if (type.isJson()) engine::requireValidJson(text);
        reinterpret_cast<StringRef*>(values)[row_] = columns_[index].heap->add(text);
        return;
      case TypeId::kChar: {
        std::string_view stripped = engine::stripTrailingSpaces(text);
        if (exceedsCharacters(stripped, type.maxLength())) {
          SHOAL_USER_FAIL(SqlState::kStringDataRightTruncation, "value too long for type character({})",
                          type.maxLength());
        }
        reinterpret_cast<StringRef*>(values)[row_] = columns_[index].heap->add(stripped);
        return;
      }
      case TypeId::kRecord:
        engine::parseValue(text, type);  // fails: records have no input
        return;
      case TypeId::kArray:
        reinterpret_cast<StringRef*>(values)[row_] =
            columns_[index].heap->add(engine::parseArrayText(text, type, timeZone_));
        return;
      case TypeId::kUnknown:
        break;
    }
  } catch (const ShoalError& error) {
    failRow(error.status().sqlState(), index, error.status().message());
  }
  SHOAL_UNREACHABLE("column of type {}", type.toString());
}

[[gnu::always_inline]] inline const char* DelimitedTextParser::parseTblLine(const char* cursor,
                                                                            BoundaryScanner& scanner) {
  const Readable block{begin_, end_};
  const char* lineStart = cursor;
  const char delimiter = options_.delimiter;
  const size_t numColumns = columns_.size();
  for (size_t column = 0; column < numColumns; ++column) {
    // Every .tbl field ends with the delimiter, the last one too: a newline first means the line is short.
    const char* fieldEnd = scanner.next(cursor);
    if (fieldEnd == block.end || *fieldEnd != delimiter) failShortTblLine(column, lineStart, cursor, fieldEnd);
    if (fieldEnd == cursor) {
      setNull(column);
    } else {
      setField(column, cursor, fieldEnd, block);
    }
    cursor = fieldEnd + 1;
  }
  // Only the '\r' of a "\r\n" may follow the last delimiter.
  const char* lineEnd = scanner.next(cursor);
  bool atLineEnd = lineEnd == block.end || *lineEnd == '\n';
  if (!atLineEnd || (lineEnd != cursor && !(lineEnd - cursor == 1 && *cursor == '\r'))) {
    failRow(SqlState::kBadCopyFileFormat, numColumns, "extra data after last expected column");
  }
  return lineEnd == block.end ? block.end : lineEnd + 1;
}

const char* DelimitedTextParser::parseCsvLine(const char* cursor, BoundaryScanner& scanner) {
  const char* end = end_;
  const char delimiter = options_.delimiter;
  const char quote = options_.quote;
  const uint64_t startLine = lineNumber_;
  for (size_t column = 0;; ++column) {
    if (column == types_.size()) {
      lineNumber_ = startLine;
      failRow(SqlState::kBadCopyFileFormat, types_.size(), "extra data after last expected column");
    }
    std::string_view field;
    Readable readable{begin_, end_};
    bool quoted = false;
    if (cursor != end && *cursor == quote) {
      quoted = true;
      const char* content = cursor + 1;
      const char* close = static_cast<const char*>(std::memchr(content, quote, static_cast<size_t>(end - content)));
      if (!close) {
        lineNumber_ = startLine;
        failRow(SqlState::kBadCopyFileFormat, column, "unterminated CSV quoted field");
      }
      if (close + 1 == end || close[1] != quote) {  // no doubled quote: the field is the bytes in between
        field = std::string_view(content, static_cast<size_t>(close - content));
        cursor = close + 1;
      } else {
        cursor = unquote(content, column, startLine);
        field = std::string_view(unquoted_).substr(kUnquotedPadding, unquoted_.size() - 2 * kUnquotedPadding);
        readable = Readable{unquoted_.data(), unquoted_.data() + unquoted_.size()};
      }
      lineNumber_ += static_cast<uint64_t>(std::count(field.begin(), field.end(), '\n'));
    } else {
      const char* fieldEnd = scanner.next(cursor);
      while (fieldEnd != end && *fieldEnd == quote) fieldEnd = scanner.next(fieldEnd + 1);  // data when unquoted
      field = std::string_view(cursor, static_cast<size_t>(fieldEnd - cursor));
      if (!field.empty() && field.back() == '\r' && (fieldEnd == end || *fieldEnd == '\n')) field.remove_suffix(1);
      cursor = fieldEnd;
    }
    if (field == nullText_ && (quoted ? options_.forceNull[column] : !options_.forceNotNull[column])) {
      setNull(column);
    } else {
      setField(column, field.data(), field.data() + field.size(), readable);
    }
    if (cursor != end && *cursor == '\r' && cursor + 1 != end && cursor[1] == '\n') ++cursor;
    if (cursor == end || *cursor == '\n') {
      if (column + 1 != types_.size()) {
        lineNumber_ = startLine;
        failRow(SqlState::kBadCopyFileFormat, column + 1, "missing data (the line has too few fields)");
      }
      return cursor == end ? end : cursor + 1;
    }
    if (*cursor != delimiter) {
      lineNumber_ = startLine;
      failRow(SqlState::kBadCopyFileFormat, column, "unexpected characters after a quoted CSV field");
    }
    ++cursor;
  }
}

const char* DelimitedTextParser::unquote(const char* content, size_t column, uint64_t startLine) {
  // Padded, so that setField's fast paths may read around the field as they do in the block.
  unquoted_.assign(kUnquotedPadding, '\0');
  const char quote = options_.quote;
  while (true) {
    const char* close = static_cast<const char*>(std::memchr(content, quote, static_cast<size_t>(end_ - content)));
    if (!close) {
      lineNumber_ = startLine;
      failRow(SqlState::kBadCopyFileFormat, column, "unterminated CSV quoted field");
    }
    unquoted_.append(content, close);
    content = close + 1;
    if (content == end_ || *content != quote) break;
    unquoted_ += quote;  // a doubled quote is one literal quote
    ++content;
  }
  unquoted_.append(kUnquotedPadding, '\0');
  return content;
}

const char* DelimitedTextParser::parseTextLine(const char* cursor, BoundaryScanner& scanner) {
  const Readable block{begin_, end_};
  const char* end = end_;
  const size_t numColumns = columns_.size();
  for (size_t column = 0; column < numColumns; ++column) {
    // The scanner stops at backslashes too (passed as its "quote"): an escaped byte is skipped, whatever it is.
    const char* fieldEnd = scanner.next(cursor);
    bool escaped = false;
    while (fieldEnd != end && *fieldEnd == '\\') {
      escaped = true;
      fieldEnd = end - fieldEnd <= 2 ? end : scanner.next(fieldEnd + 2);
    }
    const bool lineEnds = fieldEnd == end || *fieldEnd == '\n';
    const char* valueEnd = fieldEnd;
    if (lineEnds && valueEnd != cursor && valueEnd[-1] == '\r') --valueEnd;  // "\r\n" line ends
    if (lineEnds && column + 1 != numColumns) {
      failRow(SqlState::kBadCopyFileFormat, column + 1, "missing data (the line has too few fields)");
    }
    if (!lineEnds && column + 1 == numColumns) {
      failRow(SqlState::kBadCopyFileFormat, numColumns, "extra data after last expected column");
    }
    // NULL is the raw text (\N unless COPY's NULL option says otherwise), compared before escapes are resolved
    // (as PostgreSQL does).
    if (std::string_view(cursor, static_cast<size_t>(valueEnd - cursor)) == nullText_) {
      setNull(column);
    } else if (escaped) {
      unescape(cursor, valueEnd, column);
      std::string_view field =
          std::string_view(unquoted_).substr(kUnquotedPadding, unquoted_.size() - 2 * kUnquotedPadding);
      setField(column, field.data(), field.data() + field.size(),
               Readable{unquoted_.data(), unquoted_.data() + unquoted_.size()});
    } else {
      setField(column, cursor, valueEnd, block);  // an empty field is the empty string, not NULL
    }
    cursor = fieldEnd == end ? end : fieldEnd + 1;
  }
  return cursor;
}

void DelimitedTextParser::unescape(const char* begin, const char* end, size_t column) {
  unquoted_.assign(kUnquotedPadding, '\0');
  auto hexValue = [](char c) -> int {
    if (isDigit(c)) return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (const char* p = begin; p != end; ++p) {
    if (*p != '\\') {
      unquoted_ += *p;
      continue;
    }
    if (p + 1 == end) break;  // a backslash that ends the data escapes nothing: PostgreSQL drops it
    char c = *++p;
    int code = -1;  // a byte given by number
    switch (c) {
      case 'b':
        c = '\b';
        break;
      case 'f':
        c = '\f';
        break;
      case 'n':
        c = '\n';
        break;
      case 'r':
        c = '\r';
        break;
      case 't':
        c = '\t';
        break;
      case 'v':
        c = '\v';
        break;
      case 'x':
        if (p + 1 != end && hexValue(p[1]) >= 0) {
          code = hexValue(*++p);
          if (p + 1 != end && hexValue(p[1]) >= 0) code = code * 16 + hexValue(*++p);
        }
        break;
      default:
        if (c >= '0' && c <= '7') {
          code = c - '0';
          for (int digits = 1; digits < 3 && p + 1 != end && p[1] >= '0' && p[1] <= '7'; ++digits) {
            code = code * 8 + (*++p - '0');
          }
        }
        break;
    }
    if (code >= 0) {
      if ((code & 0xFF) == 0)
        failRow(SqlState::kCharacterNotInRepertoire, column, "invalid byte sequence for encoding \"UTF8\": 0x00");
      c = static_cast<char>(code);
    }
    unquoted_ += c;  // any other escaped character stands for itself (\\, \<delimiter>, ...)
  }
  unquoted_.append(kUnquotedPadding, '\0');
}

void DelimitedTextParser::parse(std::string_view block, uint64_t firstLineNumber, std::vector<engine::Chunk>& out) {
  const char* cursor = block.data();
  const char* end = cursor + block.size();
  // Trailing empty lines (a final newline) end the block; empty lines elsewhere are rows with missing data.
  while (end != cursor && (end[-1] == '\n' || end[-1] == '\r')) {
    if (end - 1 != cursor && end[-1] == '\n' && end[-2] != '\n' && end[-2] != '\r') break;
    --end;
  }
  begin_ = cursor;
  end_ = end;
  const TextFileFormat format = options_.format;
  const char special = format == TextFileFormat::kCsv ? options_.quote : format == TextFileFormat::kText ? '\\' : '\n';
  BoundaryScanner scanner(cursor, end, options_.delimiter, special);
  lineNumber_ = firstLineNumber;
  startChunk();
  while (cursor < end) {
    if (format == TextFileFormat::kText && isEndOfDataMarker(cursor, end)) {
      // "\." alone on a line ends the data in PostgreSQL's text format; nothing after it is a row.
      break;
    }
    cursor = format == TextFileFormat::kCsv    ? parseCsvLine(cursor, scanner)
             : format == TextFileFormat::kText ? parseTextLine(cursor, scanner)
                                               : parseTblLine(cursor, scanner);
    ++lineNumber_;
    if (++row_ == engine::kVectorSize) {
      finishChunk(out);
      startChunk();
    }
  }
  finishChunk(out);
}

}  // namespace shoal::worker
