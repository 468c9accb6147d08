// Fuzz target: arbitrary bytes into ServerSession (the server's per-connection protocol logic),
// with no socket. Input layout: byte 0 picks the feed chunk size (% 32, 0 = all at once), byte 1
// the most each simulated send takes (% 32 * 97, 0 = everything); the rest is what the client sent.
// Checks: feed() never claims more than it was given, input is taken whenever the session wants it,
// output stays bounded, and the stream starts like an HTTP/1.1 response. Each input's answers are
// followed for their first 16 MiB (a /bytes/N answer may be gigabytes long).
#include <sys/uio.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/clock.h"
#include "server/session.h"

namespace {

hail::ServerStats no_stats(const void*) {
  return {};
}

void check(bool ok) {
  if (!ok) std::abort();
}

// What one input may have sent at most: a /bytes/N answer may be gigabytes long, and generating
// all of it would only time the fuzzer out (its bytes are the same pattern throughout).
constexpr uint64_t kMaxSentBytes = uint64_t{16} << 20;

// Sends (discards) what the output has ready, at most `max_send` per simulated write and while
// *budget lasts; returns the number of bytes taken, checking that responses begin with a status
// line.
uint64_t drain(hail::OutputQueue& out, uint64_t now_ns, uint64_t max_send, std::string* first_bytes,
               uint64_t* budget) {
  uint64_t total = 0;
  iovec iov[16];
  for (int guard = 0; guard < 1'000'000 && *budget > 0; ++guard) {
    const hail::OutputQueue::Batch batch = out.gather(iov, 16, 1 << 20, now_ns);
    if (batch.iov_count > 0) {
      const uint64_t take = std::min({batch.bytes, max_send, *budget});
      uint64_t left = take;
      for (size_t i = 0; i < batch.iov_count && left > 0 && first_bytes->size() < 9; ++i) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>({iov[i].iov_len, left, 9}));
        first_bytes->append(static_cast<const char*>(iov[i].iov_base), n);
        left -= n;
      }
      out.consume(take);
      total += take;
      *budget -= take;
      continue;
    }
    // No files without a root; delays are handled by moving the clock; close ends the stream.
    check(batch.stop != hail::OutputQueue::Stop::kFile);
    break;
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t step = data[0] % 32 == 0 ? SIZE_MAX : data[0] % 32;
  const uint64_t max_send =
      data[1] % 32 == 0 ? UINT64_MAX : static_cast<uint64_t>(data[1] % 32) * 97;
  const char* input = reinterpret_cast<const char*>(data + 2);
  const size_t len = size - 2;

  hail::ServerCounters counters;
  const std::string date = "Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n";
  hail::SessionEnv env;
  env.counters = &counters;
  env.date_line = &date;
  env.stats = &no_stats;
  hail::ServerSession session(&env);

  uint64_t now_ns = hail::kNsPerSec;
  uint64_t budget = kMaxSentBytes;
  std::string first_bytes;
  size_t pos = 0;
  while (pos < len) {
    const size_t n = std::min(step, len - pos);
    const bool wanted = session.wants_input();
    const size_t used = session.feed(input + pos, n, now_ns);
    check(used <= n);
    check(!wanted || used > 0);  // a session that wants input makes progress
    pos += used;
    check(session.output().buffered_bytes() <=
          hail::kMaxBufferedOutputBytes + hail::kMaxEchoBodyBytes + 64 * 1024);
    check(session.output().segments() <= hail::kMaxQueuedSegments + 8);
    drain(session.output(), now_ns, max_send, &first_bytes, &budget);
    if (budget == 0) break;  // enough of this input's answers seen
    if (used == 0) {
      // Output full (a delay holds it back) or closing: let time pass, as the reactor would.
      now_ns += hail::kMaxDelayMs * hail::kNsPerMs;
      drain(session.output(), now_ns, max_send, &first_bytes, &budget);
      if (session.output().closing() || budget == 0) break;
      check(session.wants_input() || session.output().closing());
    }
  }
  now_ns += hail::kMaxDelayMs * hail::kNsPerMs + 1;
  drain(session.output(), now_ns, UINT64_MAX, &first_bytes, &budget);
  if (!first_bytes.empty())
    check(first_bytes.compare(0, 9, "HTTP/1.1 ", 0, first_bytes.size()) == 0);
  return 0;
}
