// Fuzz target for H2ServerSession (the server's HTTP/2 connection logic on nghttp2), with no
// socket. Input layout: byte 0 holds the options (bits 0-4: feed chunk size % 32, 0 = all at once;
// bit 5: do not prepend the client connection preface, so the input must bring its own; bit 6:
// tight limits, 4 concurrent streams and GOAWAY after 3 requests; bit 7: a slow reader, which
// takes at most 1000 bytes per simulated send, so the output fills and input waits); the rest is
// what the client sent, after the preface unless bit 5 says otherwise. The clock moves 1 ms per
// round, so short /delay streams are answered while input still arrives, then past every delay.
// Checks: feed() consumes all it is given while the session wants input, draining always frees a
// session that does not want input, output stays bounded and is a well-formed sequence of frames
// a server may send (a SETTINGS frame first, whole frames at the end), streams_started() never
// decreases and bounds the request counters, open streams stay within
// SETTINGS_MAX_CONCURRENT_STREAMS, and no /delay stream is left parked once its time has come.
#include <sys/uio.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/clock.h"
#include "server/h2_session.h"
#include "server/request_path.h"

namespace {

constexpr size_t kMaxFramePayload = 16384;  // nghttp2 never sends larger frames than this
// Output may pass kMaxBufferedOutputBytes by the frame produce() appended last.
constexpr size_t kOutputLimit = hail::kMaxBufferedOutputBytes + 64 * 1024;

hail::ServerStats no_stats(const void*) {
  return {};
}

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_h2_server: %s\n", what);
  std::abort();
}

void check(bool ok, const char* what) {
  if (!ok) die(what);
}

// Follows the server's output frame by frame as it is sent, checking each frame header.
class FrameChecker {
 public:
  void take(const char* data, size_t len) {
    for (size_t i = 0; i < len;) {
      if (payload_left_ > 0) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(payload_left_, len - i));
        payload_left_ -= n;
        i += n;
        continue;
      }
      header_[header_bytes_++] = static_cast<uint8_t>(data[i++]);
      if (header_bytes_ == 9) {
        header_bytes_ = 0;
        frame();
      }
    }
  }
  uint64_t frames() const { return frames_; }
  bool at_boundary() const { return header_bytes_ == 0 && payload_left_ == 0; }

 private:
  void frame() {
    const uint32_t length = (uint32_t{header_[0]} << 16) | (uint32_t{header_[1]} << 8) | header_[2];
    const uint8_t type = header_[3];
    const uint32_t stream = ((uint32_t{header_[5]} << 24) | (uint32_t{header_[6]} << 16) |
                             (uint32_t{header_[7]} << 8) | header_[8]) &
                            0x7fffffffu;
    check(length <= kMaxFramePayload, "frame larger than 16384 bytes");
    if (frames_ == 0) check(type == 0x4 && stream == 0, "output does not start with SETTINGS");
    switch (type) {
      case 0x0:  // DATA
      case 0x1:  // HEADERS
      case 0x3:  // RST_STREAM
      case 0x9:  // CONTINUATION
        // Only on streams the client opened (odd ids); the server pushes nothing.
        check(stream % 2 == 1, "stream frame on stream 0 or a server-initiated stream");
        break;
      case 0x4:  // SETTINGS
      case 0x6:  // PING
      case 0x7:  // GOAWAY
        check(stream == 0, "connection frame on a stream");
        break;
      case 0x8:  // WINDOW_UPDATE: connection or stream
        break;
      default:
        die("frame type a server never sends (PRIORITY, PUSH_PROMISE, unknown)");
    }
    payload_left_ = length;
    ++frames_;
  }

  uint8_t header_[9] = {};
  size_t header_bytes_ = 0;
  uint64_t payload_left_ = 0;
  uint64_t frames_ = 0;
};

