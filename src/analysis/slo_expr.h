// SLO thresholds: the expression one --slo flag carries (k6's threshold syntax plus units, metric
// prefixes, per-tag filters, sliding windows and sustain), parsed into an SloThreshold.
// Owner: analysis. Pure functions and plain values: any thread.
#pragma once

// Grammar (one threshold per expression; spaces are allowed between tokens):
//
//   threshold  := [selector] statistic ["?"] op value [" over " DURATION] [" for " DURATION]
//               | scalar [filter] ["?"] op value [" over " DURATION] [" for " DURATION]
//   selector   := metric [filter] ("." | ":")       latency.p(99)  latency{tag=checkout}: p(99)
//   metric     := latency | service | ttfb | connect | lag | tls    (default: latency)
//                 service_time is service; k6's names too: http_req_duration (latency),
//                 http_req_waiting (ttfb), http_req_connecting (connect),
//                 http_req_tls_handshaking (tls)
//   statistic  := p(N) | pN | med | avg | min | max          N in 0..100; med is p(50)
//   scalar     := error_rate | rps | requests | errors | errors.CLASS | timeouts | status_errors
//                 | server.cpu | server.cpu_max | server.rss | server.rss_growth | server.fds
//                 CLASS: connect read write timeout parse stream status; timeouts is
//                 errors.timeout, status_errors is errors.status. k6's names: http_req_failed: rate
//                 (error_rate), http_reqs: rate (rps), http_reqs: count (requests)
//   filter     := "{" ("tag" | "name") ("=" | ":") VALUE "}"   VALUE may be "double-quoted"
//   op         := < | <= | > | >= | == | === | !=
//   value      := a duration for latency-like metrics: NUMBER [ns|us|ms|s|m|h], a bare number is
//                 milliseconds (as in k6: `p(95)<500`); error_rate: a fraction or a percentage
//                 (0.001, 0.1%); rps and counts: NUMBER with an optional k or M (x1000, x10^6);
//                 server.cpu(_max): % of one core (90% or 90); server.rss: bytes with B, KiB, MiB,
//                 GiB (or KB, MB, GB: also powers of 1024); server.rss_growth: the same per hour
//                 (10MiB/h; /h may be left out)
//   DURATION   := a duration with its unit (10s, 1m, 500ms); no bare numbers. A unit may stand
//                 apart from its number, in values and durations alike: "10 ms", "over 10 s"
//
// Examples: p(99)<10ms   p99<10ms   p(99.9)<=50ms   avg<2ms   max<1s   med<5ms
//           service.p(99)<5ms   lag.p(99)<1ms   error_rate<0.1%   rps>=5000   timeouts==0
//           errors.read==0   status_errors<10   latency{tag=checkout}: p(99)<20ms
//           http_req_duration{name:checkout}: p(95)<500   p(99)<10ms over 10s
//           p(99)<10ms for 5s   service.p(99)?<5ms
//
// Meanings:
// - Without a window the whole measured phase counts (warm-up excluded).
// - `over W`: checked on every sliding span of W: each span is the fewest consecutive windows of
//   the time series, ending at a window boundary, that together last at least W (so with 3 s
//   intervals `over 10s` checks 12 s spans; W below one interval checks every window alone). A run
//   shorter than W is checked once, over all its windows. A span with no samples of the metric
//   (no responses for latency, no outcomes for error_rate) is not checked.
// - `for D`: a breach counts only once the threshold has been violated continuously for at least
//   D, judged window by window (each window alone, or with `over`, each span ending at it): a
//   stretch of failing windows lasting D in total. A stretch still shorter than D when the run
//   ends is not a breach; a window with no samples ends a stretch.
// - error_rate = every error of every class (connect included) plus responses with a status
//   outside 2xx/3xx, over the requests attempted plus the connect errors and the unsolicited
//   responses (neither consumes a request: they are added so that each error is one event of the
//   denominator and the rate stays within 0..1). A refused connection is a failure the user must
//   see, as Nighthawk's default failure predicates do. In a window (over/for, stages) the
//   denominator is the window's outcomes (completed + errors), since windows count no attempts.
// - errors = the same numerator as error_rate, as a count.
// - rps = completed responses (any status) per second of the measured phase (or of the span).
// - A threshold on a metric with no samples (no responses, a closed-loop run's service time, a tag
//   that never ran) FAILS: a missing metric is not a pass (k6 passes it, k6 issue #4283). Written
//   with "?" right before the operator (`service.p(99)?<5ms`), such a threshold passes instead.
// - server.*: the first --monitor pid:N or name:NAME, over the measured windows (see
//   analysis/server_verdicts.h); whole run only (no over/for, no tag). Without such a monitor the
//   metric has no samples: the threshold fails (or passes with "?").
// - Per-tag thresholds (`{tag=...}`) take latency, error_rate, rps, requests and errors, over the
//   whole run only: the time series has no per-tag windows. ttfb, connect and tls have no
//   per-window data either, so `over` and `for` take latency, service, lag and the scalars.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace hail {

