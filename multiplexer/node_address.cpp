#include <cstdlib>
#include <string>

#include "multiplexer/transport.h"

namespace shoal::multiplexer {

std::optional<NodeAddress> NodeAddress::parse(std::string_view text) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string portText(text.substr(colon + 1));
  char* end = nullptr;
  long port = std::strtol(portText.c_str(), &end, 10);
  if (portText.empty() || *end != '\0' || port <= 0 || port > 65535) return std::nullopt;
  std::string host(text.substr(0, colon));
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return NodeAddress{host, static_cast<uint16_t>(port)};
}

}  // namespace shoal::multiplexer
