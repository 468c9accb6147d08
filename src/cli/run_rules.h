// hail's rules across flags, checked once on the RunOptions every front-end fills (native, wrk,
// ab, webbench): combinations that cannot work together, and what one flag implies for another
// (POST with a body, no time limit for -n alone, the stages' duration). Owner: cli. Pure apart
// from a throw-away TLS context that checks cipher lists; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"
#include "load/run_options.h"
#include "load/stage_spec.h"

namespace hail {

inline constexpr uint64_t kDefaultIntervalNs = 1'000'000'000;

// What a command line said beyond the values in RunOptions: whether a flag was given at all (a
// default and the same value given explicitly can mean different things), how a flag was
// spelled, for messages, and the settings that only shape RunOptions here. Another tool's
// front-end states what it set the way the native flags would have.
struct GivenFlags {
  bool duration = false;     // -d: bounds a -n run; refused with --stages / --ladder
  bool connections = false;  // -c: closed-loop stages ramp from it
  bool method = false;       // -m: with --http0.9 only GET
  bool body = false;         // --body / --body-file: POST unless -m; none with --http0.9
  bool arrival = false;      // --arrival: rate mode only
  bool streams = false;      // --streams: HTTP/2 only
  bool window_bits = false;  // --window-bits: HTTP/2 only
  std::string tls_flag;      // the last TLS-only flag as spelled ("" for none): https:// only
  std::string tls_min_text;  // --tls-min / --tls-max as typed, for the range message
  std::string tls_max_text;
  std::optional<LadderSpec> ladder;
  uint64_t step_duration_ns = 0;  // --step-duration (0: not given)
  uint64_t repeat = 0;            // --repeat (0: not given)
  uint64_t interval_ns = kDefaultIntervalNs;
  // --interval, --timeseries or --json: the series is written somewhere, so it is kept (it
  // costs a little per request).
  bool keep_series = false;
  // --hlog: the interval log's lines are the windows, so it keeps the series too, cut every
  // --interval (default 1s) like the time series it mirrors.
  bool hlog = false;
};

// Cipher lists OpenSSL would refuse (a throw-away context is built to find out).
Status check_cipher_lists(const TlsClientConfig& tls);

// Checks the rules in a fixed order and applies what they imply; the first broken rule is the
// error, one line naming the flags as the native front-end spells them.
Status validate(RunOptions& run, const GivenFlags& given);

}  // namespace hail
