#include "coordinator/auth/host_rules.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "common/status.h"
#include "coordinator/auth/auth_states.h"

namespace shoal::coordinator {
namespace {

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream stream{std::string(line)};
  std::string word;
  while (stream >> word) out.push_back(word);
  return out;
}

std::vector<std::string> names(const std::string& field) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= field.size()) {
    size_t end = field.find(',', start);
    if (end == std::string::npos) end = field.size();
    if (end > start) out.push_back(field.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

/// Whether `address` (host byte order) is one of this machine's: 127.0.0.0/8, or an interface's.
bool isOwnAddress(uint32_t address) {
  if ((address >> 24) == 127) return true;
  ifaddrs* interfaces = nullptr;
  if (::getifaddrs(&interfaces) != 0) return false;
  bool found = false;
  for (ifaddrs* each = interfaces; each != nullptr && !found; each = each->ifa_next) {
    if (each->ifa_addr == nullptr || each->ifa_addr->sa_family != AF_INET) continue;
    found = ntohl(reinterpret_cast<const sockaddr_in*>(each->ifa_addr)->sin_addr.s_addr) == address;
  }
  ::freeifaddrs(interfaces);
  return found;
}

bool contains(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

std::string_view loginMethodName(LoginMethod method) {
  switch (method) {
    case LoginMethod::kTrust:
      return "trust";
    case LoginMethod::kScramSha256:
      return "scram-sha-256";
    case LoginMethod::kReject:
      return "reject";
  }
  return "?";
}

HostRules HostRules::parse(std::string_view text, std::string_view source) {
  HostRules rules;
  int lineNumber = 0;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    ++lineNumber;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const std::vector<std::string> fields = words(line);
    if (fields.empty()) continue;
    auto bad = [&](std::string_view why) {
      SHOAL_USER_FAIL(auth_state::kConfigFileError, "{}:{}: {}: {}", source, lineNumber, why, line);
    };
    Rule rule;
    rule.line = lineNumber;
    if (fields[0] == "hostssl") {
      rule.sslOnly = true;
    } else if (fields[0] == "hostnossl") {
      rule.plaintextOnly = true;
    } else if (fields[0] != "host") {
      bad("a rule starts with host, hostssl or hostnossl (Shoal listens on TCP only)");
    }
    if (fields.size() != 5) bad("a rule has five fields: host DATABASE USER ADDRESS METHOD");
    if (fields[1] == "sameuser") {
      rule.sameUser = true;
    } else if (fields[1] != "all") {
      rule.databases = names(fields[1]);
    }
    if (fields[2] != "all") rule.users = names(fields[2]);
    if (fields[3] == "samehost") {
      rule.sameHost = true;
    } else if (fields[3] != "all") {
      const size_t slash = fields[3].find('/');
      if (slash == std::string::npos) bad("the address must be `all`, `samehost` or a CIDR such as 10.0.0.0/8");
      in_addr address{};
      if (::inet_pton(AF_INET, fields[3].substr(0, slash).c_str(), &address) != 1) bad("not an IPv4 address");
      int bits = -1;
      try {
        bits = std::stoi(fields[3].substr(slash + 1));
      } catch (const std::exception&) {
      }
      if (bits < 0 || bits > 32) bad("the prefix length must be 0 to 32");
      rule.mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
      rule.network = ntohl(address.s_addr) & rule.mask;
    }
    const std::string& method = fields[4];
    if (method == "trust") {
      rule.method = LoginMethod::kTrust;
    } else if (method == "scram-sha-256" || method == "md5") {
      rule.method = LoginMethod::kScramSha256;
    } else if (method == "reject") {
      rule.method = LoginMethod::kReject;
    } else {
      bad("the method must be trust, scram-sha-256, md5 or reject");
    }
    rules.rules_.push_back(std::move(rule));
  }
  return rules;
}

HostRules HostRules::load(const std::string& path) {
  std::ifstream file(path);
  if (!file) SHOAL_USER_FAIL(auth_state::kConfigFileError, "cannot read the host rules file {}", path);
  std::stringstream text;
  text << file.rdbuf();
  return parse(text.str(), path);
}

HostRules HostRules::defaults() {
  return parse("host all all samehost trust\nhost all all all scram-sha-256\n", "(built-in rules)");
}

const HostRules::Rule* HostRules::match(uint32_t address, bool tls, std::string_view database,
                                        std::string_view user) const {
  for (const Rule& rule : rules_) {
    if ((rule.sslOnly && !tls) || (rule.plaintextOnly && tls)) continue;
    if (rule.sameHost ? !isOwnAddress(address) : (address & rule.mask) != rule.network) continue;
    if (rule.sameUser ? database != user : !rule.databases.empty() && !contains(rule.databases, database)) continue;
    if (!rule.users.empty() && !contains(rule.users, user)) continue;
    return &rule;
  }
  return nullptr;
}

}  // namespace shoal::coordinator
