#include "cli/run_command.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "analysis/run_verdicts.h"
#include "cli/live_metrics.h"
#include "cli/machine_probe.h"
#include "cli/slo_watch.h"
#include "core/clock.h"
#include "load/collectors.h"
#include "load/live_run.h"
#include "load/runner.h"
#include "load/script_run.h"
#include "report/text_report.h"

namespace hail {

bool stop_signal_pending() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  timespec zero{0, 0};
  return sigtimedwait(&set, nullptr, &zero) > 0;
}

void block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int exit_status_for(const RunResult& result) {
  const Counters& c = result.counters;
  if (c.connections_opened == 0 && c.completed == 0) return kExitCouldNotRun;
  if (result.server_gone) return kExitCouldNotRun;
  if (result.slo.empty()) return kExitOk;
  const RunVerdicts verdicts = judge_run(result);
  // A generator that could not keep up makes a pass as doubtful as a failure: the server was not
  // offered the load the thresholds were meant for.
  if (verdicts.health.limited_by_hail) return kExitGeneratorLimited;
  return verdicts.slo_ok() ? kExitOk : kExitSloFailed;
}

namespace {
// An output file is opened before the run, so that a bad path fails in a second, not after it. It
// is opened for appending and emptied only when the report is written: a run that never happens
// (a typo in the host, too many connections) leaves an earlier report in place, and removes the
// file again if it did not exist before.
struct OutputFile {
  std::string path;
  std::ofstream out;
  bool created = false;
};

bool open_output(const std::string& path, const char* flag, OutputFile& file) {
  file.path = path;
  struct stat st {};
  file.created = stat(path.c_str(), &st) != 0;
  errno = 0;
  file.out.open(path, std::ios::binary | std::ios::app);
  if (file.out) return true;
  const int err = errno;
  std::fprintf(stderr, "hail: cannot write %s file \"%s\"%s%s\n", flag, path.c_str(),
               err != 0 ? ": " : "", err != 0 ? std::strerror(err) : "");
  return false;
}

// The run did not happen: leave the file as it was.
void discard_output(OutputFile& file) {
  if (!file.out.is_open()) return;
  file.out.close();
  if (file.created) std::remove(file.path.c_str());
}

// With --json - the JSON document owns stdout: what a script prints (print, io.write go to the C
// library's stdout, as in wrk) is sent to stderr instead, by pointing descriptor 1 at stderr
// except while the report is written.
class ScriptStdout {
 public:
  explicit ScriptStdout(bool divert) {
    if (!divert) return;
    std::fflush(stdout);
    saved_fd_ = dup(STDOUT_FILENO);
    if (saved_fd_ >= 0) dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~ScriptStdout() { restore(); }
  void restore() {
    if (saved_fd_ < 0) return;
    std::fflush(stdout);
    dup2(saved_fd_, STDOUT_FILENO);
    close(saved_fd_);
    saved_fd_ = -1;
  }
  // Writes `text` to the real stdout, then diverts again.
  void write_real(const std::string& text) {
    if (saved_fd_ < 0) {
      std::fputs(text.c_str(), stdout);
      return;
    }
    std::fflush(stdout);
    dup2(saved_fd_, STDOUT_FILENO);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    dup2(STDERR_FILENO, STDOUT_FILENO);
  }

 private:
  int saved_fd_ = -1;
};

bool write_output(OutputFile& file, const std::string& text, const char* flag) {
  std::error_code ec;
  // Appending from here writes from the start. Not for a device or a pipe (--json /dev/stdout).
  if (std::filesystem::is_regular_file(file.path, ec)) {
    std::filesystem::resize_file(file.path, 0, ec);
  } else {
    ec.clear();
  }
  if (!ec) {
    file.out << text;
    file.out.close();
  }
  if (!ec && file.out) return true;
  std::fprintf(stderr, "hail: cannot write %s file \"%s\"\n", flag, file.path.c_str());
  return false;
}

// Every output file opened, in order; false (and none left behind) when one cannot be.
bool open_outputs(const std::vector<Output>& outputs, std::vector<OutputFile>& files) {
  files.resize(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (open_output(outputs[i].path, outputs[i].flag, files[i])) continue;
    for (OutputFile& file : files) discard_output(file);
    return false;
  }
  return true;
}

// The live progress line on stderr, at most once a second.
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}

  void update(const RunProgress& p) {
    if (!enabled_ || p.elapsed_ns - last_print_ns_ < kNsPerSec) return;
    const double measured_s =
        p.elapsed_ns > p.warmup_ns ? static_cast<double>(p.elapsed_ns - p.warmup_ns) / 1e9 : 0.0;
    const double rate = measured_s > 0 ? static_cast<double>(p.completed) / measured_s : 0.0;
    std::fprintf(stderr, "\r\033[K[%6.1fs%s] %llu requests, %.0f req/s, %llu errors",
                 static_cast<double>(p.elapsed_ns) / 1e9,
                 p.elapsed_ns < p.warmup_ns ? " warm-up" : "",
                 static_cast<unsigned long long>(p.completed), rate,
                 static_cast<unsigned long long>(p.errors));
    std::fflush(stderr);
    last_print_ns_ = p.elapsed_ns;
    printed_ = true;
  }

