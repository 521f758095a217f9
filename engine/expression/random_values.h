#pragma once

#include <cstdint>

#include "engine/vector/vector.h"

namespace shoal::engine {

// random(): a double in [0, 1) for every row, drawn where the row is evaluated (each worker thread has a
// generator of its own), so `WHERE random() < 0.1` samples and `ORDER BY random()` shuffles.
//
// After setseed() the binder passes a seed (nonzero; 0 means none): the first thread to meet that seed draws
// the sequence the seed fixes, so a statement evaluated on one thread (SELECT random(), on the coordinator)
// gives the same values each time the session replays it; other threads draw sequences of their own seeded
// from it, as rows spread over threads have no order to repeat.

/// random(seed BIGINT constant) -> double precision.
Vector evaluateRandom(const Vector& seeds);

/// gen_random_uuid() for `numRows` rows: version 4 UUIDs from the kernel's random bytes (getrandom), as
/// PostgreSQL draws them from its strong random source; setseed() does not touch them.
Vector evaluateRandomUuids(size_t numRows);

/// Makes this process's seeded sequences its own: each worker sets its node's salt at start (the coordinator
/// keeps 0), or two workers would draw the same values for a seeded random().
void setRandomStreamSalt(uint64_t salt);

/// The seed setseed(value) gives, value in [-1, 1]; 22023 outside it, as PostgreSQL says.
uint64_t randomSeedOf(double value);

/// The seed of the statement after the one that used `seed`: random() continues the sequence.
uint64_t nextRandomSeed(uint64_t seed);

}  // namespace shoal::engine
