#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "coordinator/pgwire/message_writer.h"
#include "engine/types/value.h"
#include "engine/vector/vector.h"

namespace shoal::coordinator {

/// pgwire's two value formats.
enum class WireFormat : int16_t { kText = 0, kBinary = 1 };

/// pgwire's format lists: none means all text, one applies to all, else one each.
inline WireFormat formatFor(const std::vector<WireFormat>& formats, size_t index) {
  if (formats.empty()) return WireFormat::kText;
  return formats.size() == 1 ? formats[0] : formats[index];
}

/// Appends the value at `row` of `column` as one DataRow field: its length,
/// then its bytes in `format` (-1 and nothing for NULL). Text shows timestamptz in `zone` (nullptr: UTC).
void writeField(const engine::Vector& column, size_t row, WireFormat format, MessageWriter& writer,
                const engine::TimeZone* zone = nullptr);

/// Decodes a Bind parameter of `type` from its wire bytes. Bad bytes fail
/// with 22P02 (text) or 22P03 (binary). A timestamptz's text without a zone is local time in `zone`.
engine::Value decodeParameter(std::span<const uint8_t> bytes, WireFormat format, const engine::LogicalType& type,
                              const engine::TimeZone* zone = nullptr);

}  // namespace shoal::coordinator