// Sends what the output has ready, at most `max_send` per simulated write and `budget` in all;
// returns the bytes taken. Sets *closed when the queue reached its close marker.
uint64_t drain(hail::OutputQueue& out, uint64_t now_ns, uint64_t max_send, uint64_t budget,
               FrameChecker* frames, bool* closed) {
  uint64_t total = 0;
  iovec iov[16];
  while (total < budget) {
    const hail::OutputQueue::Batch batch = out.gather(iov, 16, 1 << 20, now_ns);
    if (batch.iov_count > 0) {
      const uint64_t take = std::min({batch.bytes, max_send, budget - total});
      uint64_t left = take;
      for (size_t i = 0; i < batch.iov_count && left > 0; ++i) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(iov[i].iov_len, left));
        frames->take(static_cast<const char*>(iov[i].iov_base), n);
        left -= n;
      }
      out.consume(take);
      total += take;
      continue;
    }
    // HTTP/2 queues neither files (no root) nor delay markers (parked streams wait in the session).
    check(batch.stop == hail::OutputQueue::Stop::kEmpty ||
              batch.stop == hail::OutputQueue::Stop::kClose,
          "file or delay segment in HTTP/2 output");
    if (batch.stop == hail::OutputQueue::Stop::kClose) *closed = true;
    break;
  }
  return total;
}

struct Tracker {
  const hail::H2ServerSession* session;
  const hail::ServerCounters* counters;
  uint32_t max_streams;
  uint64_t started = 0;

  void check_all() {
    const uint64_t now_started = session->streams_started();
    check(now_started >= started, "streams_started decreased");
    started = now_started;
    check(counters->requests.load() <= started, "more requests counted than streams started");
    check(counters->h2_streams.load() <= started, "more h2 streams counted than started");
    check(session->open_streams() <= started, "more open streams than started");
    check(session->open_streams() <= max_streams, "open streams beyond MAX_CONCURRENT_STREAMS");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  const size_t step = flags % 32 == 0 ? SIZE_MAX : flags % 32;
  const bool prepend_preface = (flags & 0x20) == 0;
  const bool tight = (flags & 0x40) != 0;
  const uint64_t max_send = (flags & 0x80) != 0 ? 1000 : UINT64_MAX;

  std::string input;
  if (prepend_preface) input.assign(hail::kH2ClientPreface);
  input.append(reinterpret_cast<const char*>(data + 1), size - 1);

  hail::ServerCounters counters;
  const std::string date = "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n";
  hail::SessionEnv env;
  env.counters = &counters;
  env.date_line = &date;
  env.stats = &no_stats;
  hail::H2Options options;
  if (tight) {
    options.max_concurrent_streams = 4;
    options.max_requests = 3;
  }
  hail::H2ServerSession session(&env, options);
  Tracker tracker{&session, &counters, options.max_concurrent_streams};
  FrameChecker frames;
  bool closed = false;

  uint64_t now_ns = hail::kNsPerSec;
  size_t pos = 0;
  while (pos < input.size() && !closed) {
    if (session.wants_input()) {
      const size_t n = std::min(step, input.size() - pos);
      const size_t used = session.feed(input.data() + pos, n, now_ns);
      check(used == n, "feed() did not consume all it was given");
      pos += n;
    }
    check(session.output().buffered_bytes() <= kOutputLimit, "output over its bound after feed");
    tracker.check_all();
    now_ns += hail::kNsPerMs;
    session.advance(now_ns);
    check(session.wake_at_ns() > now_ns, "a due /delay stream still parked after advance()");
    check(session.output().buffered_bytes() <= kOutputLimit, "output over its bound after advance");
    tracker.check_all();
    const bool blocked = !session.wants_input() && !session.output().closing();
    const uint64_t sent =
        drain(session.output(), now_ns, max_send,
              max_send == UINT64_MAX ? UINT64_MAX : 4 * max_send, &frames, &closed);
    // A session that will not take input must be freed by sending what it holds.
    if (blocked) check(sent > 0 || closed, "input refused while the output has nothing to send");
  }

  // Input over: let every delay come due and send everything, as a reactor would.
  now_ns += hail::kMaxDelayMs * hail::kNsPerMs + 1;
  for (int round = 0; round < 100000 && !closed; ++round) {
    session.advance(now_ns);
    check(session.wake_at_ns() == UINT64_MAX, "a /delay stream left parked past every delay");
    check(session.output().buffered_bytes() <= kOutputLimit, "output over its bound at the end");
    tracker.check_all();
    if (drain(session.output(), now_ns, max_send, UINT64_MAX, &frames, &closed) == 0) break;
  }
  if (closed) check(!session.wants_input(), "closed session still wants input");
  check(frames.frames() > 0, "no SETTINGS from the server");
  check(frames.at_boundary(), "output ends inside a frame");
  return 0;
}
