#include "cli/ab_command.h"

#include <netdb.h>
#include <signal.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "cli/ab_flags.h"
#include "cli/ab_tls_probe.h"
#include "cli/run_command.h"
#include "cli/verdict_flags.h"
#include "load/runner.h"
#include "report/ab_report.h"
#include "report/verdict_report.h"

namespace hail {

namespace {

// APR numbers getaddrinfo's errors from here (apr_errno.h: APR_OS_START_EAIERR).
constexpr int kAprEaiErrorBase = 670000;
// APR_TIMEUP: what ab's poll reports when no socket moved for -s seconds.
constexpr int kAprTimeUp = 70007;

// ab exits with an APR status; the shell sees its low byte.
int exit_code(int apr_status) {
  return apr_status & 0xff;
}

// ab resolves its target (or proxy) after printing its banner, and stops with APR's message and
// status. Returns 0 when the name resolves, else the exit status.
int resolve_status(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc == 0) {
    freeaddrinfo(found);
    return 0;
  }
  const int status = kAprEaiErrorBase + (rc < 0 ? -rc : rc);
  std::fprintf(stderr, "apr_sockaddr_info_get() for %s: %s (%d)\n", host.c_str(), gai_strerror(rc),
               status);
  return exit_code(status) != 0 ? exit_code(status) : 1;
}

// hail could never connect: ab's message for the same failure, and its status. hail's reason is
// strerror's text ("Connection refused") with its errno; ab reports it from its receive call.
int report_unreachable(const RunResult& r) {
  for (const ErrorReasonCount& why : r.error_reasons) {
    if (why.error_class != ErrorClass::kConnect) continue;
    const std::string& reason = why.reason;
    // A connect that never completes leaves ab's poll without events until -s expires.
    if (why.errno_value == ETIMEDOUT || reason.find("time") != std::string::npos) {
      std::fprintf(stderr, "apr_pollset_poll: The timeout specified has expired (%d)\n",
                   kAprTimeUp);
      return exit_code(kAprTimeUp);
    }
    if (why.errno_value != 0) {
      std::fprintf(stderr, "apr_socket_recv: %s (%d)\n", reason.c_str(), why.errno_value);
      return exit_code(why.errno_value);
    }
    std::fprintf(stderr, "apr_socket_connect(): %s\n", reason.c_str());
    return 1;
  }
  std::fprintf(stderr, "apr_socket_connect(): no connection could be opened\n");
  return 1;
}

// ab's "Completed N requests" lines: one each time the count of finished requests reaches a
// multiple of the heartbeat.
class Heartbeat {
 public:
  explicit Heartbeat(int every) : every_(every > 0 ? static_cast<uint64_t>(every) : 0) {}
  void advance(uint64_t done) {
    if (every_ == 0) return;
    bool printed = false;
    while (next_ <= done) {
      std::fprintf(stderr, "Completed %llu requests\n", static_cast<unsigned long long>(next_));
      next_ += every_;
      printed = true;
    }
    if (printed) std::fflush(stderr);
  }

 private:
  uint64_t every_;
  uint64_t next_ = every_;
};

// ab's files are opened after the report; a path it cannot open ends it with perror's line.
bool write_file(const std::string& path, const std::string& text, const char* what) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (out) out.close();
  if (out) return true;
  const int err = errno != 0 ? errno : EIO;
  std::fprintf(stderr, "Cannot open %s output file: %s\n", what, std::strerror(err));
  return false;
}

AbReportOptions report_options(const AbCommand& cmd) {
  AbReportOptions o;
  o.hostname = cmd.hostname;
  o.port = cmd.port;
  o.path = cmd.path;
  o.concurrency = cmd.concurrency;
  o.keep_alive = cmd.keep_alive;
  o.variable_length = cmd.variable_length;
  o.percentiles = cmd.percentiles;
  o.confidence = cmd.confidence;
  o.send_body = cmd.send_body;
  if (cmd.tls) o.tls_server_name = cmd.tls_sni;
  return o;
}

// ab's header and "Benchmarking" line (the HTML form has no "Benchmarking" line).
void print_banner(const AbCommand& cmd) {
  if (cmd.html) {
    std::fputs(render_ab_html_copyright().c_str(), stdout);
  } else {
    std::fputs(render_ab_copyright().c_str(), stdout);
    std::fputs(render_ab_benchmarking(cmd.hostname, cmd.proxy ? cmd.proxy_host : "", cmd.proxy_port,
                                      cmd.heartbeat > 0)
                   .c_str(),
               stdout);
  }
  std::fflush(stdout);
}

