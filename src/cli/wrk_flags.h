// wrk 4.1's and wrk2's command lines (`hail wrk ...`, `hail wrk2 ...`, or hail started as "wrk" or
// "wrk2"): their options, unit rules, defaults and checks, turned into one RunOptions plus the
// tool's output choices. wrk2 is a fork of wrk 4.0 and shares its rules, so one parser serves both.
// Owner: cli. Pure: it prints nothing (the caller prints the messages and usage text); any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/flag_table.h"
#include "cli/verdict_flags.h"
#include "load/run_options.h"

namespace hail {

inline constexpr uint64_t kWrkDefaultThreads = 2;
inline constexpr uint64_t kWrkDefaultConnections = 10;
inline constexpr uint64_t kWrkDefaultDurationS = 10;
inline constexpr uint64_t kWrkDefaultTimeoutS = 2;

struct WrkCommand {
  RunOptions run;
  std::string url_text;  // the URL as typed: wrk's banner prints it verbatim
  // As given. wrk gives each thread connections / threads of them, so run.connections may be
  // lower (-c 10 -t 3 opens 9); the banner still shows the numbers given.
  uint64_t threads = kWrkDefaultThreads;
  uint64_t connections = kWrkDefaultConnections;
  bool latency_distribution = false;  // --latency (wrk2: also implied by -U)
  // wrk2 only: -R (required there), -U, -B.
  uint64_t rate_per_s = 0;
  bool uncorrected_distribution = false;  // -U: the service-time spectrum too
  bool batch_latency = false;             // -B: accepted; hail never pipelines here (no effect)
  VerdictFlags verdict;                   // hail's --slo, --slo-abort, --junit (not in wrk's usage)
  // -H values wrk drops without a word (no ": " after the name); the caller may warn on stderr.
  std::vector<std::string> dropped_headers;
};

// What wrk would do with this command line. On failure wrk prints `message` (if any) on stderr,
// then, for the errors wrk itself finds, its usage text on stdout, and exits 1. Whatever the
// outcome, wrk has printed its version line `version_lines` times first (once per -v it read
// before stopping).
struct WrkParse {
  bool ok = false;
  WrkCommand command;  // when ok
  // When !ok: getopt's or wrk's message (may be empty), or one of hail's ("hail: ..."), which
  // come without the usage text.
  std::string message;
  bool message_has_program = false;  // getopt's messages start with "<program>: "
  // A usage error in one of hail's own flags (--slo ...): exit 2 rather than wrk's 1.
  bool hail_usage = false;
  bool show_usage = false;
  int version_lines = 0;
};

// `args` are the words after "wrk" (argv[1..] when started as wrk).
WrkParse parse_wrk_flags(const std::vector<std::string>& args);

// The same for wrk2's command line: its option table ("t:c:d:s:H:T:R:LUBrv?"), and -R required
// (its message and the usage text when missing).
WrkParse parse_wrk2_flags(const std::vector<std::string>& args);

// wrk's scan_metric / scan_time: an unsigned number, optional spaces, then at most two characters
// of unit, compared case-insensitively ("1k" .. "1P" in powers of 1000; "2s", "2m", "2h" with a
// bare number meaning seconds). Anything after those two characters is ignored, as sscanf does.
// false when wrk would refuse the text (a fraction "1.5k", "500ms", an unknown unit, no digits);
// also for negative values (wrk reads "-5" as 2^64-5) and values beyond 2^64-1.
bool scan_wrk_metric(std::string_view text, uint64_t* value);
bool scan_wrk_time_s(std::string_view text, uint64_t* seconds);

// wrk's usage text, byte for byte (its lines are padded with spaces to 54 columns), rendered
// from the flag table.
std::string wrk_usage();
// Every flag of the table, for the test that checks README against it.
std::vector<FlagName> wrk_flag_names();
// wrk's -v line, naming hail: "wrk 4.1.0 (hail 1.2.3) [epoll] ...".
std::string wrk_version_line(std::string_view hail_version);

// The same three for wrk2 (whose usage and -v line still say "wrk", version 4.0.0).
std::string wrk2_usage();
std::vector<FlagName> wrk2_flag_names();
std::string wrk2_version_line(std::string_view hail_version);

}  // namespace hail
