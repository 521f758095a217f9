#include "engine/expression/datetime_casts.h"

#include "common/status.h"
#include "engine/expression/vector_loops.h"
#include "engine/types/date.h"
#include "engine/types/interval.h"
#include "engine/types/time_zone.h"
#include "engine/types/timestamp_text.h"

namespace shoal::engine {
namespace {

bool isInfinite(int64_t micros) {
  return micros == kTimestampInfinity || micros == kTimestampMinusInfinity;
}

}  // namespace

int32_t dateOfTimestamp(int64_t localMicros) {
  if (localMicros == kTimestampInfinity) return kDateInfinity;
  if (localMicros == kTimestampMinusInfinity) return kDateMinusInfinity;
  int64_t days = localMicros / kMicrosPerDay;
  if (localMicros % kMicrosPerDay < 0) --days;
  return static_cast<int32_t>(days);
}

int64_t roundTimestampToPrecision(int64_t micros, int precision) {
  if (precision >= LogicalType::kMaxFractionalDigits || precision < 0) return micros;
  return roundToFractionalDigits(micros, LogicalType::timestamp().withFractionalDigits(precision));
}

bool isDateTimeCast(const LogicalType& from, const LogicalType& to) {
  if (to.id() == TypeId::kTime) {
    return from.id() == TypeId::kTimestamp || from.id() == TypeId::kTimestampTz || from.id() == TypeId::kInterval;
  }
  if (from.id() == TypeId::kTime) return to.id() == TypeId::kInterval;
  return from.isDateTime() && to.isDateTime() && from.id() != to.id();
}

int64_t timeOfDay(int64_t localMicros) {
  const int64_t micros = localMicros % kMicrosPerDay;
  return micros < 0 ? micros + kMicrosPerDay : micros;
}

void castDateTime(const Vector& input, Vector& out, const TimeZone& zone) {
  const TypeId from = input.type().id();
  const TypeId to = out.type().id();
  auto localOf = [&](int64_t utc) { return isInfinite(utc) ? utc : utc + zone.offsetAt(utc) * kMicrosPerSecond; };
  auto utcOf = [&](int64_t local) { return isInfinite(local) ? local : zone.localToUtc(local); };
  if (from == TypeId::kTime) {
    unaryLoop<int64_t, int128_t>(input, out, [](int64_t micros) { return packInterval(Interval{0, 0, micros}); });
  } else if (from == TypeId::kInterval) {
    // The interval's time part, wrapped into a day; its days and months do not count.
    unaryLoop<int128_t, int64_t>(input, out, [](int128_t packed) { return timeOfDay(unpackInterval(packed).micros); });
  } else if (to == TypeId::kTime) {
    // A timestamp's local time of day; infinity has none (NULL, as in PostgreSQL).
    const bool zoned = from == TypeId::kTimestampTz;
    unaryLoop<int64_t, int64_t>(input, out, [&](int64_t micros) {
      return isInfinite(micros) ? 0 : timeOfDay(zoned ? localOf(micros) : micros);
    });
    const int64_t* values = input.data<int64_t>();
    for (size_t row = 0; row < input.size(); ++row) {
      if (!input.isNull(row) && isInfinite(values[row])) out.setNull(row, true);
    }
  } else if (from == TypeId::kDate) {
    auto midnight = [](int32_t days) {
      if (isInfiniteDate(days)) return days == kDateInfinity ? kTimestampInfinity : kTimestampMinusInfinity;
      // Dates go on to 5874897 AD, timestamps end in 294247 AD.
      constexpr int64_t kLastDay = kEndTimestamp / kMicrosPerDay;
      if (days >= kLastDay || int64_t{days} * kMicrosPerDay < kMinTimestamp) {
        SHOAL_USER_FAIL(SqlState::kDatetimeFieldOverflow, "date out of range for timestamp");
      }
      return static_cast<int64_t>(days) * kMicrosPerDay;
    };
    if (to == TypeId::kTimestamp) {
      unaryLoop<int32_t, int64_t>(input, out, midnight);
    } else {
      unaryLoop<int32_t, int64_t>(input, out, [&](int32_t days) { return utcOf(midnight(days)); });
    }
  } else if (from == TypeId::kTimestamp) {
    if (to == TypeId::kDate) {
      unaryLoop<int64_t, int32_t>(input, out, dateOfTimestamp);
    } else {
      unaryLoop<int64_t, int64_t>(input, out, utcOf);
    }
  } else if (to == TypeId::kDate) {
    unaryLoop<int64_t, int32_t>(input, out, [&](int64_t utc) { return dateOfTimestamp(localOf(utc)); });
  } else {
    unaryLoop<int64_t, int64_t>(input, out, localOf);
  }
}

}  // namespace shoal::engine
