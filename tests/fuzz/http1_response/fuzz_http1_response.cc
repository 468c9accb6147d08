// Fuzz target for Http1ResponseParser. Byte 0 picks the options (HEAD request, capture, EOF at the
// end, body skipping), byte 1 a split point; the rest is the response stream. The stream must give
// the same trace whole, split in two, in three, and one byte at a time (next to a guard page), and
// the driver checks the API contract on every call (consumed <= len, kNeedMore consumes all, errors
// carry a kind and stick, complete never carries an error).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "unit/http/response_trace.h"

namespace {

using hail::test::FeedOptions;
using hail::test::Trace;

[[noreturn]] void die(const char* what, const Trace& a, const Trace& b) {
  std::cerr << "fuzz_http1_response: " << what << "\n  got:  " << a << "\n  want: " << b << "\n";
  std::abort();
}

void check_trace(const Trace& t, size_t len) {
  size_t last = 0;
  for (const auto& r : t.responses) {
    if (r.end < last || r.end > len) die("response ends out of order", t, t);
    if (r.status < 100 || r.status > 999) die("status out of range", t, t);
    if (r.status < 200 && r.status != 101) die("interim response reported as final", t, t);
    last = r.end;
  }
  if ((t.final_status == hail::ParseStatus::kError) !=
      (t.error_kind != hail::ParseErrorKind::kNone)) {
    die("error kind does not match status", t, t);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || size > (1 << 19)) return 0;
  FeedOptions opt;
  opt.head_request = (data[0] & 1) != 0;
  opt.capture = (data[0] & 2) != 0;
  opt.eof = (data[0] & 4) != 0;
  opt.skip = (data[0] & 8) != 0;
  if ((data[0] & 16) != 0)
    opt.max_capture_body_bytes = data[0] >> 5;  // tiny caps: truncation paths
  const std::string input(reinterpret_cast<const char*>(data + 2), size - 2);
  const size_t n = input.size();

  std::vector<std::string> violations;
  const Trace whole = hail::test::run_parser(input, {}, opt, &violations);
  check_trace(whole, n);

  auto same = [&](const std::vector<size_t>& cuts, const char* what) {
    Trace t = hail::test::run_parser(input, cuts, opt, &violations);
    if (!(t == whole)) die(what, t, whole);
  };
  if (n > 1) {
    const size_t cut = 1 + static_cast<size_t>(data[1]) * (n - 1) / 256;
    same({cut}, "split in two differs from whole");
    const size_t cut2 = cut + (n - cut) / 2;
    if (cut2 > cut && cut2 < n) same({cut, cut2}, "split in three differs from whole");
    if (n <= 8192) {
      std::vector<size_t> bytes(n - 1);
      std::iota(bytes.begin(), bytes.end(), size_t{1});
      same(bytes, "one byte at a time differs from whole");
    }
  }
  // Skipping body bytes instead of feeding them must not change anything either.
  if (!opt.capture) {
    FeedOptions other = opt;
    other.skip = !opt.skip;
    Trace t = hail::test::run_parser(input, {}, other, &violations);
    if (!(t == whole)) die("skipping changes the result", t, whole);
  }
  if (!violations.empty()) {
    std::cerr << "fuzz_http1_response: contract violation: " << violations.front() << "\n";
    std::abort();
  }
  return 0;
}
