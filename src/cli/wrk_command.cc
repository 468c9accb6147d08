#include "cli/wrk_command.h"

#include <netdb.h>

#include <cstdio>
#include <cstring>
#include <memory>

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
// the server's connection count (one probe) as wrk's.
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

}  // namespace

int run_wrk_command(const std::vector<std::string>& args) {
  const WrkParse parse = parse_wrk_flags(args);
  for (int i = 0; i < parse.version_lines; ++i) {
    std::fputs(wrk_version_line(HAIL_VERSION_STRING).c_str(), stdout);
  }
  if (!parse.ok) {
    if (!parse.message.empty()) {
      std::fprintf(stderr, "%s%s\n", parse.message_has_program ? "wrk: " : "",
                   parse.message.c_str());
    }
    if (parse.show_usage) std::fputs(wrk_usage().c_str(), stdout);
    return parse.hail_usage ? kExitUsage : kExitCouldNotRun;
  }
  const WrkCommand& cmd = parse.command;
  for (const std::string& header : cmd.dropped_headers) {
    std::fprintf(stderr, "hail: -H \"%s\" ignored, as wrk ignores it (expected \"Name: value\")\n",
                 header.c_str());
  }
  std::fflush(stdout);
  if (!target_reachable(cmd.run)) return kExitCouldNotRun;

  OutputOptions output;
  output.banner =
      render_wrk_banner(cmd.run.duration_ns, cmd.url_text, cmd.threads, cmd.connections);
  const bool latency = cmd.latency_distribution;
  // wrk's Req/Sec row: each thread's requests/s per 100 ms.
  auto rates = std::make_shared<RateSampleCollectors>();
  RunOptions run = cmd.run;
  run.collectors.push_back(rates);
  output.render_text = followed_by_verdicts([latency, rates](const RunResult& r) {
    return render_wrk_report(r, rates->samples(), latency);
  });
  add_verdict_outputs(cmd.verdict, output);
  return run_and_report(run, output);
}

}  // namespace hail
