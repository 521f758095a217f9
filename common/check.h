#pragma once

#include <fmt/format.h>

#include "common/status.h"

/// Internal invariants. A failed check is a bug in Shoal, not in the user's
/// input: it ends the query with SQLSTATE XX000 and names the place and the
/// values, but never takes the process down.
#define SHOAL_CHECK(condition, ...)                                                                             \
  do {                                                                                                          \
    if (!(condition)) [[unlikely]] {                                                                            \
      throw ::shoal::ShoalError(                                                                                \
          ::shoal::Status(::shoal::SqlState::kInternalError,                                                    \
                          ::fmt::format("internal error: check '{}' failed at {}:{}: {}", #condition, __FILE__, \
                                        __LINE__, ::fmt::format("" __VA_ARGS__))));                             \
    }                                                                                                           \
  } while (false)

#define SHOAL_CHECK_BINARY(a, b, op, ...) SHOAL_CHECK((a)op(b), "{} vs {} {}", (a), (b), ::fmt::format("" __VA_ARGS__))
#define SHOAL_CHECK_EQ(a, b, ...) SHOAL_CHECK_BINARY(a, b, ==, __VA_ARGS__)
#define SHOAL_CHECK_LT(a, b, ...) SHOAL_CHECK_BINARY(a, b, <, __VA_ARGS__)
#define SHOAL_CHECK_LE(a, b, ...) SHOAL_CHECK_BINARY(a, b, <=, __VA_ARGS__)

/// Debug-only check, free in release builds; fine in hot loops.
#ifdef NDEBUG
#define SHOAL_DCHECK(condition) \
  do {                          \
  } while (false)
#else
#define SHOAL_DCHECK(condition) SHOAL_CHECK(condition)
#endif

/// Marks a path that a correct program never takes (an unhandled enum value):
/// ends the query with XX000, naming the place.
#define SHOAL_UNREACHABLE(...)               \
  throw ::shoal::ShoalError(::shoal::Status( \
      ::shoal::SqlState::kInternalError,     \
      ::fmt::format("internal error: unreachable code at {}:{}: {}", __FILE__, __LINE__, ::fmt::format(__VA_ARGS__))))
