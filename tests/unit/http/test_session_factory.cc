// SessionFactory: the one choice of a connection's HTTP version (the run's choice and ALPN's
// answer), and sessions made for it.
#include <gtest/gtest.h>

#include <string>

#include "http/http1_client_session.h"
#include "http/session_factory.h"

namespace hail {
namespace {

SessionFactory factory(HttpProtocol p, int minor = 1, bool http09 = false) {
  SessionSettings s;
  s.protocol = p;
  s.http_minor = minor;
  s.http09 = http09;
  s.pipeline = 4;
  s.h2.max_streams = 10;
  return SessionFactory(s);
}

TEST(SessionFactory, AlpnDecidesOnlyWhenTheRunLeavesItOpen) {
  EXPECT_EQ(factory(HttpProtocol::kAuto).protocol_for("h2"), WireProtocol::kHttp2);
  EXPECT_EQ(factory(HttpProtocol::kAuto).protocol_for("http/1.1"), WireProtocol::kHttp11);
  EXPECT_EQ(factory(HttpProtocol::kAuto).protocol_for(""), WireProtocol::kHttp11);
  EXPECT_EQ(factory(HttpProtocol::kHttp2).protocol_for(""), WireProtocol::kHttp2);  // h2c
  EXPECT_EQ(factory(HttpProtocol::kHttp1).protocol_for("h2"), WireProtocol::kHttp11);
  EXPECT_EQ(factory(HttpProtocol::kHttp1, 0).protocol_for(""), WireProtocol::kHttp10);
  EXPECT_EQ(factory(HttpProtocol::kHttp1, 1, true).protocol_for(""), WireProtocol::kHttp09);
}

TEST(SessionFactory, H2OverTlsNeedsAlpnToSelectIt) {
  const SessionFactory h2 = factory(HttpProtocol::kHttp2);
  EXPECT_EQ(h2.alpn_refusal(true, "h2"), nullptr);
  ASSERT_NE(h2.alpn_refusal(true, ""), nullptr);  // the server selected nothing
  EXPECT_EQ(std::string(h2.alpn_refusal(true, "")),
            "ALPN: the server did not select h2 (--h2 over TLS needs it)");
  EXPECT_NE(h2.alpn_refusal(true, "http/1.1"), nullptr);
  EXPECT_EQ(h2.alpn_refusal(false, ""), nullptr);  // h2c: prior knowledge, no ALPN
  // Left to ALPN, or HTTP/1 asked for: whatever the server selected is spoken.
  EXPECT_EQ(factory(HttpProtocol::kAuto).alpn_refusal(true, ""), nullptr);
  EXPECT_EQ(factory(HttpProtocol::kHttp1).alpn_refusal(true, ""), nullptr);
}

TEST(SessionFactory, MakesTheSessionOfEachProtocol) {
  const SessionFactory f = factory(HttpProtocol::kAuto);
  EXPECT_EQ(f.max_in_flight(), 10u);  // the larger of --pipeline and --streams
  auto h1 = f.make(WireProtocol::kHttp11);
  ASSERT_NE(dynamic_cast<Http1ClientSession*>(h1.get()), nullptr);
  h1->reset();
  EXPECT_EQ(h1->capacity(), 4u);  // --pipeline
  auto h2 = f.make(WireProtocol::kHttp2);
  ASSERT_NE(dynamic_cast<H2ClientSession*>(h2.get()), nullptr);
  h2->reset();
  EXPECT_FALSE(h2->pending_output().empty());  // the connection preface
  EXPECT_FALSE(h1->owns_transport());
  EXPECT_FALSE(h2->owns_transport());
  EXPECT_STREQ(wire_protocol_name(WireProtocol::kHttp2), "h2");
  EXPECT_STREQ(wire_protocol_name(WireProtocol::kHttp10), "http/1.0");
}

}  // namespace
}  // namespace hail
