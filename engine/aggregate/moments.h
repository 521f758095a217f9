#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/aggregate/aggregate_function.h"

namespace shoal::engine {

/// The running state of PostgreSQL's float8 statistical aggregates (stddev, variance, covar, corr,
/// regr_*), computed as PostgreSQL's float.c does with the Youngs-Cramer algorithm: the count, the sums
/// and the sums of squared (and cross) deviations from the running means. Unlike sums of squares, these
/// stay accurate when the values are large next to their spread (epoch seconds, say).
///
/// One-variable aggregates use x only. Two-variable ones (`covar_pop(y, x)`, `regr_slope(y, x)`) take
/// the dependent variable y first, as PostgreSQL does.
struct Moments {
  double n = 0;
  double sx = 0;
  double sxx = 0;
  double sy = 0;
  double syy = 0;
  double sxy = 0;

  /// Adds one value (float8_accum). Fails with 22003 when finite values overflow.
  void add(double x);
  /// Adds one (y, x) pair (float8_regr_accum).
  void add(double y, double x);
  /// Folds in the moments of other rows (float8_regr_combine; for one variable, y stays 0).
  void merge(const Moments& other);

  /// A partial state as it travels between the phases of a distributed aggregation: the six doubles' bytes.
  std::string encode() const;
  /// Decodes a partial state; fails (XX001) on a value of the wrong size.
  static Moments decode(std::string_view bytes);
};

/// Whether `function` is one of the statistical aggregates Moments computes (or kMoments, their partial state).
bool isMomentAggregate(AggregateFunction function);
/// Whether a moment aggregate takes two arguments (y, x).
bool takesTwoVariables(AggregateFunction function);
/// The aggregate's value over `moments` (NULL where PostgreSQL gives NULL: too few rows, zero variance).
/// regr_count's bigint is returned as a double holding the count.
std::optional<double> finishMoments(AggregateFunction function, const Moments& moments);

}  // namespace shoal::engine
