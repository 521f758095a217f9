#include "engine/expression/random_values.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <random>
#include <vector>

#include <sys/random.h>

#include "common/status.h"
#include "engine/types/uuid_value.h"

namespace shoal::engine {
namespace {

/// SplitMix64's finalizer: spreads a seed's bits so that nearby seeds give unrelated sequences.
uint64_t mix(uint64_t value) {
  value += 0x9E3779B97F4A7C15ULL;
  value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ULL;
  value = (value ^ (value >> 27)) * 0x94D049BB133111EBULL;
  return value ^ (value >> 31);
}

std::atomic<uint64_t> streamSalt{0};

/// Which thread meets a seed first, second, ...: the first draws the seed's own sequence.
uint64_t claimSlot(uint64_t seed) {
  static std::mutex mutex;
  static uint64_t currentSeed = 0;
  static uint64_t nextSlot = 0;
  std::lock_guard lock(mutex);
  if (seed != currentSeed) {
    currentSeed = seed;
    nextSlot = 0;
  }
  return nextSlot++;
}

struct ThreadGenerators {
  std::mt19937_64 unseeded{std::random_device{}()};
  std::mt19937_64 seeded;
  uint64_t seed = 0;
};

/// 53 random bits as a double in [0, 1).
double unitInterval(uint64_t bits) {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

}  // namespace

Vector evaluateRandom(const Vector& seeds) {
  thread_local ThreadGenerators generators;
  const size_t numRows = seeds.size();
  Vector out(LogicalType::doublePrecision(), numRows);
  const uint64_t seed = numRows == 0 || seeds.isNull(0) ? 0 : static_cast<uint64_t>(seeds.data<int64_t>()[0]);
  std::mt19937_64* generator = &generators.unseeded;
  if (seed != 0) {
    if (generators.seed != seed) {
      generators.seeded.seed(mix(seed ^ mix(claimSlot(seed) ^ streamSalt.load(std::memory_order_relaxed))));
      generators.seed = seed;
    }
    generator = &generators.seeded;
  }
  double* values = out.data<double>();
  for (size_t row = 0; row < numRows; ++row) values[row] = unitInterval((*generator)());
  return out;
}

Vector evaluateRandomUuids(size_t numRows) {
  Vector out(LogicalType::uuid(), numRows);
  std::vector<uint8_t> bytes(numRows * 16);
  for (size_t filled = 0; filled < bytes.size();) {
    const ssize_t got = ::getrandom(bytes.data() + filled, bytes.size() - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      SHOAL_USER_FAIL(SqlState::kInternalError, "could not generate random values: {}", std::strerror(errno));
    }
    filled += static_cast<size_t>(got);
  }
  for (size_t row = 0; row < numRows; ++row) {
    uint8_t* uuid = bytes.data() + row * 16;
    uuid[6] = static_cast<uint8_t>((uuid[6] & 0x0F) | 0x40);  // version 4
    uuid[8] = static_cast<uint8_t>((uuid[8] & 0x3F) | 0x80);  // RFC 4122 variant
    out.data<int128_t>()[row] = uuidFromBytes(uuid);
  }
  return out;
}

void setRandomStreamSalt(uint64_t salt) {
  streamSalt.store(salt, std::memory_order_relaxed);
}

uint64_t randomSeedOf(double value) {
  if (!(value >= -1.0 && value <= 1.0)) {
    SHOAL_USER_FAIL(SqlState::kInvalidParameterValue, "setseed parameter {} is out of allowed range [-1,1]", value);
  }
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  return mix(bits) | 1;  // never 0, which means "no seed"
}

uint64_t nextRandomSeed(uint64_t seed) {
  return mix(seed) | 1;
}

}  // namespace shoal::engine
