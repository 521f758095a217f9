#pragma once

#include <cstddef>

namespace shoal {

/// Bytes of stack every depth check keeps free below the deepest point it lets a walk reach: room for
/// the frames between two checks, for formatting the error and for unwinding it.
inline constexpr size_t kStackReserveBytes = 512 * 1024;

/// Bytes of the calling thread's own stack left below the caller's frame, from the thread's real stack
/// bounds (not from an assumed size).
size_t remainingStackBytes();

/// Fails with 54001 ("stack depth limit exceeded", as PostgreSQL says) when the calling thread has less
/// than `neededBytes` + kStackReserveBytes of stack left. Every recursive walk of a parse tree, plan or
/// expression calls it once per level, so a deep input ends its statement instead of the process.
void checkStackDepth(size_t neededBytes = 0);

}  // namespace shoal
