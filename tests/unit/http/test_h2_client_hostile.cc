// H2ClientSession fed frames a misbehaving server writes (the integration tests' hostile_h2.py
// cases, at the session level): refused streams, preface readiness, a stream limit of 0,
// WINDOW_UPDATE overflow, HPACK errors, CONTINUATION and SETTINGS floods, DATA on a closed
// stream. Each test checks the exact events and the status the connection acts on.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "http/h2_client_session.h"
#include "http/request.h"
#include "unit/http/h2_test_server.h"

namespace hail {
namespace {

using test::complete;
using test::Event;
using test::first_byte;
using test::get;
using test::Link;
using test::refused;

// One raw frame (RFC 9113 §4.1).
std::string frame(uint8_t type, uint8_t flags, uint32_t stream_id, const std::string& payload) {
  const size_t n = payload.size();
  std::string f;
  f += static_cast<char>(n >> 16);
  f += static_cast<char>(n >> 8);
  f += static_cast<char>(n);
  f += static_cast<char>(type);
  f += static_cast<char>(flags);
  for (int shift = 24; shift >= 0; shift -= 8) f += static_cast<char>(stream_id >> shift);
  return f + payload;
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

constexpr uint8_t kData = 0, kHeaders = 1, kSettings = 4, kWindowUpdate = 8, kContinuation = 9;
constexpr uint8_t kEndStream = 1, kEndHeaders = 4;

// A session whose server preface was fed (and acknowledged), with `requests` GETs sent on
// streams 1, 3, ...
struct Raw {
  explicit Raw(uint32_t requests = 1, uint32_t streams = 4) : client({streams, 16}) {
    client.reset();
    feed(frame(kSettings, 0, 0, ""));
    for (uint32_t i = 0; i < requests; ++i) client.submit(i, request);
    client.consume_output(client.pending_output().size());
  }
  SessionStatus feed(const std::string& bytes) {
    const SessionStatus st = client.feed(bytes.data(), bytes.size(), events);
    client.consume_output(client.pending_output().size());
    return st;
  }
  RequestTemplate request = get("/");
  H2ClientSession client;
  test::Events events;
};

TEST(H2ClientHostile, ReadyOnlyOnceTheServerPrefaceArrives) {
  H2ClientSession client({4, 16});
  client.reset();
  EXPECT_FALSE(client.ready());
  test::Events events;
  const std::string settings = frame(kSettings, 0, 0, "");
  ASSERT_EQ(client.feed(settings.data(), settings.size(), events), SessionStatus::kOk);
  EXPECT_TRUE(client.ready());
  EXPECT_EQ(client.capacity(), 4u);
  client.reset();
  EXPECT_FALSE(client.ready());
}

TEST(H2ClientHostile, SettingsAckInsteadOfAPrefaceIsAConnectionError) {
  H2ClientSession client({4, 16});
  client.reset();
  test::Events events;
  const std::string ack = frame(kSettings, 1, 0, "");
  EXPECT_EQ(client.feed(ack.data(), ack.size(), events), SessionStatus::kError);
  EXPECT_FALSE(client.ready());
}

TEST(H2ClientHostile, RefusedStreamIsReportedAsRefused) {
  Raw raw(2);
  ASSERT_EQ(raw.feed(frame(3, 0, 1, be32(7))), SessionStatus::kOk);  // RST_STREAM REFUSED_STREAM
  ASSERT_EQ(raw.feed(frame(3, 0, 3, be32(2))), SessionStatus::kOk);  // INTERNAL_ERROR
  EXPECT_EQ(raw.events.take(),
            (std::vector<Event>{refused(0, "stream reset: REFUSED_STREAM"),
                                test::failed(1, "stream reset: INTERNAL_ERROR")}));
  EXPECT_TRUE(raw.client.reusable());
}

TEST(H2ClientHostile, ListenerWithoutRefusalSeesAStreamError) {
  // SessionListener's default: a refusal nobody resends is a stream error.
  struct Failures : SessionListener {
    void on_first_byte(uint32_t) override {}
    void on_response_complete(uint32_t, int, uint32_t) override {}
    void on_request_failed(uint32_t slot, ErrorClass error, const char* reason) override {
      got.push_back({test::Event::kFailed, slot, 0, 0, error, reason});
    }
    std::vector<Event> got;
  } failures;
  Raw raw(1);
  const std::string goaway = frame(7, 0, 0, be32(0) + be32(0));
  ASSERT_EQ(raw.client.feed(goaway.data(), goaway.size(), failures), SessionStatus::kOk);
  EXPECT_EQ(failures.got, (std::vector<Event>{test::failed(0, "refused by GOAWAY")}));
}

TEST(H2ClientHostile, StreamLimitOfZeroLeavesAReadyConnectionWithoutCapacity) {
  Raw raw(0);
  ASSERT_EQ(raw.feed(frame(kSettings, 0, 0, std::string("\0\3", 2) + be32(0))), SessionStatus::kOk);
  EXPECT_TRUE(raw.client.ready());
  EXPECT_TRUE(raw.client.reusable());
  EXPECT_EQ(raw.client.capacity(), 0u);
  EXPECT_EQ(raw.client.in_flight(), 0u);
}

TEST(H2ClientHostile, ConnectionWindowOverflowIsAConnectionError) {
  Raw raw(1);
  EXPECT_EQ(raw.feed(frame(kWindowUpdate, 0, 0, be32(0x7FFFFFFF))), SessionStatus::kError);
  EXPECT_EQ(raw.client.error(), ErrorClass::kParse);
  EXPECT_STREQ(raw.client.error_reason(), "connection error: FLOW_CONTROL_ERROR");
  EXPECT_TRUE(raw.events.list.empty());
  EXPECT_EQ(raw.client.in_flight(), 1u);  // the connection fails it
}

TEST(H2ClientHostile, StreamWindowOverflowFailsTheStream) {
  Raw raw(1);
  ASSERT_EQ(raw.feed(frame(kWindowUpdate, 0, 1, be32(0x7FFFFFFF))), SessionStatus::kOk);
  EXPECT_EQ(raw.events.take(),
            (std::vector<Event>{test::failed(0, "stream error: FLOW_CONTROL_ERROR")}));
  EXPECT_TRUE(raw.client.reusable());
}

TEST(H2ClientHostile, BadHpackIndexIsACompressionError) {
  Raw raw(1);
  EXPECT_EQ(raw.feed(frame(kHeaders, kEndHeaders | kEndStream, 1, "\xff\xff\x7f")),
            SessionStatus::kError);
  EXPECT_STREQ(raw.client.error_reason(), "connection error: COMPRESSION_ERROR");
}

TEST(H2ClientHostile, ContinuationFloodIsAConnectionError) {
  Raw raw(1);
  std::string flood = frame(kHeaders, 0, 1, "\x88");
  for (int i = 0; i < 100; ++i) flood += frame(kContinuation, 0, 1, "");
  EXPECT_EQ(raw.feed(flood), SessionStatus::kError);
  EXPECT_EQ(raw.client.error(), ErrorClass::kParse);
  EXPECT_STREQ(raw.client.error_reason(), "Too many CONTINUATION frames following a HEADER frame");
}

TEST(H2ClientHostile, SettingsFloodNotAnsweredIsAConnectionError) {
  Raw raw(1);
  std::string flood;
  for (int i = 0; i < 2000; ++i) flood += frame(kSettings, 0, 0, "");
  EXPECT_EQ(raw.feed(flood), SessionStatus::kError);
  EXPECT_EQ(raw.client.error(), ErrorClass::kParse);
}

TEST(H2ClientHostile, DataOnAClosedStreamIsIgnored) {
  Raw raw(2);
  const std::string done =
      frame(kHeaders, kEndHeaders | kEndStream, 1, "\x88") + frame(kData, 0, 1, "stray");
  ASSERT_EQ(raw.feed(done), SessionStatus::kOk);
  EXPECT_EQ(raw.events.take(), (std::vector<Event>{first_byte(0), complete(0, 200)}));
  ASSERT_EQ(raw.feed(frame(kHeaders, kEndHeaders | kEndStream, 3, "\x88")), SessionStatus::kOk);
  EXPECT_EQ(raw.events.take(), (std::vector<Event>{first_byte(1), complete(1, 200)}));
  EXPECT_TRUE(raw.client.reusable());
}

}  // namespace
}  // namespace hail
