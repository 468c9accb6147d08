// Hostile HTTP/2 input to H2ServerSession written frame by frame (an nghttp2 client would refuse to
// send most of it): header blocks beyond every limit, CONTINUATION floods, more streams than
// SETTINGS_MAX_CONCURRENT_STREAMS allows, and rapid reset (CVE-2023-44487). No sockets, no clock.
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <string>
#include <utility>
#include <vector>

#include "server/h2_session.h"
#include "server_test_util.h"

namespace hail {
namespace {

using test::drain_output;

constexpr uint8_t kData = 0x0, kHeaders = 0x1, kRstStream = 0x3, kSettings = 0x4, kGoaway = 0x7,
                  kContinuation = 0x9;
constexpr uint8_t kEndStream = 0x1, kEndHeaders = 0x4, kAck = 0x1;
constexpr size_t kMaxFrame = 16384;  // SETTINGS_MAX_FRAME_SIZE the server leaves at its default

std::string frame(uint8_t type, uint8_t flags, int32_t stream, std::string_view payload) {
  std::string f;
  const uint32_t len = static_cast<uint32_t>(payload.size());
  f.push_back(static_cast<char>(len >> 16));
  f.push_back(static_cast<char>(len >> 8));
  f.push_back(static_cast<char>(len));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  for (int shift = 24; shift >= 0; shift -= 8) f.push_back(static_cast<char>(stream >> shift));
  f.append(payload);
  return f;
}

std::string u32(uint32_t v) {
  std::string s;
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>(v >> shift));
  return s;
}

// The client preface, an empty SETTINGS and the ACK of the server's SETTINGS (so its limits are in
// force: exceeding them is then a connection error, not a refused stream).
std::string client_start() {
  return std::string(kH2ClientPreface) + frame(kSettings, 0, 0, "") + frame(kSettings, kAck, 0, "");
}

class Hpack {
 public:
  Hpack() { nghttp2_hd_deflate_new(&deflater_, 4096); }
  ~Hpack() { nghttp2_hd_deflate_del(deflater_); }
  Hpack(const Hpack&) = delete;
  Hpack& operator=(const Hpack&) = delete;

  std::string block(const std::vector<std::pair<std::string, std::string>>& headers) {
    std::vector<nghttp2_nv> nva;
    for (const auto& [name, value] : headers) {
      nva.push_back({reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                     reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(),
                     value.size(), NGHTTP2_NV_FLAG_NO_INDEX});
    }
    std::string out(nghttp2_hd_deflate_bound(deflater_, nva.data(), nva.size()), '\0');
    const auto n = nghttp2_hd_deflate_hd(deflater_, reinterpret_cast<uint8_t*>(out.data()),
                                         out.size(), nva.data(), nva.size());
    EXPECT_GE(n, 0);
    out.resize(n < 0 ? 0 : static_cast<size_t>(n));
    return out;
  }
  std::string get(const std::string& path,
                  std::vector<std::pair<std::string, std::string>> extra = {}) {
    std::vector<std::pair<std::string, std::string>> h = {
        {":method", "GET"}, {":scheme", "http"}, {":authority", "x"}, {":path", path}};
    for (auto& e : extra) h.push_back(std::move(e));
    return block(h);
  }

 private:
  nghttp2_hd_deflater* deflater_ = nullptr;
};

// A header block split into HEADERS + CONTINUATION frames of at most kMaxFrame bytes.
std::string header_frames(int32_t stream, const std::string& block, bool end_stream,
                          size_t piece = kMaxFrame) {
  std::string out;
  size_t pos = 0;
  bool first = true;
  do {
    const size_t n = std::min(piece, block.size() - pos);
    const bool last = pos + n == block.size();
    uint8_t flags = last ? kEndHeaders : 0;
    if (first && end_stream) flags |= kEndStream;
    out += frame(first ? kHeaders : kContinuation, flags, stream, block.substr(pos, n));
    pos += n;
    first = false;
  } while (pos < block.size());
  return out;
}

struct Frame {
  uint8_t type;
  uint8_t flags;
  int32_t stream;
  std::string payload;
  uint32_t error_code() const {  // RST_STREAM: payload[0..4); GOAWAY: payload[4..8)
    const size_t at = type == kGoaway ? 4 : 0;
    if (payload.size() < at + 4) return 0xffffffff;
    uint32_t v = 0;
    for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(payload[at + i]);
    return v;
  }
};

std::vector<Frame> frames_of(std::string_view bytes) {
  std::vector<Frame> out;
  while (bytes.size() >= 9) {
    const uint32_t len = (static_cast<uint8_t>(bytes[0]) << 16) |
                         (static_cast<uint8_t>(bytes[1]) << 8) | static_cast<uint8_t>(bytes[2]);
    if (bytes.size() < 9 + len) break;
    Frame f;
    f.type = static_cast<uint8_t>(bytes[3]);
    f.flags = static_cast<uint8_t>(bytes[4]);
    f.stream = 0;
    for (int i = 5; i < 9; ++i) f.stream = (f.stream << 8) | static_cast<uint8_t>(bytes[i]);
    f.stream &= 0x7fffffff;
    f.payload.assign(bytes.substr(9, len));
    out.push_back(std::move(f));
    bytes.remove_prefix(9 + len);
  }
  return out;
}

class H2AttackTest : public ::testing::Test {
 protected:
  H2AttackTest() {
    env_.counters = &counters_;
    env_.date_line = &date_;
  }

