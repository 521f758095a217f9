#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/types/value.h"

namespace shoal::engine {

class TimeZone;

// An array value (TypeId::kArray) is stored as a string of bytes: a varint element count, then per
// element a byte 0 (NULL) or 1 and the element: fixed-width values as their raw bytes, strings as a
// varint length and their bytes. An array has exactly one encoding, so = and <>, hashing, grouping and
// joining work on the bytes as they do for text. Arrays are one-dimensional with lower bound 1.

/// Encodes `elements`, each NULL or a value of `elementType`'s physical type.
std::string encodeArray(std::span<const Value> elements, const LogicalType& elementType);

/// The elements of an encoded array of type `arrayType`; fails with XX001 on damaged bytes.
std::vector<Value> decodeArray(std::string_view bytes, const LogicalType& arrayType);

/// The number of elements, without decoding them.
size_t arrayCardinality(std::string_view bytes);

/// PostgreSQL's text output: {1,2,NULL}, {"a b","",x}; elements quoted where array_out quotes them.
/// timestamptz elements show in `zone` (nullptr: UTC).
void appendArrayText(std::string_view bytes, const LogicalType& arrayType, std::string& out,
                     const TimeZone* zone = nullptr);

/// PostgreSQL's array input ('{1,2}', '{"a,b",NULL}', '{}'), encoded; 22P02 for malformed text and
/// 0A000 for more than one dimension or explicit bounds. A timestamptz element without a zone of its
/// own is local time in `zone` (nullptr: UTC).
std::string parseArrayText(std::string_view text, const LogicalType& arrayType, const TimeZone* zone = nullptr);

/// An array Value of `arrayType` holding `elements`.
Value makeArrayValue(std::span<const Value> elements, const LogicalType& arrayType);

}  // namespace shoal::engine
