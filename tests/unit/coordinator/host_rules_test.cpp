// The --hba-file rules: parsed as pg_hba.conf's host lines, the first matching rule deciding, with PostgreSQL's
// keywords (all, sameuser, samehost) and the errors that name the bad line.
#include "coordinator/auth/host_rules.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include "common/status.h"

namespace shoal::coordinator {
namespace {

uint32_t ip(const char* text) {
  in_addr address{};
  inet_pton(AF_INET, text, &address);
  return ntohl(address.s_addr);
}

std::optional<LoginMethod> methodFor(const HostRules& rules, const char* address, const char* database,
                                     const char* user, bool tls = false) {
  const HostRules::Rule* rule = rules.match(ip(address), tls, database, user);
  return rule ? std::optional(rule->method) : std::nullopt;
}

TEST(HostRulesTest, TheFirstMatchingRuleDecides) {
  HostRules rules = HostRules::parse(
      "# comment\n"
      "host all admin 10.0.0.0/8 trust   # trailing comment\n"
      "host sales,hr all 10.1.0.0/16 reject\n"
      "hostssl all all 0.0.0.0/0 scram-sha-256\n"
      "hostnossl sameuser all all md5\n",
      "test");
  EXPECT_EQ(methodFor(rules, "10.9.9.9", "anything", "admin"), LoginMethod::kTrust);
  EXPECT_EQ(methodFor(rules, "10.1.2.3", "hr", "bob"), LoginMethod::kReject);
  EXPECT_EQ(methodFor(rules, "10.2.2.3", "hr", "bob", true), LoginMethod::kScramSha256);
  EXPECT_EQ(methodFor(rules, "192.168.1.1", "bob", "bob"), LoginMethod::kScramSha256);  // md5 is SCRAM
  EXPECT_EQ(methodFor(rules, "192.168.1.1", "other", "bob"), std::nullopt);
  EXPECT_EQ(methodFor(rules, "11.0.0.1", "x", "admin"), std::nullopt);
}

TEST(HostRulesTest, TheDefaultsTrustThisMachineOnly) {
  HostRules rules = HostRules::defaults();
  EXPECT_EQ(methodFor(rules, "127.0.0.1", "shoal", "shoal"), LoginMethod::kTrust);
  EXPECT_EQ(methodFor(rules, "127.8.0.2", "shoal", "shoal"), LoginMethod::kTrust);
  EXPECT_EQ(methodFor(rules, "203.0.113.7", "shoal", "shoal"), LoginMethod::kScramSha256);
}

TEST(HostRulesTest, ABadRuleNamesItsLine) {
  for (const char* text : {"local all all trust\n", "host all all 10.0.0.0/33 trust\n", "host all all 10.0.0.1 trust\n",
                           "host all all all password\n", "host all all\n", "host all all 999.0.0.0/8 trust\n"}) {
    try {
      HostRules::parse(std::string("# first\n") + text, "rules.conf");
      ADD_FAILURE() << text;
    } catch (const ShoalError& error) {
      EXPECT_EQ(error.status().sqlState(), "F0000") << text;
      EXPECT_NE(error.status().message().find("rules.conf:2:"), std::string::npos) << error.status().message();
    }
  }
}

}  // namespace
}  // namespace shoal::coordinator