  // Feeds `input` in pieces as a reactor would (only while the session wants input), draining the
  // output after each piece. Returns every frame the server sent; *closed: it closed.
  std::vector<Frame> exchange(H2ServerSession& server, std::string_view input, bool* closed,
                              uint64_t now_ns = 0) {
    std::string sent;
    for (size_t pos = 0; pos < input.size() && !*closed;) {
      EXPECT_TRUE(server.wants_input());
      const size_t n = std::min<size_t>(65536, input.size() - pos);
      EXPECT_EQ(server.feed(input.data() + pos, n, now_ns), n);
      pos += n;
      server.advance(now_ns);
      EXPECT_LE(server.output().buffered_bytes(), kMaxBufferedOutputBytes + 64 * 1024);
      sent += drain_output(server.output(), now_ns, closed);
    }
    server.advance(now_ns);
    sent += drain_output(server.output(), now_ns, closed);
    return frames_of(sent);
  }

  static size_t count(const std::vector<Frame>& frames, uint8_t type, int32_t stream = -1) {
    size_t n = 0;
    for (const Frame& f : frames) n += f.type == type && (stream < 0 || f.stream == stream);
    return n;
  }
  static const Frame* find(const std::vector<Frame>& frames, uint8_t type, int32_t stream = -1) {
    for (const Frame& f : frames) {
      if (f.type == type && (stream < 0 || f.stream == stream)) return &f;
    }
    return nullptr;
  }

