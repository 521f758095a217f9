#include "common/status.h"

namespace shoal {

std::string Status::toString() const {
  if (ok_) {
    return "OK";
  }
  std::string text = fmt::format("{}: {}", sqlState_, message_);
  if (position_) {
    text += fmt::format(" (at character {})", *position_);
  }
  return text;
}

}  // namespace shoal
