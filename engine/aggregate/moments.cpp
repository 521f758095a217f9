#include "engine/aggregate/moments.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/check.h"
#include "common/status.h"

namespace shoal::engine {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

[[noreturn]] void overflow() {
  SHOAL_USER_FAIL(SqlState::kNumericValueOutOfRange, "value out of range: overflow");
}

/// float8_pl: an infinite sum of finite values is an overflow.
double checkedSum(double a, double b) {
  double sum = a + b;
  if (std::isinf(sum) && !std::isinf(a) && !std::isinf(b)) overflow();
  return sum;
}

/// The deviation sum of two merged parts (float8_combine): with one side empty, the other's; else
/// s1 + s2 + n1 n2 d1 d2 / n, where d are the differences of the parts' means.
double mergedDeviations(double s1, double s2, double n1, double n2, double d1, double d2) {
  double merged = s1 + s2 + n1 * n2 * d1 * d2 / (n1 + n2);
  if (std::isinf(merged) && !std::isinf(s1) && !std::isinf(s2)) overflow();
  return merged;
}

}  // namespace

void Moments::add(double x) {
  const double previousN = n;
  const double previousSx = sx;
  n += 1.0;
  sx += x;
  if (previousN > 0.0) {
    double deviation = x * n - sx;
    sxx += deviation * deviation / (n * previousN);
    // Only finite inputs that lead to an infinite result overflow; an infinite input makes the spread NaN.
    if (std::isinf(sx) || std::isinf(sxx)) {
      if (!std::isinf(previousSx) && !std::isinf(x)) overflow();
      sxx = kNaN;
    }
  } else if (std::isnan(x) || std::isinf(x)) {
    sxx = kNaN;  // else a single infinite value would report a variance of zero
  }
}

void Moments::add(double y, double x) {
  const double previousN = n;
  const double previousSx = sx;
  const double previousSy = sy;
  n += 1.0;
  sx += x;
  sy += y;
  if (previousN > 0.0) {
    double deviationX = x * n - sx;
    double deviationY = y * n - sy;
    double scale = 1.0 / (n * previousN);
    sxx += deviationX * deviationX * scale;
    syy += deviationY * deviationY * scale;
    sxy += deviationX * deviationY * scale;
    if (std::isinf(sx) || std::isinf(sxx) || std::isinf(sy) || std::isinf(syy) || std::isinf(sxy)) {
      const bool finiteX = !std::isinf(previousSx) && !std::isinf(x);
      const bool finiteY = !std::isinf(previousSy) && !std::isinf(y);
      if (((std::isinf(sx) || std::isinf(sxx)) && finiteX) || ((std::isinf(sy) || std::isinf(syy)) && finiteY) ||
          (std::isinf(sxy) && finiteX && finiteY)) {
        overflow();
      }
      if (std::isinf(sxx)) sxx = kNaN;
      if (std::isinf(syy)) syy = kNaN;
      if (std::isinf(sxy)) sxy = kNaN;
    }
  } else {
    if (std::isnan(x) || std::isinf(x)) sxx = sxy = kNaN;
    if (std::isnan(y) || std::isinf(y)) syy = sxy = kNaN;
  }
}

void Moments::merge(const Moments& other) {
  if (other.n == 0.0) return;
  if (n == 0.0) {
    *this = other;
    return;
  }
  const double differenceX = sx / n - other.sx / other.n;
  const double differenceY = sy / n - other.sy / other.n;
  sxx = mergedDeviations(sxx, other.sxx, n, other.n, differenceX, differenceX);
  syy = mergedDeviations(syy, other.syy, n, other.n, differenceY, differenceY);
  sxy = mergedDeviations(sxy, other.sxy, n, other.n, differenceX, differenceY);
  sx = checkedSum(sx, other.sx);
  sy = checkedSum(sy, other.sy);
  n += other.n;
}

std::string Moments::encode() const {
  const double parts[6] = {n, sx, sxx, sy, syy, sxy};
  return std::string(reinterpret_cast<const char*>(parts), sizeof(parts));
}

Moments Moments::decode(std::string_view bytes) {
  double parts[6];
  SHOAL_CHECK(bytes.size() == sizeof(parts), "a statistical aggregate's partial state has {} bytes", bytes.size());
  std::memcpy(parts, bytes.data(), sizeof(parts));
  return Moments{parts[0], parts[1], parts[2], parts[3], parts[4], parts[5]};
}

bool isMomentAggregate(AggregateFunction function) {
  return function >= AggregateFunction::kVarPop && function <= AggregateFunction::kMoments;
}

bool takesTwoVariables(AggregateFunction function) {
  return function >= AggregateFunction::kCovarPop && function <= AggregateFunction::kRegrIntercept;
}

std::optional<double> finishMoments(AggregateFunction function, const Moments& m) {
  const double n = m.n;
  switch (function) {
    case AggregateFunction::kVarPop:
      if (n == 0.0) return std::nullopt;
      return m.sxx / n;
    case AggregateFunction::kVarSamp:
      if (n <= 1.0) return std::nullopt;
      return m.sxx / (n - 1.0);
    case AggregateFunction::kStddevPop:
      if (n == 0.0) return std::nullopt;
      return std::sqrt(m.sxx / n);
    case AggregateFunction::kStddevSamp:
      if (n <= 1.0) return std::nullopt;
      return std::sqrt(m.sxx / (n - 1.0));
    case AggregateFunction::kRegrCount:
      return n;
    default:
      break;
  }
  // The two-variable aggregates: NULL over no rows, as the SQL standard says.
  if (n < 1.0) return std::nullopt;
  switch (function) {
    case AggregateFunction::kCovarPop:
      return m.sxy / n;
    case AggregateFunction::kCovarSamp:
      if (n < 2.0) return std::nullopt;
      return m.sxy / (n - 1.0);
    case AggregateFunction::kCorr:
      if (m.sxx == 0 || m.syy == 0) return std::nullopt;
      return m.sxy / std::sqrt(m.sxx * m.syy);
    case AggregateFunction::kRegrSxx:
      return m.sxx;
    case AggregateFunction::kRegrSyy:
      return m.syy;
    case AggregateFunction::kRegrSxy:
      return m.sxy;
    case AggregateFunction::kRegrAvgX:
      return m.sx / n;
    case AggregateFunction::kRegrAvgY:
      return m.sy / n;
    case AggregateFunction::kRegrR2:
      if (m.sxx == 0) return std::nullopt;
      if (m.syy == 0) return 1.0;
      return (m.sxy * m.sxy) / (m.sxx * m.syy);
    case AggregateFunction::kRegrSlope:
      if (m.sxx == 0) return std::nullopt;
      return m.sxy / m.sxx;
    case AggregateFunction::kRegrIntercept:
      if (m.sxx == 0) return std::nullopt;
      return (m.sy - m.sx * m.sxy / m.sxx) / n;
    default:
      SHOAL_UNREACHABLE("not a statistical aggregate");
  }
}

}  // namespace shoal::engine