  // Erases the line, if one was printed, before the report.
  void clear() {
    if (printed_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool enabled_;
  uint64_t last_print_ns_ = 0;
  bool printed_ = false;
};

// A script's done() sees each thread's request rates: the front-end's collector of them, or one of
// its own.
std::shared_ptr<RateSampleCollectors> rate_samples_for_script(RunOptions& options) {
  for (const auto& c : options.collectors) {
    if (auto rates = std::dynamic_pointer_cast<RateSampleCollectors>(c)) return rates;
  }
  auto rates = std::make_shared<RateSampleCollectors>();
  options.collectors.push_back(rates);
  return rates;
}

// After a run: the report on stdout, the output files in order, the script's done(), and the exit
// status.
int report_run(const RunOptions& options, const OutputOptions& output, const RunResult& r,
               ScriptRun* script, const Histogram* rate_samples, ScriptStdout& script_stdout,
               std::vector<OutputFile>& files) {
  script_stdout.write_real(output.render_text ? output.render_text(r) : render_text_report(r));
  for (size_t i = 0; i < files.size(); ++i) {
    const Output& o = output.files[i];
    if (!write_output(files[i], o.render(r), o.flag)) return kExitCouldNotRun;
  }
  // wrk prints what done() writes after its report.
  if (script != nullptr) {
    std::fflush(stdout);
    if (Status st = script->done(r, *rate_samples); !st) {
      std::fprintf(stderr, "hail: script error: %s\n", st.error().message.c_str());
      return kExitCouldNotRun;
    }
  }
  std::fflush(stdout);
  if (!r.script_error.empty()) {
    std::fprintf(stderr, "hail: script error: %s\n", r.script_error.c_str());
    return kExitCouldNotRun;
  }
  const int status = exit_status_for(r);
  if (status == kExitCouldNotRun) {
    std::string reason;
    for (const ErrorReasonCount& why : r.error_reasons) {
      if (why.error_class == ErrorClass::kConnect) {
        reason = why.reason;
        break;
      }
    }
    std::fprintf(stderr, "hail: could not connect to %s%s%s\n", options.url.authority().c_str(),
                 reason.empty() ? "" : ": ", reason.c_str());
  }
  return status;
}

// --metrics-listen: the server and what it shows, fed from the supervising loop.
struct MetricsFeed {
  std::unique_ptr<MetricsServer> server;
  LiveMetrics metrics;
};

// After the report: hail_up 0 is served for --metrics-linger (SIGINT/SIGTERM end it early).
void linger(const OutputOptions& output) {
  const uint64_t until_ns = mono_now_ns() + output.metrics_linger_ns;
  while (mono_now_ns() < until_ns) {
    if (stop_signal_pending()) return;
    const uint64_t left_ns = until_ns - mono_now_ns();
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min(left_ns, 100 * kNsPerMs)));
  }
}

Result<RunResult> run_supervised(const RunOptions& options, const OutputOptions& output,
                                 const TickFn& tick, std::unique_ptr<ScriptRun>* script,
                                 MetricsFeed* feed) {
  auto live = LiveRun::start(options);
  if (!live) return live.error();
  SloWatch watch(output.slo_abort ? output.slo : std::vector<std::string>{});
  std::string abort_reason;
  while (!(*live)->poll(tick)) {
    if (abort_reason.empty()) {
      if (auto why = watch.check((*live)->intervals(), (*live)->workers())) {
        abort_reason = *why;
        (*live)->stop();
      }
    }
    if (feed != nullptr) {
      feed->metrics.update(**live);
      feed->server->publish(feed->metrics.snapshot());
    }
    std::this_thread::sleep_for(std::chrono::nanoseconds((*live)->sleep_ns()));
  }
  RunResult result = (*live)->finish(script);
  result.slo = output.slo;
  result.slo_abort = abort_reason;
  result.machines = {probe_machine()};
  if (feed != nullptr) {
    feed->metrics.finish(result);
    feed->server->publish(feed->metrics.snapshot());
  }
  return result;
}

}  // namespace

int run_and_report(const RunOptions& given, const OutputOptions& output) {
  RunOptions options = given;
  std::shared_ptr<RateSampleCollectors> rates;
  if (!options.script_path.empty() || options.wrk_requests)
    rates = rate_samples_for_script(options);
  std::vector<OutputFile> files;
  if (!open_outputs(output.files, files)) return kExitCouldNotRun;
  block_stop_signals();
  if (!output.banner.empty()) {
    std::fputs(output.banner.c_str(), stdout);
    std::fflush(stdout);
  }
  ProgressLine progress(output.progress && isatty(STDERR_FILENO));
  auto tick = [&progress](const RunProgress& p) {
    if (stop_signal_pending()) return true;
    progress.update(p);
    return false;
  };
  std::unique_ptr<MetricsFeed> feed;
  if (output.metrics_listen) {
    LiveMetrics metrics(options);
    auto server = MetricsServer::start(*output.metrics_listen, metrics.snapshot());
    if (!server) {
      for (OutputFile& file : files) discard_output(file);
      std::fprintf(stderr, "hail: %s\n", server.error().message.c_str());
      return kExitCouldNotRun;
    }
    feed = std::make_unique<MetricsFeed>(MetricsFeed{std::move(server.value()), metrics});
    std::fprintf(stderr, "hail: metrics on %s\n", feed->server->url().c_str());
    std::fflush(stderr);
  }
  ScriptStdout script_stdout(!options.script_path.empty() && output.stdout_is_data);
  std::unique_ptr<ScriptRun> script;
  auto result = run_supervised(options, output, tick, &script, feed.get());
  progress.clear();
  if (!result) {
    for (OutputFile& file : files) discard_output(file);
    std::fprintf(stderr, "hail: %s\n", result.error().message.c_str());
    return kExitCouldNotRun;
  }
  const int status = report_run(options, output, result.value(), script.get(),
                                rates ? &rates->samples() : nullptr, script_stdout, files);
  if (feed) {
    std::fflush(stdout);
    linger(output);
  }
  return status;
}

Result<RunResult> run_judged(const RunOptions& options, const OutputOptions& output,
                             const TickFn& tick, std::unique_ptr<ScriptRun>* script) {
  return run_supervised(options, output, tick, script, nullptr);
}

}  // namespace hail
