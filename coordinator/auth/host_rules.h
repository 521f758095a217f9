#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shoal::coordinator {

/// How a client that a rule matches logs in.
enum class LoginMethod { kTrust, kScramSha256, kReject };

/// pg_hba.conf's host lines, which --hba-file holds, one rule per line, the first that matches deciding:
///   host DATABASE USER ADDRESS METHOD
/// DATABASE and USER are `all` or comma-separated names (DATABASE also `sameuser`); ADDRESS is `all`, an
/// IPv4 CIDR (127.0.0.1/32) or `samehost` (any of this machine's own addresses, as on PostgreSQL); METHOD is trust,
/// scram-sha-256, md5 (which, as on PostgreSQL with SCRAM passwords, is SCRAM) or reject. `#` starts a comment. hostssl
/// lines match TLS connections only (the SQL port takes TLS with --tls-cert) and hostnossl lines the others.
class HostRules {
 public:
  struct Rule {
    bool sslOnly = false;
    bool plaintextOnly = false;
    std::vector<std::string> databases;  // empty: all
    bool sameUser = false;
    std::vector<std::string> users;  // empty: all
    uint32_t network = 0;            // host byte order
    uint32_t mask = 0;
    bool sameHost = false;
    LoginMethod method = LoginMethod::kReject;
    int line = 0;
  };

  /// Parses a file's text; fails with F0000 naming the line of the first bad rule.
  static HostRules parse(std::string_view text, std::string_view source);
  /// Reads and parses --hba-file.
  static HostRules load(const std::string& path);
  /// Without --hba-file: trust from this machine's own addresses, SCRAM from anywhere else.
  static HostRules defaults();

  /// The rule for a client at `address` (IPv4, host byte order), or nullptr when none matches (refused).
  const Rule* match(uint32_t address, bool tls, std::string_view database, std::string_view user) const;
  const std::vector<Rule>& rules() const { return rules_; }

 private:
  std::vector<Rule> rules_;
};

std::string_view loginMethodName(LoginMethod method);

}  // namespace shoal::coordinator
