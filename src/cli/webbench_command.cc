#include "cli/webbench_command.h"

#include <cstdio>

#include "cli/run_command.h"
#include "cli/verdict_flags.h"
#include "cli/webbench_flags.h"
#include "net/connect_probe.h"
#include "report/webbench_report.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

namespace {

// webbench's message when its check connection fails (after the banner, on stderr).
constexpr const char* kConnectFailed = "\nConnect to server failed. Aborting benchmark.\n";
// webbench's check has no bound but its connect's; hail's gives up after this.
constexpr uint64_t kProbeTimeoutNs = 10'000'000'000;

WebbenchBannerInfo banner_info(const WebbenchCommand& cmd) {
  WebbenchBannerInfo info;
  info.method = cmd.method;
  info.url = cmd.url_text;
  info.http_level = cmd.http_level;
  info.clients = cmd.clients;
  info.seconds = cmd.seconds;
  info.force = cmd.force;
  info.proxy = cmd.proxy;
  info.proxy_host = cmd.proxy_host;
  info.proxy_port = cmd.proxy_port;
  info.reload = cmd.reload;
  return info;
}

}  // namespace

int run_webbench_command(const std::vector<std::string>& args) {
  const WebbenchParse parse = parse_webbench_flags(args);
  if (parse.show_version) {
    std::fputs(webbench_version_line(HAIL_VERSION_STRING).c_str(), stdout);
    return parse.exit_status;
  }
  if (!parse.ok) {
    // webbench prints its copyright lines before it looks at the URL, so before a URL error too.
    if (parse.copyright_first) std::fputs(render_webbench_copyright().c_str(), stderr);
    std::fputs(parse.message.c_str(), stderr);
    if (parse.show_usage) std::fputs(webbench_usage().c_str(), stderr);
    return parse.exit_status;
  }
  std::fputs(render_webbench_copyright().c_str(), stderr);

  const WebbenchCommand& cmd = parse.command;
  // webbench prints its banner, then checks with one connection that the target (or the proxy)
  // answers; the banner therefore goes out here rather than through OutputOptions::banner, which
  // run_and_report prints after any check could be made.
  std::fputs(render_webbench_banner(banner_info(cmd)).c_str(), stdout);
  std::fflush(stdout);
  if (!cmd.connect_problem.empty()) {
    std::fprintf(stderr, "%shail: %s\n", kConnectFailed, cmd.connect_problem.c_str());
    return kWebbenchExitConnect;
  }
  const ProbeOutcome probe = probe_tcp(cmd.run.url.host, cmd.run.url.port, kProbeTimeoutNs);
  if (!probe.reachable) {
    std::fputs(kConnectFailed, stderr);
    return kWebbenchExitConnect;
  }

  OutputOptions output;
  const int64_t seconds = cmd.seconds;
  output.render_text = followed_by_verdicts(
      [seconds](const RunResult& r) { return render_webbench_report(r, seconds); });
  add_verdict_outputs(cmd.verdict, output);
  // run_and_report's statuses are webbench's: 0 after a run, 1 when nothing could be done (and
  // hail's 98/99 with --slo).
  return run_and_report(cmd.run, output);
}

}  // namespace hail
