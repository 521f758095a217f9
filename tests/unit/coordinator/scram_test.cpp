// SCRAM-SHA-256's server side on hostile input: base64 that is not, client messages out of order or
// malformed, channel bindings that do not fit; and its verifiers as PostgreSQL writes them.
#include "coordinator/auth/scram.h"

#include <gtest/gtest.h>

namespace shoal::coordinator {
namespace {

TEST(ScramTest, Base64DecodesOnlyBase64) {
  EXPECT_EQ(base64Decode(base64Encode("any bytes\x01\xff")), "any bytes\x01\xff");
  EXPECT_EQ(base64Decode(""), "");
  EXPECT_EQ(base64Decode("YQ=="), "a");
  for (const char* bad : {"====", "A===", "YQ=a", "Y=Q=", "YQ", "Y Q=", "YQ==YQ=="}) {
    EXPECT_EQ(base64Decode(bad), std::nullopt) << bad;
  }
}

TEST(ScramTest, VerifiersHavePostgresqlsShape) {
  const std::string verifier = makeScramVerifier("secret");
  EXPECT_TRUE(verifier.starts_with("SCRAM-SHA-256$4096:")) << verifier;
  EXPECT_TRUE(isScramVerifier(verifier));
  EXPECT_NE(makeScramVerifier("secret"), verifier);  // a fresh salt each time
  for (const char* bad :
       {"secret", "SCRAM-SHA-256$", "SCRAM-SHA-256$4096:====$AAAA:AAAA", "SCRAM-SHA-256$x:YQ==$a:b"}) {
    EXPECT_FALSE(isScramVerifier(bad)) << bad;
  }
}

TEST(ScramTest, MalformedOrOutOfOrderMessagesFail) {
  const std::string verifier = makeScramVerifier("pw");
  ScramExchange early("u", verifier);
  EXPECT_EQ(early.serverFinal("c=biws,r=x,p=AAAA"), std::nullopt);  // no client-first yet
  for (const char* bad : {"", "n,", "x,,n=,r=abc", "n,,n=,r=", "n,,n=", "p=tls-server-end-point,,n=,r=abc"}) {
    ScramExchange exchange("u", verifier);
    EXPECT_EQ(exchange.serverFirst(bad), std::nullopt) << bad;
  }
  ScramExchange exchange("u", verifier);
  auto first = exchange.serverFirst("n,,n=,r=abc");
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(first->starts_with("r=abc")) << *first;
  for (const char* bad : {"c=biws,r=abc,p=AAAA", "c=biws,p=====", "garbage", "c=eSws,r=abc,p=AAAA"}) {
    EXPECT_EQ(exchange.serverFinal(bad), std::nullopt) << bad;
  }
}

TEST(ScramTest, ChannelBindingMustFitTheMechanism) {
  const std::string verifier = makeScramVerifier("pw");
  // Over TLS a client that says it could bind but thinks the server cannot is refused (a downgrade).
  EXPECT_EQ(ScramExchange("u", verifier, "hash").serverFirst("y,,n=,r=abc"), std::nullopt);
  EXPECT_TRUE(ScramExchange("u", verifier).serverFirst("y,,n=,r=abc").has_value());
  EXPECT_EQ(ScramExchange("u", verifier).serverFirst("p=tls-server-end-point,,n=,r=abc", "SCRAM-SHA-256-PLUS"),
            std::nullopt);
  EXPECT_TRUE(ScramExchange("u", verifier, "hash")
                  .serverFirst("p=tls-server-end-point,,n=,r=abc", "SCRAM-SHA-256-PLUS")
                  .has_value());
  EXPECT_EQ(ScramExchange("u", verifier, "hash").serverFirst("n,,n=,r=abc", "SCRAM-SHA-256-PLUS"), std::nullopt);
}

}  // namespace
}  // namespace shoal::coordinator
