#pragma once

#include <filesystem>
#include <string_view>

namespace shoal::worker {

/// Replaces `path` with `contents` so that a crash leaves the old file or the new one, never a mix: written
/// beside it, fsynced, renamed over it, and the directory fsynced. Fails with 58030.
void replaceFileDurably(const std::filesystem::path& path, std::string_view contents);

/// Makes the entries of `directory` (creations, renames, removals) durable.
void syncDirectory(const std::filesystem::path& directory);

}  // namespace shoal::worker
