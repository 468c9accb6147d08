// ApacheBench 2.3's command line (`hail ab ...`, or hail started as "ab"): its flag table read
// the way apr_getopt reads it, ab's atoi numbers, defaults, checks and messages, turned into one
// RunOptions plus ab's output choices. Owner: cli. Pure apart from reading the -p/-u file: it
// prints nothing; any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli/flag_table.h"
#include "cli/verdict_flags.h"
#include "load/collectors.h"
#include "load/run_options.h"
#include "report/ab_report.h"

namespace hail {

// usage() ends ab with exit(EINVAL).
inline constexpr int kAbExitUsage = 22;
inline constexpr int kAbDefaultTimeoutS = 30;
// -t without a later -n: ab sizes its sample array for this many requests and stops there.
inline constexpr int kAbTimeLimitRequests = 50000;
// Debian's ab (apache2-utils) raises upstream's 20000.
inline constexpr int kAbMaxConcurrency = 200000;

struct AbCommand {
  RunOptions run;
  // ab's report needs every request's record and the first response's facts: collectors the
  // command registers in `run`.
  std::shared_ptr<RequestLogCollectors> request_log;
  std::shared_ptr<FirstResponseCollector> first_response;
  // What ab prints about the target: the host without an IPv6 literal's brackets, the port
  // (explicit or the scheme's), the path and query exactly as typed.
  std::string hostname;
  uint16_t port = 0;
  std::string path;
  // The request's head exactly as sent (request line, fields, empty line): what -v 2 prints.
  std::string request_head;
  bool tls = false;
  std::string tls_sni;  // "TLS Server Name" line: -H Host's value or the host; empty for an IP
  int requests = 1;     // -n, or 50000 with -t
  int concurrency = 1;  // -c
  int time_limit_s = 0;
  bool keep_alive = false;       // -k
  bool variable_length = false;  // -l
  bool percentiles = true;       // not -d
  bool confidence = true;        // not -S
  bool send_body = false;        // -p / -u
  int heartbeat = 0;             // a "Completed N requests" line every heartbeat requests (0: none)
  int verbosity = 0;             // -v
  bool html = false;             // -w, -x, -y, -z: ab's HTML output
  AbHtmlAttributes html_attributes;
  std::string csv_path;      // -e
  std::string gnuplot_path;  // -g
  bool proxy = false;        // -X HOST:PORT
  std::string proxy_host;
  int proxy_port = 0;
  // ab's options hail accepts without being able to honour them, each with why (the caller
  // prints them on stderr as "hail: ..." lines before the run).
  std::vector<std::string> notes;
  VerdictFlags verdict;  // hail's --slo, --slo-abort, --junit (not in ab's usage)
};

// What ab would do with this command line.
struct AbParse {
  enum class Outcome {
    kRun,      // run `command`
    kExit,     // print `out` on stdout and `err` on stderr, exit with `exit_status`
    kFailRun,  // ab prints its banner and then fails: `err` and `exit_status` after the banner
  };
  Outcome outcome = Outcome::kExit;
  AbCommand command;  // kRun and kFailRun
  std::string out;
  std::string err;  // everything ab writes on stderr, in order (getopt's messages first)
  int exit_status = 0;
};

// `args` are the words after "ab" (argv[1..] when started as ab); `program` is argv[0] as ab
// would see it ("ab", or the path of the link), for the usage text and messages.
AbParse parse_ab_flags(const std::vector<std::string>& args, std::string_view program);

// ab's usage text (it goes to stderr), byte for byte as Debian's ab (built with OpenSSL) prints
// it, rendered from the flag table, with `program` (argv[0]) in its first line.
std::string render_ab_usage(std::string_view program);
// Every flag of the table, for the test that checks README against it.
std::vector<FlagName> ab_flag_names();

// C's atoi as glibc computes it (strtol clamped to long, then truncated to int): leading
// whitespace, a sign, digits, anything after ignored; 0 when there are no digits.
int ab_atoi(std::string_view text);

// apr_base64_encode: standard alphabet, '=' padding.
std::string ab_base64(std::string_view text);

}  // namespace hail
