#pragma once

// The fuzzers' seed modes: with SHOAL_FUZZ_WRITE_SEEDS=<directory> in its environment, a fuzzer whose seeds are
// binary (segment files, multiplexer frames, plans) writes them there instead of fuzzing (README.md, "Seeds").

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string_view>

#include <fmt/format.h>

namespace shoal::fuzz {

/// Where to write seeds, when the run was asked to.
inline std::optional<std::filesystem::path> seedDirectory() {
  const char* directory = std::getenv("SHOAL_FUZZ_WRITE_SEEDS");
  if (directory == nullptr || *directory == '\0') return std::nullopt;
  std::filesystem::create_directories(directory);
  return std::filesystem::path(directory);
}

/// Writes one seed, named by a hash of its bytes (so that writing the same seeds again changes nothing).
inline void writeSeed(const std::filesystem::path& directory, std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325;  // FNV-1a
  for (char c : bytes) hash = (hash ^ static_cast<uint8_t>(c)) * 0x100000001b3;
  std::ofstream(directory / fmt::format("{:016x}", hash), std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace shoal::fuzz