// hail's --slo on ab's command line (the threshold table follows ab's text report): the JUnit
// file, and hail's exit status for thresholds where ab's own would be 0.
int judge(const AbCommand& cmd, const RunResult& r, int status) {
  if (r.slo.empty()) return status;
  if (!cmd.verdict.junit_path.empty() &&
      !write_file(cmd.verdict.junit_path, render_junit(r), "JUnit")) {
    return 1;
  }
  return status != 0 ? status : exit_status_for(r);
}

// After the run: ab's closing progress line, its report, then its -e / -g files (opened after the
// report; ab writes none with HTML output). Returns ab's exit status.
int report_run(const AbCommand& cmd, const RunResult& r, Heartbeat& heartbeat) {
  heartbeat.advance(r.counters.completed);
  if (!r.interrupted) {
    if (cmd.heartbeat > 0) {
      std::fprintf(stderr, "Finished %llu requests\n",
                   static_cast<unsigned long long>(r.counters.completed));
      std::fflush(stderr);
    } else {
      std::fputs(std::string(kAbDone).c_str(), stdout);
    }
  }
  const AbRun ab_run{r, cmd.request_log->log(), cmd.first_response->server_software(),
                     cmd.first_response->document_length()};
  const std::vector<AbSample> samples = ab_samples(ab_run.request_log);
  AbReportOptions options = report_options(cmd);
  if (cmd.tls) {
    const AbTlsFacts facts = probe_ab_tls_facts(cmd.run, r);
    options.ssl_protocol = facts.protocol;
    options.server_temp_key = facts.temp_key;
  }
  // ab's SIGINT handler prints the report of what was done, then exits 1.
  const int status = r.interrupted ? 1 : 0;
  if (cmd.html) {
    std::fputs(render_ab_html_report(ab_run, samples, options, cmd.html_attributes).c_str(),
               stdout);
    std::fflush(stdout);
    return judge(cmd, r, status);
  }
  std::fputs(render_ab_report(ab_run, samples, options).c_str(), stdout);
  std::fputs(verdicts_text(r).c_str(), stdout);
  std::fflush(stdout);
  if (samples.empty()) return judge(cmd, r, status);
  const Output files[] = {
      {cmd.csv_path, "CSV", [&samples](const RunResult&) { return render_ab_csv(samples); }},
      {cmd.gnuplot_path, "gnuplot",
       [&samples](const RunResult&) { return render_ab_gnuplot(samples); }},
  };
  for (const Output& file : files) {
    if (!file.path.empty() && !write_file(file.path, file.render(r), file.flag)) return 1;
  }
  return judge(cmd, r, status);
}

}  // namespace

int run_ab_command(const std::vector<std::string>& args, std::string_view program) {
  AbParse parse = parse_ab_flags(args, program);
  if (parse.outcome == AbParse::Outcome::kExit) {
    std::fputs(parse.out.c_str(), stdout);
    std::fflush(stdout);
    std::fputs(parse.err.c_str(), stderr);
    return parse.exit_status;
  }
  const AbCommand& cmd = parse.command;
  for (const std::string& note : cmd.notes) std::fprintf(stderr, "hail: %s\n", note.c_str());
  block_stop_signals();
  print_banner(cmd);
  if (parse.outcome == AbParse::Outcome::kFailRun) {
    std::fputs(parse.err.c_str(), stderr);
    return parse.exit_status;
  }
  if (cmd.verbosity >= 2) {
    std::fputs(render_ab_request_info(cmd.run.request.method, cmd.request_head).c_str(), stdout);
    std::fflush(stdout);
  }
  if (int status = resolve_status(cmd.proxy ? cmd.proxy_host : cmd.hostname,
                                  cmd.proxy ? static_cast<uint16_t>(cmd.proxy_port) : cmd.port);
      status != 0) {
    return status;
  }
  Heartbeat heartbeat(cmd.heartbeat);
  auto tick = [&heartbeat](const RunProgress& p) {
    if (stop_signal_pending()) return true;
    heartbeat.advance(p.completed);
    return false;
  };
  OutputOptions judged;
  add_verdict_outputs(cmd.verdict, judged);
  auto result = run_judged(cmd.run, judged, tick);
  if (!result) {
    std::fprintf(stderr, "hail: %s\n", result.error().message.c_str());
    return 1;
  }
  const RunResult& r = result.value();
  if (r.counters.connections_opened == 0 && r.counters.completed == 0 && !r.interrupted) {
    return report_unreachable(r);
  }
  return report_run(cmd, r, heartbeat);
}

}  // namespace hail