  ServerCounters counters_;
  std::string date_ = "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n";
  SessionEnv env_;
  H2Options options_;
  Hpack hpack_;
};

TEST_F(H2AttackTest, WellFormedBaselineIsServed) {
  H2ServerSession server(&env_, options_);
  bool closed = false;
  auto frames =
      exchange(server, client_start() + header_frames(1, hpack_.get("/bytes/5"), true), &closed);
  EXPECT_FALSE(closed);
  EXPECT_NE(find(frames, kHeaders, 1), nullptr);
  EXPECT_NE(find(frames, kData, 1), nullptr);
  EXPECT_EQ(counters_.requests.load(), 1u);
}

TEST_F(H2AttackTest, HeaderBlockBeyond64KiBResetsTheStreamOnly) {
  // ~100 KiB of small headers over HEADERS + 6 CONTINUATION frames: decoding stops at 64 KiB, the
  // stream is reset without an answer, and the connection goes on serving.
  std::vector<std::pair<std::string, std::string>> extra;
  for (int i = 0; i < 1000; ++i)
    extra.emplace_back("x-h" + std::to_string(i), std::string(70, 'v'));
  const std::string big = hpack_.get("/bytes/1", extra);
  ASSERT_GT(big.size(), kMaxH2HeaderBlockBytes);
  ASSERT_LE(big.size(), 8 * kMaxFrame);
  H2ServerSession server(&env_, options_);
  bool closed = false;
  auto frames = exchange(
      server,
      client_start() + header_frames(1, big, true) + header_frames(3, hpack_.get("/bytes/2"), true),
      &closed);
  EXPECT_FALSE(closed);
  EXPECT_EQ(find(frames, kGoaway), nullptr);
  ASSERT_NE(find(frames, kRstStream, 1), nullptr);
  EXPECT_EQ(find(frames, kHeaders, 1), nullptr);  // never answered
  EXPECT_NE(find(frames, kHeaders, 3), nullptr);
  EXPECT_EQ(counters_.requests.load(), 1u);  // stream 3 only
  EXPECT_EQ(server.open_streams(), 0u);
}

TEST_F(H2AttackTest, HeaderBlockBetweenTheLimitsIs431) {
  // Over the HTTP/1 head limits (8 KiB + 16 KiB) but under 64 KiB: an answer, 431.
  std::vector<std::pair<std::string, std::string>> extra;
  for (int i = 0; i < 300; ++i) extra.emplace_back("x-h" + std::to_string(i), std::string(70, 'v'));
  H2ServerSession server(&env_, options_);
  bool closed = false;
  auto frames = exchange(
      server, client_start() + header_frames(1, hpack_.get("/bytes/1", extra), true), &closed);
  EXPECT_FALSE(closed);
  const Frame* headers = find(frames, kHeaders, 1);
  ASSERT_NE(headers, nullptr);
  // :status 431 is not in the HPACK static table: a literal "431" follows the name index.
  EXPECT_NE(headers->payload.find("431"), std::string::npos);
  EXPECT_EQ(counters_.requests.load(), 1u);
}

TEST_F(H2AttackTest, ContinuationFloodEndsTheConnection) {
  // A header block that never ends: HEADERS then CONTINUATION frames without END_HEADERS (the
  // CVE-2024-28182 pattern). The server must give up with GOAWAY and close, not buffer forever.
  H2ServerSession server(&env_, options_);
  std::string input = client_start() + frame(kHeaders, kEndStream, 1, hpack_.get("/bytes/1"));
  const std::string piece = hpack_.block({{"x-flood", std::string(100, 'f')}});
  for (int i = 0; i < 10000; ++i) input += frame(kContinuation, 0, 1, piece);
  bool closed = false;
  auto frames = exchange(server, input, &closed);
  EXPECT_TRUE(closed);
  EXPECT_NE(find(frames, kGoaway), nullptr);
  EXPECT_EQ(counters_.requests.load(), 0u);
}

TEST_F(H2AttackTest, MoreStreamsThanAllowedEndTheConnection) {
  // 150 concurrent streams (each parked on /delay, so none finishes) against
  // SETTINGS_MAX_CONCURRENT_STREAMS 100, acknowledged: stream 101 is a protocol error.
  options_.max_concurrent_streams = 100;
  H2ServerSession server(&env_, options_);
  std::string input = client_start();
  for (int i = 0; i < 150; ++i) input += header_frames(1 + 2 * i, hpack_.get("/delay/1000"), true);
  bool closed = false;
  auto frames = exchange(server, input, &closed);
  EXPECT_LE(counters_.requests.load(), 100u);
  EXPECT_LE(counters_.h2_streams.load(), 100u);
  EXPECT_LE(server.open_streams(), 100u);
  const Frame* goaway = find(frames, kGoaway);
  const size_t refused = count(frames, kRstStream);
  // Either the whole connection is refused (GOAWAY), or each stream beyond the limit is.
  EXPECT_TRUE(goaway != nullptr || refused >= 50) << "no GOAWAY, " << refused << " RST_STREAM";
  if (goaway != nullptr) {
    EXPECT_EQ(goaway->error_code(), uint32_t{NGHTTP2_PROTOCOL_ERROR});
    EXPECT_TRUE(closed);
  }
}

TEST_F(H2AttackTest, RapidResetIsCut) {
  // CVE-2023-44487: open a stream and cancel it at once, thousands of times. Each stream costs the
  // server a request before it is cancelled; nghttp2's reset rate limit must end the flood with
  // a GOAWAY long before all of them are served.
  constexpr int kStreams = 5000;
  H2ServerSession server(&env_, options_);
  std::string input = client_start();
  const std::string cancel = u32(NGHTTP2_CANCEL);
  for (int i = 0; i < kStreams; ++i) {
    const int32_t id = 1 + 2 * i;
    input += header_frames(id, hpack_.get("/bytes/1"), true);
    input += frame(kRstStream, 0, id, cancel);
  }
  bool closed = false;
  auto frames = exchange(server, input, &closed);
  const Frame* goaway = find(frames, kGoaway);
  ASSERT_NE(goaway, nullptr) << counters_.requests.load() << " requests served, no GOAWAY";
  EXPECT_LT(counters_.requests.load(), static_cast<uint64_t>(kStreams) / 2);
  EXPECT_TRUE(closed);
  EXPECT_EQ(server.open_streams(), 0u);
}

TEST_F(H2AttackTest, OversizedSingleFrameIsAConnectionError) {
  // A HEADERS frame larger than SETTINGS_MAX_FRAME_SIZE: FRAME_SIZE_ERROR for the connection.
  H2ServerSession server(&env_, options_);
  const std::string payload(kMaxFrame + 1, '\0');
  bool closed = false;
  auto frames =
      exchange(server, client_start() + frame(kHeaders, kEndHeaders, 1, payload), &closed);
  EXPECT_TRUE(closed);
  const Frame* goaway = find(frames, kGoaway);
  ASSERT_NE(goaway, nullptr);
  EXPECT_EQ(goaway->error_code(), uint32_t{NGHTTP2_FRAME_SIZE_ERROR});
  EXPECT_EQ(counters_.requests.load(), 0u);
}

}  // namespace
}  // namespace hail
