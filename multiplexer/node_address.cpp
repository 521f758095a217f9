#include <netdb.h>

#include <cstdlib>
#include <cstring>
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

bool resolveNodeAddress(const NodeAddress& address, sockaddr_storage* out, socklen_t* length, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* result = nullptr;
  int rc = getaddrinfo(address.host.c_str(), std::to_string(address.port).c_str(), &hints, &result);
  if (rc != 0 || result == nullptr) {
    *error = "cannot resolve " + address.host + ": " + gai_strerror(rc);
    return false;
  }
  std::memcpy(out, result->ai_addr, result->ai_addrlen);
  *length = result->ai_addrlen;
  freeaddrinfo(result);
  return true;
}

}  // namespace shoal::multiplexer
