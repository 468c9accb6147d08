#include "cli/native_flags.h"

#include <utility>

#include "cli/monitor_sampler.h"
#include "cli/native_table.h"
#include "core/clock.h"
#include "core/url.h"
#include "load/run_plan.h"
#include "load/shard.h"
#include "load/url_mix.h"
#include "report/hlog_writer.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "report/timeseries_writer.h"

namespace hail {

namespace {

// --urls FILE (and --mix): the weighted request lines; without a URL argument, the first line's
// URL stands for the run in reports (its paths must then all be absolute URLs). The rules that
// decide whether the file is read at all come first.
Status apply_urls_file(NativeState& s, bool have_url) {
  RunOptions& run = s.cmd.run;
  if (s.urls_path.empty()) {
    if (s.mix_given) return make_error("--mix needs --urls FILE");
    return ok_status();
  }
  if (!run.script_path.empty()) {
    return make_error("--urls and -s given together: a script makes its own requests; use one");
  }
  auto lines = read_url_mix_file(s.urls_path, have_url ? &run.url : nullptr);
  if (!lines) return lines.error();
  run.mix = std::move(lines.value());
  if (!have_url) run.url = run.mix.front().url;
  return ok_status();
}

// The words that are not flags: one URL (or none with --urls), and a script's arguments after --.
Status apply_words(NativeState& s, const ParsedArgs& parsed) {
  RunOptions& run = s.cmd.run;
  if (!parsed.after_dashes.empty() && run.script_path.empty()) {
    return make_error("unexpected arguments after --: \"" + parsed.after_dashes[0] +
                      "\" (words after -- are a script's arguments: give -s FILE)");
  }
  run.script_args = parsed.after_dashes;
  if (parsed.positionals.empty() && s.urls_path.empty()) {
    return make_error("missing URL (try hail --help)");
  }
  if (parsed.positionals.size() > 1) {
    return make_error("unexpected argument \"" + parsed.positionals[1] +
                      "\" (exactly one URL; options go before or after it)");
  }
  if (!parsed.positionals.empty()) {
    auto url = parse_url(parsed.positionals[0]);
    if (!url) return url.error();
    run.url = url.value();
    run.url_text = parsed.positionals[0];
  }
  return apply_urls_file(s, !parsed.positionals.empty());
}

// "{shard}" in an output file name becomes the shard's index: one command line for every shard
// of a launcher (mpirun, srun, an Indexed Job) still gives each its own file.
void name_shard_file(std::string& path, uint32_t index) {
  static constexpr std::string_view kPlaceholder = "{shard}";
  for (size_t at = path.find(kPlaceholder); at != std::string::npos;
       at = path.find(kPlaceholder, at)) {
    const std::string number = std::to_string(index);
    path.replace(at, kPlaceholder.size(), number);
    at += number.size();
  }
}

// The launcher's shard unless --shard said otherwise, --start-at read against the environment
// (its +DURATION reference), and {shard} in output file names.
Status apply_scale_out(NativeState& s) {
  RunOptions& run = s.cmd.run;
  const EnvLookup env = process_env();
  if (!s.shard_given) {
    auto detected = detect_shard(env, s.shards);
    if (!detected) return detected.error();
    if (detected.value()) {
      run.shard = *detected.value();
    } else if (s.shards != 0) {
      return make_error(
          "--shards N counts the shards of a Kubernetes Indexed Job, but JOB_COMPLETION_INDEX "
          "is not set: give --shard I/N");
    }
  }
  if (!s.start_at.empty()) {
    auto at = parse_start_at(s.start_at, env);
    if (!at) return at.error();
    // Connections wait open until then: a day ahead is a typo (a year, a time zone), not a plan.
    constexpr uint64_t kMaxAheadNs = 24ull * 3600 * kNsPerSec;
    if (at.value() > unix_now_ns() + kMaxAheadNs) {
      return make_error("--start-at " + quote(s.start_at) +
                        " is more than 24 hours ahead (check the date and the time zone)");
    }
    run.start_at_unix_ns = at.value();
  }
  NativeCommand& cmd = s.cmd;
  for (std::string* path : {&cmd.json_path, &cmd.html_path, &cmd.timeseries_path, &cmd.hlog_path,
                            &cmd.verdict.junit_path}) {
    name_shard_file(*path, run.shard.index);
  }
  return ok_status();
}

}  // namespace

Result<NativeCommand> parse_native_flags(const std::vector<std::string>& args) {
  const std::span<const NativeFlag> table = native_flag_table();
  auto parsed = parse_args(flag_specs(table), args);
  if (!parsed) return parsed.error();
  NativeState s;
  for (const ParsedFlag& f : parsed->flags) {
    if (Status st = table[static_cast<size_t>(f.id)].apply(s, f); !st) return st.error();
  }
  NativeCommand& cmd = s.cmd;
  if (cmd.show_help || cmd.show_version) return cmd;
  if (Status st = apply_words(s, parsed.value()); !st) return st.error();
  cmd.run.request.path = cmd.run.url.path;
  cmd.run.request.authority = cmd.run.url.authority();
  // Thresholds judged over windows (over, for, first breaches, --slo-abort) need the series.
  s.given.keep_series = s.interval_given || !cmd.timeseries_path.empty() ||
                        !cmd.json_path.empty() || !cmd.html_path.empty() ||
                        !cmd.verdict.slo.empty() || !s.monitors.empty() ||
                        cmd.metrics_listen.has_value();
  if (s.metrics_linger_given && !cmd.metrics_listen) {
    return make_error("--metrics-linger needs --metrics-listen ADDR:PORT");
  }
  if (Status st = apply_scale_out(s); !st) return st.error();
  if (Status st = check_verdict_flags(cmd.verdict); !st) return st.error();
  if (Status st = validate(cmd.run, s.given); !st) return st.error();
  if (Status st = check_shard_split(cmd.run); !st) return st.error();
  if (!s.monitor_metrics.empty() && s.monitors.empty()) {
    return make_error("--monitor-metric needs a --monitor prom:URL");
  }
  if (!s.monitors.empty()) {
    // Checked now: a pid that does not exist refuses the run before any load is sent.
    auto sampler = make_monitor_sampler(s.monitors, s.monitor_metrics, s.given.interval_ns);
    if (!sampler) return sampler.error();
    cmd.run.sampler = std::move(sampler.value());
  }
  return cmd;
}

OutputOptions native_outputs(const NativeCommand& cmd) {
  OutputOptions output;
  output.progress = !cmd.quiet;
  if (cmd.json_path == "-") {
    output.render_text = render_json_report;
    output.stdout_is_data = true;
  } else if (!cmd.json_path.empty()) {
    output.files.push_back({cmd.json_path, "--json", render_json_report});
  }
  if (!cmd.timeseries_path.empty()) {
    auto format = timeseries_format_for_path(cmd.timeseries_path);
    const bool csv = format && *format == TimeseriesFormat::kCsv;
    output.files.push_back({cmd.timeseries_path, "--timeseries",
                            csv ? render_timeseries_csv : render_timeseries_jsonl});
  }
  if (!cmd.html_path.empty()) {
    output.files.push_back({cmd.html_path, "--html", render_html_report});
  }
  if (!cmd.hlog_path.empty()) output.files.push_back({cmd.hlog_path, "--hlog", render_hlog});
  add_verdict_outputs(cmd.verdict, output);
  output.metrics_listen = cmd.metrics_listen;
  output.metrics_linger_ns = cmd.metrics_linger_ns;
  return output;
}

}  // namespace hail
