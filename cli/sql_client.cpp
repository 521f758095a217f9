#include "cli/sql_client.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace shoal::cli {
namespace {

class Connection {
 public:
  Connection(const std::string& host, uint16_t port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* addresses = nullptr;
    if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &addresses) != 0 || !addresses) {
      throw std::runtime_error(fmt::format("cannot resolve {}", host));
    }
    for (addrinfo* address = addresses; address; address = address->ai_next) {
      socket_ = ::socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC, address->ai_protocol);
      if (socket_ >= 0 && ::connect(socket_, address->ai_addr, address->ai_addrlen) == 0) break;
      if (socket_ >= 0) ::close(socket_);
      socket_ = -1;
    }
    freeaddrinfo(addresses);
    if (socket_ < 0) throw std::runtime_error(fmt::format("cannot connect to {}:{}: {}", host, port, strerror(errno)));
  }
  ~Connection() {
    if (socket_ >= 0) ::close(socket_);
  }

  void send(const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      ssize_t n = ::send(socket_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) throw std::runtime_error("the coordinator closed the connection");
      sent += static_cast<size_t>(n);
    }
  }
  /// One backend message: its type and body.
  char receive(std::string& body) {
    char header[5];
    readExact(header, 5);
    uint32_t length;
    std::memcpy(&length, header + 1, 4);
    length = ntohl(length);
    if (length < 4) throw std::runtime_error("malformed message from the coordinator");
    body.resize(length - 4);
    readExact(body.data(), body.size());
    return header[0];
  }

 private:
  void readExact(char* buffer, size_t size) {
    while (size > 0) {
      ssize_t n = ::recv(socket_, buffer, size, 0);
      if (n <= 0) throw std::runtime_error("the coordinator closed the connection");
      buffer += n;
      size -= static_cast<size_t>(n);
    }
  }
  int socket_ = -1;
};

void appendInt32(std::string& out, uint32_t value) {
  value = htonl(value);
  out.append(reinterpret_cast<const char*>(&value), 4);
}

/// The message and SQLSTATE of an ErrorResponse or NoticeResponse body.
std::pair<std::string, std::string> fieldsOf(const std::string& body) {
  std::string message;
  std::string code;
  size_t offset = 0;
  while (offset < body.size() && body[offset] != '\0') {
    char field = body[offset++];
    size_t end = body.find('\0', offset);
    if (end == std::string::npos) break;
    if (field == 'M') message = body.substr(offset, end - offset);
    if (field == 'C') code = body.substr(offset, end - offset);
    offset = end + 1;
  }
  return {message, code};
}

}  // namespace

std::string runSqlStatement(const std::string& host, uint16_t port, const std::string& statement,
                            const std::function<void(const std::string&)>& onNotice) {
  Connection connection(host, port);
  std::string startup;
  appendInt32(startup, 196608);  // protocol 3.0
  for (const char* part : {"user", "shoal", "database", "shoal", "application_name", "shoal load"}) {
    startup += part;
    startup += '\0';
  }
  startup += '\0';
  std::string message;
  appendInt32(message, static_cast<uint32_t>(startup.size() + 4));
  connection.send(message + startup);

  std::string body;
  std::string tag;
  std::string error;
  bool querySent = false;
  while (true) {
    char type = connection.receive(body);
    switch (type) {
      case 'E': {
        auto [text, code] = fieldsOf(body);
        error = fmt::format("ERROR {}: {}", code, text);
        if (!querySent) throw std::runtime_error(error);  // refused at startup: the server closes
        break;
      }
      case 'N':
        onNotice(fieldsOf(body).first);
        break;
      case 'C':
        tag = body.substr(0, body.find('\0'));
        break;
      case 'Z':
        if (!error.empty()) throw std::runtime_error(error);
        if (querySent) return tag;
        {
          std::string query = "Q";
          appendInt32(query, static_cast<uint32_t>(statement.size() + 1 + 4));
          query += statement;
          query += '\0';
          connection.send(query);
          querySent = true;
        }
        break;
      default:
        break;  // authentication ok, parameter status, key data, rows
    }
  }
}

}  // namespace shoal::cli
