#include "cli/wrk_command.h"

#include <netdb.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "cli/run_command.h"
#include "cli/verdict_flags.h"
#include "cli/wrk_flags.h"
#include "load/collectors.h"
#include "net/connect_probe.h"
#include "report/wrk_report.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

namespace {

// wrk resolves the host and test-connects to its addresses before printing anything, and stops
// with exit 1 when none answers. Doing the same keeps the output (no banner before the error) and
// the server's connection count (one probe) as wrk's. wrk2 does the same, with the same messages.
bool target_reachable(const RunOptions& run) {
  const Url& url = run.url;
  const uint16_t default_port = url.scheme == "https" ? 443 : 80;
  // wrk names the port as typed, or the scheme when there is none.
  const std::string service = url.port != default_port ? std::to_string(url.port) : url.scheme;
  const ProbeOutcome probe = probe_tcp(url.host, url.port, run.timeout_ns);
  if (probe.resolve_error != 0) {
    std::fprintf(stderr, "unable to resolve %s:%s %s\n", url.host.c_str(), service.c_str(),
                 gai_strerror(probe.resolve_error));
  } else if (!probe.reachable) {
    std::fprintf(stderr, "unable to connect to %s:%s %s\n", url.host.c_str(), service.c_str(),
                 std::strerror(probe.connect_errno));
  }
  return probe.reachable;
}

// What wrk and wrk2 print before the run: version lines, usage errors, ignored headers, and the
// probe. Returns the exit status when the run must not start.
std::optional<int> before_run(const WrkParse& parse, bool wrk2) {
  const std::string version =
      wrk2 ? wrk2_version_line(HAIL_VERSION_STRING) : wrk_version_line(HAIL_VERSION_STRING);
  for (int i = 0; i < parse.version_lines; ++i) std::fputs(version.c_str(), stdout);
  if (!parse.ok) {
    if (!parse.message.empty()) {
      // wrk2 installs itself as "wrk": getopt's messages name that program in both.
      std::fprintf(stderr, "%s%s\n", parse.message_has_program ? "wrk: " : "",
                   parse.message.c_str());
    }
    if (parse.show_usage) std::fputs((wrk2 ? wrk2_usage() : wrk_usage()).c_str(), stdout);
    return parse.hail_usage ? kExitUsage : kExitCouldNotRun;
  }
  for (const std::string& header : parse.command.dropped_headers) {
    std::fprintf(stderr, "hail: -H \"%s\" ignored, as wrk ignores it (expected \"Name: value\")\n",
                 header.c_str());
  }
  std::fflush(stdout);
  if (!target_reachable(parse.command.run)) return kExitCouldNotRun;
  return std::nullopt;
}

// The run itself, the same in both but for the banner and the report.
int run_wrk_or_wrk2(const WrkParse& parse, bool wrk2) {
  if (const std::optional<int> status = before_run(parse, wrk2)) return *status;
  const WrkCommand& cmd = parse.command;
  OutputOptions output;
  output.banner = (wrk2 ? render_wrk2_banner : render_wrk_banner)(cmd.run.duration_ns, cmd.url_text,
                                                                  cmd.threads, cmd.connections);
  const bool latency = cmd.latency_distribution;
  const bool uncorrected = cmd.uncorrected_distribution;
  // wrk's Req/Sec row: each thread's requests/s per 100 ms.
  auto rates = std::make_shared<RateSampleCollectors>();
  RunOptions run = cmd.run;
  run.collectors.push_back(rates);
  output.render_text =
      followed_by_verdicts([wrk2, latency, uncorrected, rates](const RunResult& r) {
        return wrk2 ? render_wrk2_report(r, rates->samples(), latency, uncorrected)
                    : render_wrk_report(r, rates->samples(), latency);
      });
  add_verdict_outputs(cmd.verdict, output);
  return run_and_report(run, output);
}

}  // namespace

int run_wrk_command(const std::vector<std::string>& args) {
  return run_wrk_or_wrk2(parse_wrk_flags(args), false);
}

int run_wrk2_command(const std::vector<std::string>& args) {
  return run_wrk_or_wrk2(parse_wrk2_flags(args), true);
}

}  // namespace hail
