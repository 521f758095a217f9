#pragma once

#include "multiplexer/message.h"

namespace shoal::multiplexer {

/// A copy of `message` (payload and routing fields) in a buffer of its own on the heap, freed when its last
/// reference is released. For a received message that must wait longer than its pool buffer may (see
/// InboxParking): the original can then be released at once.
Message* copyToHeap(const Message& message);

}  // namespace shoal::multiplexer