enum class SloMetric : uint8_t {
  // Distributions, values in ns.
  kLatency,
  kService,
  kTtfb,
  kConnect,
  kLag,
  kTls,
  // Scalars.
  kErrorRate,  // a fraction, 0..1
  kRps,        // completed responses per second
  kRequests,   // completed responses
  kErrors,     // a count: SloThreshold::errors says which
  // The server's side (--monitor pid:/name:, the first one), whole run only.
  kServerCpu,        // mean CPU over the measured windows, % of one core
  kServerCpuMax,     // the busiest window's CPU, % of one core
  kServerRss,        // the largest RSS of a measured window, bytes
  kServerRssGrowth,  // the fitted RSS slope (analysis/drift.h), bytes per hour
  kServerFds,        // the most open descriptors in a measured window
};

enum class SloStat : uint8_t { kNone, kPercentile, kAvg, kMin, kMax };

enum class SloOp : uint8_t { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };

// Which errors a kErrors threshold counts. The classes are ErrorClass's, in its order.
enum class SloErrors : uint8_t {
  kAll,  // every class plus status errors (error_rate's numerator)
  kConnect,
  kRead,
  kWrite,
  kTimeout,
  kParse,
  kStream,
  kStatus,  // completed responses with a status outside 2xx/3xx
};

struct SloThreshold {
  std::string text;  // the expression as written, without surrounding spaces
  SloMetric metric = SloMetric::kLatency;
  SloStat stat = SloStat::kNone;       // distributions only
  double percentile = 0;               // kPercentile: 0..100 (med is 50)
  SloErrors errors = SloErrors::kAll;  // kErrors only
  std::string tag;                     // non-empty: only this tag's (mix line's) requests
  bool optional = false;               // "?": a metric with no samples passes
  SloOp op = SloOp::kLess;
  double limit = 0;      // in the metric's unit: ns, a fraction, req/s or a count
  uint64_t over_ns = 0;  // > 0: every sliding span of this length
  uint64_t for_ns = 0;   // > 0: a breach must last this long

  bool is_distribution() const { return metric <= SloMetric::kTls; }
  // Evaluated window by window (over or for), rather than over the whole measured phase.
  bool windowed() const { return over_ns > 0 || for_ns > 0; }
  // What is measured, canonically: "latency.p(99)", "service.avg", "error_rate", "errors.timeout",
  // "latency{tag=checkout}.p(99)". The "metric" of reports.
  std::string metric_label() const;
};

// Parses one expression. Errors are one line that quotes the expression and names the bad part:
// `"p(99)<10xs": unknown unit "xs" ...`; the CLI puts `--slo ` in front and exits 2.
Result<SloThreshold> parse_slo(std::string_view text);

// Whether `value op limit` holds.
bool slo_holds(SloOp op, double value, double limit);

// Whether the time series' windows carry this metric (latency, service, lag, and the scalars).
bool slo_metric_in_windows(SloMetric metric);

// A measured value (or a limit) in the metric's unit, for reports: "12.35ms", "0.120%",
// "5012.3 req/s", "3".
std::string format_slo_value(const SloThreshold& threshold, double value);

const char* slo_op_text(SloOp op);

}  // namespace hail
