// webbench 1.5's command line (`hail webbench ...`, or hail started as "webbench"): its options,
// atoi numbers, defaults, URL rules and request bytes, turned into one RunOptions plus what its
// banner needs. Owner: cli. Pure: it prints nothing (the caller prints webbench's messages, usage
// text and banner); any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/flag_table.h"
#include "cli/verdict_flags.h"
#include "load/run_options.h"

namespace hail {

inline constexpr int64_t kWebbenchDefaultClients = 1;
inline constexpr int64_t kWebbenchDefaultSeconds = 30;
// webbench replaces "-t 0" (and any -t that atoi reads as 0) with this.
inline constexpr int64_t kWebbenchZeroTimeSeconds = 60;
inline constexpr size_t kWebbenchMaxUrlLength = 1500;
inline constexpr int kWebbenchDefaultPort = 80;

// webbench's exit statuses (its man page): 0 ran, 1 the target did not accept a connection,
// 2 bad command line.
inline constexpr int kWebbenchExitOk = 0;
inline constexpr int kWebbenchExitConnect = 1;
inline constexpr int kWebbenchExitUsage = 2;

struct WebbenchCommand {
  RunOptions run;
  std::string url_text;  // as typed: the banner prints it verbatim
  std::string method;    // GET, HEAD, OPTIONS or TRACE
  // webbench's protocol after its adjustments (HEAD needs 1.0, OPTIONS and TRACE 1.1, -r through
  // a proxy 1.0): 0 = HTTP/0.9, 1 = HTTP/1.0, 2 = HTTP/1.1.
  int http_level = 1;
  int64_t clients = kWebbenchDefaultClients;  // after webbench's 0 -> 1
  int64_t seconds = kWebbenchDefaultSeconds;  // after webbench's 0 -> 60
  bool force = false;                         // -f: accepted; hail still reads every response
  bool reload = false;                        // -r
  bool proxy = false;                         // -p given
  std::string proxy_host;                     // as the banner shows it (may be empty)
  int64_t proxy_port = kWebbenchDefaultPort;
  // Where webbench's own connection check would fail before any request (a port it cannot use, a
  // host hail cannot parse): the caller prints the banner, webbench's "Connect to server failed"
  // message and this reason, and exits 1. Empty: connect as run says.
  std::string connect_problem;
  VerdictFlags verdict;  // hail's --slo, --slo-abort, --junit (not in webbench's usage)
};

// What webbench would do with this command line.
struct WebbenchParse {
  bool ok = false;            // run `command`
  bool show_version = false;  // -V: print webbench_version_line(), exit 0
  // Otherwise: `message` on stderr (complete lines, as webbench prints them, possibly starting
  // with an empty line; may be empty), then the usage text on stderr when show_usage, then exit
  // with `exit_status`. copyright_first: webbench finds this error only after printing its
  // copyright lines (URL errors), so they come first.
  std::string message;
  bool show_usage = false;
  bool copyright_first = false;
  int exit_status = kWebbenchExitUsage;
  WebbenchCommand command;  // when ok
};

// `args` are the words after "webbench" (argv[1..] when started as webbench).
WebbenchParse parse_webbench_flags(const std::vector<std::string>& args);

// C's atoi as glibc reads the text: leading white space, a sign, digits up to the first other
// character ("10s" is 10, "abc" is 0). Where atoi would keep only the low 32 bits of a larger
// number, the value is kept (clamped to +-2^62), so that hail's range checks refuse it.
int64_t webbench_atoi(std::string_view text);

// webbench's usage text, byte for byte (it goes to stderr), rendered from the flag table.
std::string webbench_usage();
// Every flag of the table, for the test that checks README against it.
std::vector<FlagName> webbench_flag_names();
// -V: webbench prints "1.5"; hail adds its own name and version.
std::string webbench_version_line(std::string_view hail_version);

}  // namespace hail
