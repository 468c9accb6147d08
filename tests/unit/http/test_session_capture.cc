// Response capture (wrk scripts' response(status, headers, body)) on both client sessions: HTTP/1
// fed at every split point next to a guard page, HTTP/1 read-until-close and HTTP/0.9, HTTP/2
// against the in-memory nghttp2 server; and with capture off, no capture and the discard path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "http/h2_client_session.h"
#include "http/http1_client_session.h"
#include "http/request.h"
#include "unit/http/h2_test_server.h"
#include "unit/http/response_trace.h"

namespace hail {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

// Every event as one line, captures with their fields and body.
class Recorder final : public SessionListener {
 public:
  void on_first_byte(uint32_t) override {}
  void on_response_complete(uint32_t slot, int status, uint32_t interim) override {
    lines.push_back("complete " + std::to_string(slot) + " " + std::to_string(status) + " " +
                    std::to_string(interim));
  }
  void on_response_captured(uint32_t slot, int status, const Fields& headers,
                            std::string_view body) override {
    std::string line = "captured " + std::to_string(slot) + " " + std::to_string(status) + " [";
    for (const auto& [name, value] : headers) line += name + "=" + value + ";";
    line += "] " + std::string(body);
    lines.push_back(std::move(line));
  }
  void on_request_failed(uint32_t slot, ErrorClass, const char* reason) override {
    lines.push_back("failed " + std::to_string(slot) + " " + reason);
  }
  std::vector<std::string> lines;
};

RequestTemplate h1_template(const std::string& method = "GET") {
  RequestSpec spec;
  spec.method = method;
  spec.authority = "h";
  return make_request_template(spec, "http");
}

void drain(ClientSession& s) {
  for (std::string_view v = s.pending_output(); !v.empty(); v = s.pending_output()) {
    s.consume_output(v.size());
  }
}

// A fresh HTTP/1 session with `requests` in flight, fed `in` cut at `cuts` (each piece placed
// right before a guard page), then EOF if asked.
std::vector<std::string> run_h1(const std::vector<const RequestTemplate*>& requests,
                                const std::string& in, const std::vector<size_t>& cuts,
                                bool capture, bool eof = false, bool http09 = false) {
  static test::GuardedBuffer guard(1 << 16);
  Http1ClientSession s(static_cast<uint32_t>(requests.size()), http09);
  s.set_capture(capture);
  s.reset();
  for (size_t i = 0; i < requests.size(); ++i) s.submit(static_cast<uint32_t>(i), *requests[i]);
  drain(s);
  Recorder r;
  size_t at = 0;
  for (size_t i = 0; i <= cuts.size(); ++i) {
    const size_t end = i < cuts.size() ? cuts[i] : in.size();
    const char* piece = guard.place(in.data() + at, end - at);
    EXPECT_EQ(s.feed(piece, end - at, r), SessionStatus::kOk) << "at " << at;
    at = end;
  }
  if (eof) {
    EXPECT_EQ(s.on_eof(r), SessionStatus::kOk);
  }
  EXPECT_EQ(s.in_flight(), 0u);
  return r.lines;
}

// Whole, at every single split point and one byte at a time: always `want`.
void check_h1_every_split(const std::vector<const RequestTemplate*>& requests,
                          const std::string& in, bool eof, bool http09,
                          const std::vector<std::string>& want) {
  EXPECT_EQ(run_h1(requests, in, {}, true, eof, http09), want) << "whole";
  for (size_t cut = 1; cut < in.size(); ++cut) {
    const auto got = run_h1(requests, in, {cut}, true, eof, http09);
    if (got != want) {
      ADD_FAILURE() << "split at " << cut << ": " << testing::PrintToString(got);
      break;
    }
  }
  std::vector<size_t> bytes;
  for (size_t i = 1; i < in.size(); ++i) bytes.push_back(i);
  EXPECT_EQ(run_h1(requests, in, bytes, true, eof, http09), want) << "one byte at a time";
}

TEST(Http1Capture, PipelinedResponsesAtEverySplitPoint) {
  const RequestTemplate get = h1_template(), head = h1_template("HEAD");
  const std::string in =
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Folded: a\r\n b\r\nSet-Cookie:  s=1 \r\n\r\n"
      "hello"
      "HTTP/1.1 100 Continue\r\nX-Interim: dropped\r\n\r\n"
      "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3\r\nabc\r\n4;x=y\r\ndefg\r\n0\r\nX-Trailer: not captured\r\n\r\n"
      "HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n";
  const std::vector<std::string> want = {
      "captured 0 200 [Content-Length=5;X-Folded=a b;Set-Cookie=s=1;] hello",
      "complete 0 200 0",
      "captured 1 404 [Transfer-Encoding=chunked;] abcdefg",
      "complete 1 404 1",
      "captured 2 200 [Content-Length=50;] ",  // HEAD: no body follows
      "complete 2 200 0",
  };
  check_h1_every_split({&get, &get, &head}, in, false, false, want);
}

TEST(Http1Capture, ReadUntilCloseBodyEndsAtEof) {
  const RequestTemplate get = h1_template();
  const std::string in = "HTTP/1.0 200 OK\r\nServer: old\r\n\r\nall of it";
  check_h1_every_split({&get}, in, true, false,
                       {"captured 0 200 [Server=old;] all of it", "complete 0 200 0"});
}

TEST(Http1Capture, Http09IsStatus200WithoutHeaders) {
  RequestSpec spec;
  spec.path = "/x";
  const RequestTemplate t = make_request_template(spec, "http", true);
  check_h1_every_split({&t}, "<html>HTTP/1.1 200 OK</html>", true, true,
                       {"captured 0 200 [] <html>HTTP/1.1 200 OK</html>", "complete 0 200 0"});
  // A new connection starts an empty capture.
  Http1ClientSession s(1, true);
  s.set_capture(true);
  for (const char* text : {"first", "second"}) {
    const std::string body = text;
    s.reset();
    s.submit(0, t);
    drain(s);
    Recorder r;
    s.feed(body.data(), body.size(), r);
    EXPECT_EQ(s.on_eof(r), SessionStatus::kOk);
    EXPECT_EQ(r.lines, (std::vector<std::string>{"captured 0 200 [] " + body, "complete 0 200 0"}));
  }
}

TEST(Http1Capture, CaptureKeepsBodiesOutOfTheDiscardPath) {
  const RequestTemplate get = h1_template();
  const std::string head = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
  const std::string body(1000, 'b');
  for (bool capture : {false, true}) {
    Http1ClientSession s;
    s.set_capture(capture);
    s.reset();
    s.submit(0, get);
    drain(s);
    Recorder r;
    s.feed(head.data(), head.size(), r);
    if (!capture) {
      // Capture off: the body may be dropped in the kernel, and nothing is captured.
      EXPECT_EQ(s.skippable_body_bytes(), 1000u);
      EXPECT_EQ(s.skip_body(1000, r), SessionStatus::kOk);
      EXPECT_EQ(r.lines, (std::vector<std::string>{"complete 0 200 0"}));
      EXPECT_TRUE(s.parser().body().empty());
    } else {
      EXPECT_EQ(s.skippable_body_bytes(), 0u);
      s.feed(body.data(), 600, r);
      EXPECT_EQ(s.skippable_body_bytes(), 0u);
      s.feed(body.data() + 600, 400, r);
      EXPECT_EQ(r.lines, (std::vector<std::string>{"captured 0 200 [Content-Length=1000;] " + body,
                                                   "complete 0 200 0"}));
    }
  }
  // Capture off gives the same completions at every split (and no capture event).
  const std::string two = head + body + head + body;
  for (size_t cut = 1; cut < two.size(); cut += 37) {
    EXPECT_EQ(run_h1({&get, &get}, two, {cut}, false),
              (std::vector<std::string>{"complete 0 200 0", "complete 1 200 0"}));
  }
}

TEST(Http1Capture, TurningCaptureOffStopsIt) {
  const RequestTemplate get = h1_template();
  const std::string ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
  Http1ClientSession s;
  s.set_capture(true);
  s.reset();
  s.submit(0, get);
  drain(s);
  Recorder r;
  s.feed(ok.data(), ok.size(), r);
  s.set_capture(false);
  s.submit(1, get);
  drain(s);
  s.feed(ok.data(), ok.size(), r);
  EXPECT_EQ(r.lines, (std::vector<std::string>{"captured 0 200 [Content-Length=2;] hi",
                                               "complete 0 200 0", "complete 1 200 0"}));
}

// ---- HTTP/2 ----

using test::get;
using test::Link;

// Link::pump with our own listener: moves bytes both ways until neither side has more to say.
SessionStatus pump(H2ClientSession& client, test::H2TestServer& server, SessionListener& listener,
                   size_t read_chunk = SIZE_MAX) {
  for (int round = 0; round < 100000; ++round) {
    bool progress = false;
    const std::string_view out = client.pending_output();
    if (!out.empty()) {
      EXPECT_TRUE(server.recv(out));
      client.consume_output(out.size());
      progress = true;
    }
    const std::string in = server.send();
    for (size_t at = 0; at < in.size(); at += read_chunk) {
      if (client.feed(in.data() + at, std::min(read_chunk, in.size() - at), listener) !=
          SessionStatus::kOk) {
        return SessionStatus::kError;
      }
      progress = true;
    }
    if (!progress) return SessionStatus::kOk;
  }
  return SessionStatus::kError;
}

SessionStatus pump(Link& link, SessionListener& listener, size_t read_chunk = SIZE_MAX) {
  return pump(link.client, link.server, listener, read_chunk);
}

// What the test server sends as a body of n bytes.
std::string letters(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>('a' + i % 26);
  return s;
}

std::vector<std::string> run_h2(const std::vector<RequestTemplate>& requests, bool capture,
                                size_t read_chunk = SIZE_MAX) {
  Link link({8, 16});
  link.client.set_capture(capture);
  Recorder r;
  EXPECT_EQ(pump(link, r), SessionStatus::kOk);
  for (size_t i = 0; i < requests.size(); ++i) {
    link.client.submit(static_cast<uint32_t>(i), requests[i]);
  }
  EXPECT_EQ(pump(link, r, read_chunk), SessionStatus::kOk);
  EXPECT_EQ(link.client.in_flight(), 0u);
  return r.lines;
}

TEST(H2Capture, FieldsAndBodyOfTheFinalResponse) {
  const std::vector<RequestTemplate> requests = {
      get("/200?len=300"), get("/interim?n=2"),         get("/trailers"),
      get("/204"),         get("/200?len=100", "HEAD"), get("/rst?code=2")};
  const std::vector<std::string> want = {
      "captured 0 200 [content-length=300;] " + letters(300),
      "complete 0 200 0",
      "captured 1 200 [content-length=0;] ",  // the 103s' fields are not the response's
      "complete 1 200 2",
      "captured 2 200 [content-length=10;] " + letters(10),  // no trailer field
      "complete 2 200 0",
      "captured 3 204 [] ",  // nghttp2's server drops content-length from a 204
      "complete 3 204 0",
      "captured 4 200 [content-length=100;] ",
      "complete 4 200 0",
      "failed 5 stream reset: INTERNAL_ERROR",
  };
  auto sorted = [](std::vector<std::string> v) {  // streams finish in the server's order
    std::stable_sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(run_h2(requests, true)), sorted(want));
  // In small pieces and one byte at a time: the same.
  EXPECT_EQ(sorted(run_h2(requests, true, 7)), sorted(want));
  EXPECT_EQ(sorted(run_h2(requests, true, 1)), sorted(want));
}

TEST(H2Capture, CapturedRightBeforeCompleteOfTheSameStream) {
  const auto lines = run_h2({get("/200?len=5"), get("/404?len=1")}, true);
  ASSERT_EQ(lines.size(), 4u);
  for (size_t i = 0; i < lines.size(); i += 2) {
    EXPECT_EQ(lines[i].substr(0, 9), "captured ");
    EXPECT_EQ(lines[i + 1].substr(0, 9), "complete ");
    EXPECT_EQ(lines[i].substr(9, 5), lines[i + 1].substr(9, 5));  // slot and status
  }
}

TEST(H2Capture, OffCapturesNothing) {
  const auto lines = run_h2({get("/200?len=3000"), get("/trailers")}, false);
  for (const std::string& line : lines) EXPECT_EQ(line.substr(0, 9), "complete ") << line;
  EXPECT_EQ(lines.size(), 2u);
}

TEST(H2Capture, ReusedStreamEntriesStartEmpty) {
  // One stream at a time, long and short bodies alternating: each capture is its own response's.
  Link link({1, 16});
  link.client.set_capture(true);
  Recorder r;
  ASSERT_EQ(pump(link, r), SessionStatus::kOk);
  const RequestTemplate long_body = get("/200?len=500"), short_body = get("/201?len=3");
  for (int i = 0; i < 6; ++i) {
    link.client.submit(static_cast<uint32_t>(i), i % 2 == 0 ? long_body : short_body);
    ASSERT_EQ(pump(link, r), SessionStatus::kOk);
  }
  ASSERT_EQ(r.lines.size(), 12u);
  for (int i = 0; i < 6; ++i) {
    const std::string slot = std::to_string(i);
    EXPECT_EQ(r.lines[2 * i],
              i % 2 == 0 ? "captured " + slot + " 200 [content-length=500;] " + letters(500)
                         : "captured " + slot + " 201 [content-length=3;] abc");
  }
  // A new connection (a new server), too.
  link.client.reset();
  test::H2TestServer server;
  r.lines.clear();
  ASSERT_EQ(pump(link.client, server, r), SessionStatus::kOk);
  link.client.submit(9, short_body);
  ASSERT_EQ(pump(link.client, server, r), SessionStatus::kOk);
  EXPECT_EQ(r.lines, (std::vector<std::string>{"captured 9 201 [content-length=3;] abc",
                                               "complete 9 201 0"}));
}

}  // namespace
}  // namespace hail
