#pragma once

#include <cstdint>

namespace shoal::proto {

/// The version of control.proto's contract. Coordinator and worker must speak
/// the same one: a worker of another version is refused at registration, so a
/// mixed deployment fails loudly and early. Bump it on any incompatible change.
inline constexpr uint32_t kControlProtocolVersion = 1;

}  // namespace shoal::proto
