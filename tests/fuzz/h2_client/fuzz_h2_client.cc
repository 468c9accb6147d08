// Fuzz target for H2ClientSession: the input is what a server sends. Byte 0 picks the options
// (bits 0-3: requests - 1; bit 4: HEAD; bit 5: POST with a 20000-byte body; bit 6: cancel the
// oldest request now and then; bit 7: write only half of the pending output each time), byte 1
// seeds the chunk sizes (0: the rest in one piece); the server's first frame is always fed alone,
// since requests go out once its SETTINGS are in (capacity() is 0 before), as the connection does.
// The driver models every request and aborts when the session breaks its contract: an event for a
// request not in flight (never submitted, done, cancelled) or after kError, a second first byte,
// in_flight() or capacity() disagreeing with the model, capacity before ready() (the server's
// preface), a request left without outcome at the end. corpus/hostile_* (hostile_corpus.py): the
// integration tests' hostile server frame sequences.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "http/h2_client_session.h"
#include "http/request.h"

namespace {

using hail::ErrorClass;
using hail::SessionStatus;

constexpr uint32_t kRequests = 16;
constexpr uint32_t kMaxStreams = 4;

[[noreturn]] void die(const char* what, uint32_t slot) {
  std::fprintf(stderr, "fuzz_h2_client: %s (slot %u)\n", what, slot);
  std::abort();
}

enum class State : uint8_t { kUnsent, kInFlight, kDone, kCancelled };

class Model final : public hail::SessionListener {
 public:
  void on_first_byte(uint32_t slot) override {
    check(slot, "first byte of a request not in flight");
    if (first_byte[slot]) die("second first byte", slot);
    first_byte[slot] = true;
  }
  void on_response_complete(uint32_t slot, int status, uint32_t interim) override {
    check(slot, "completion of a request not in flight");
    if (status < 200 || status > 999) die("final status out of range", slot);
    if (!first_byte[slot]) die("completed without a first byte", slot);
    if (interim > 1000000) die("absurd interim count", slot);
    finish(slot);
  }
  void on_request_failed(uint32_t slot, ErrorClass error, const char* reason) override {
    check(slot, "failure of a request not in flight");
    if (error != ErrorClass::kStream || reason == nullptr || *reason == '\0') {
      die("stream failure without class or reason", slot);
    }
    finish(slot);
  }
  void on_request_refused(uint32_t slot, const char* reason) override {
    check(slot, "refusal of a request not in flight");
    if (reason == nullptr || *reason == '\0') die("refusal without reason", slot);
    ++refused;
    finish(slot);
  }

  State state[kRequests] = {};
  uint32_t refused = 0;  // REFUSED_STREAM, or above a GOAWAY's last stream id
  bool first_byte[kRequests] = {};
  uint32_t in_flight = 0;
  bool closed = false;  // the session returned kError: the connection owns what is in flight

 private:
  void check(uint32_t slot, const char* what) const {
    if (closed) die("event after kError", slot);
    if (slot >= kRequests || state[slot] != State::kInFlight) die(what, slot);
  }
  void finish(uint32_t slot) {
    state[slot] = State::kDone;
    --in_flight;
  }
};

hail::RequestTemplate make_template(const char* method, std::string body) {
  hail::RequestTemplate t;
  t.method = method;
  t.scheme = "http";
  t.authority = "fuzz.test";
  t.path = "/";
  t.h2_fields = {{"user-agent", "hail-fuzz"}, {"accept", "*/*"}};
  if (!body.empty()) t.h2_fields.emplace_back("content-length", std::to_string(body.size()));
  t.body = std::move(body);
  t.head = t.method == "HEAD";
  return t;
}

uint32_t next_random(uint32_t& x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const hail::RequestTemplate kGet = make_template("GET", "");
  static const hail::RequestTemplate kHead = make_template("HEAD", "");
  static const hail::RequestTemplate kPost = make_template("POST", std::string(20000, 'p'));
  if (size < 2 || size > (1 << 20)) return 0;
  const uint8_t options = data[0];
  const uint32_t total = 1 + (options & 15u);
  const hail::RequestTemplate& request = (options & 16u) != 0   ? kHead
                                         : (options & 32u) != 0 ? kPost
                                                                : kGet;
  const bool cancels = (options & 64u) != 0;
  const bool half_writes = (options & 128u) != 0;
  const uint32_t seed = data[1];
  uint32_t rng = 0x9e3779b9u ^ seed;
  const char* in = reinterpret_cast<const char*>(data + 2);
  const size_t n = size - 2;

  hail::H2ClientSession session({kMaxStreams, 16});
  session.reset();
  Model model;
  uint32_t next = 0;
  size_t at = 0;
  for (uint32_t round = 0; at < n; ++round) {
    size_t len = n - at;
    if (round == 0 && n >= 9) {
      const size_t frame = 9 + (size_t{data[2]} << 16 | size_t{data[3]} << 8 | size_t{data[4]});
      len = std::min(n, frame);
    } else if (seed != 0) {
      len = std::min<size_t>(len, 1 + next_random(rng) % (seed * 8));
    }
    const SessionStatus st = session.feed(in + at, len, model);
    at += len;
    if (st == SessionStatus::kError) {
      if (session.error() != ErrorClass::kParse || *session.error_reason() == '\0') {
        die("kError without parse class or reason", 0);
      }
      model.closed = true;
      break;
    }
    if (cancels && round % 3 == 2) {
      for (uint32_t i = 0; i < kRequests; ++i) {
        if (model.state[i] != State::kInFlight) continue;
        if (!session.cancel(i)) die("cancel refused on a live session", i);
        model.state[i] = State::kCancelled;
        --model.in_flight;
        break;
      }
    }
    const uint32_t capacity = session.capacity();
    if (capacity > 0 && !session.ready()) die("capacity before the server preface", 0);
    if (capacity + model.in_flight > kMaxStreams && capacity > 0)
      die("capacity above --streams", 0);
    for (uint32_t c = capacity; c > 0 && next < total; --c, ++next) {
      session.submit(next, request);
      model.state[next] = State::kInFlight;
      ++model.in_flight;
    }
    const std::string_view out = session.pending_output();
    session.consume_output(half_writes ? (out.size() + 1) / 2 : out.size());
    if (session.in_flight() != model.in_flight) die("in_flight() disagrees", 0);
  }
  if (!model.closed) {
    if (session.on_eof(model) == SessionStatus::kOk) {
      if (model.in_flight != 0) die("on_eof kOk with requests in flight", 0);
    } else {
      if (session.error() != ErrorClass::kRead || model.in_flight == 0) {
        die("on_eof kError without requests in flight", 0);
      }
      model.closed = true;
    }
    if (session.in_flight() != model.in_flight) die("in_flight() disagrees after on_eof", 0);
  }
  if (session.reusable()) die("reusable after the end of the connection", 0);
  // Every request has exactly one outcome: an event, a cancel, or (after kError) the connection's.
  for (uint32_t i = 0; i < kRequests; ++i) {
    if (model.state[i] == State::kInFlight && !model.closed) die("request without outcome", i);
  }
  return 0;
}
