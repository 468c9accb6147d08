// What a comparison of runs is about, before any statistics: the metrics and their default
// margins (--tolerance), whether two runs offered the same load, and whether the generator was
// healthy in each. Pure functions of saved results; any thread.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "analysis/compare_runs.h"
#include "analysis/generator_health.h"

namespace hail {

namespace {

std::string rate_text(const RunResult& r) {
  if (!r.rate_mode()) return "closed loop";
  std::string s = std::to_string(r.rate_target_per_s);
  s.erase(s.find_last_not_of('0') + 1);
  if (s.ends_with('.')) s.pop_back();
  return "rate " + s + " req/s";
}

std::string mix_text(const RunResult& r) {
  std::string s;
  for (const TagResult& t : r.tags) {
    if (t.name != "(other)") s += (s.empty() ? "" : ",") + t.name;
  }
  return s.empty() ? "no mix" : "mix " + s;
}

}  // namespace

std::vector<MetricDef> compare_metric_defs(bool with_open_loop) {
  // Default margins: central latency moves little between identical runs, tails and extremes
  // move more (fewer requests behind them), so their margins are wider.
  const auto histogram_defs = [](const std::string& prefix, MetricSource source) {
    return std::vector<MetricDef>{
        {prefix + "p50", source, 50, true, false, 0.05},
        {prefix + "p90", source, 90, true, false, 0.05},
        {prefix + "p99", source, 99, true, false, 0.10},
        {prefix + "p99.9", source, 99.9, true, false, 0.20},
        {prefix + "mean", source, kStatMean, true, false, 0.05},
        {prefix + "max", source, kStatMax, true, false, 0.50},
    };
  };
  std::vector<MetricDef> defs = histogram_defs("", MetricSource::kLatency);
  if (with_open_loop) {
    for (MetricDef& d : histogram_defs("service.", MetricSource::kService)) defs.push_back(d);
    // The scheduler's lag is microseconds of the generator's own timing: only gross changes of
    // it mean something, so its margin is wide.
    for (MetricDef& d : histogram_defs("lag.", MetricSource::kLag)) {
      d.default_tolerance = 1.0;
      defs.push_back(d);
    }
  }
  defs.push_back({"rps", MetricSource::kRps, 0, false, false, 0.03});
  defs.push_back({"error_rate", MetricSource::kErrorRate, 0, true, true, 0.001});
  return defs;
}

Result<std::map<std::string, double>> parse_tolerances(std::string_view text) {
  std::map<std::string, double> out;
  const std::vector<MetricDef> defs = compare_metric_defs(true);
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      return make_error("--tolerance: expected METRIC=MARGIN, got \"" + std::string(part) + "\"");
    }
    const std::string name(part.substr(0, eq));
    std::string_view value = part.substr(eq + 1);
    if (std::none_of(defs.begin(), defs.end(),
                     [&](const MetricDef& d) { return d.name == name; })) {
      std::string names;
      for (const MetricDef& d : defs) names += (names.empty() ? "" : " ") + d.name;
      return make_error("--tolerance: unknown metric \"" + name + "\" (one of: " + names + ")");
    }
    const bool percent = value.ends_with('%');
    if (percent) value.remove_suffix(1);
    double margin = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), margin);
    if (ec != std::errc() || end != value.data() + value.size() || value.empty() ||
        !std::isfinite(margin) || margin < 0) {
      return make_error("--tolerance: bad margin \"" + std::string(part.substr(eq + 1)) +
                        "\" for " + name + " (a percentage such as 5% or a fraction such as 0.05)");
    }
    out[name] = percent ? margin / 100 : margin;
  }
  if (out.empty()) return make_error("--tolerance needs METRIC=MARGIN[,...]");
  return out;
}

std::string load_difference(const RunResult& a, const RunResult& b) {
  const auto differs = [](const char* what, const std::string& va, const std::string& vb) {
    return va == vb ? std::string() : std::string(what) + " " + va + " vs " + vb;
  };
  const auto http = [](const RunResult& r) {
    return r.protocols.empty() ? (r.http_minor == 0 ? "http/1.0" : "http/1.1") : r.protocols.name();
  };
  const auto stages = [](const RunResult& r) {
    return r.steps.empty() ? std::string("none")
                           : std::to_string(r.steps.size()) + (r.ladder ? " ladder" : " stages");
  };
  for (std::string line : {
           differs("URL", a.url, b.url),
           differs("method", a.method, b.method),
           differs("load", rate_text(a), rate_text(b)),
           differs("connections", std::to_string(a.connections), std::to_string(b.connections)),
           differs("protocol", http(a), http(b)),
           differs("keep-alive", a.keep_alive ? "on" : "off", b.keep_alive ? "on" : "off"),
           differs("pipeline", std::to_string(a.pipeline), std::to_string(b.pipeline)),
           differs("streams", std::to_string(a.streams), std::to_string(b.streams)),
           differs("requests (-n)", std::to_string(a.requests_target),
                   std::to_string(b.requests_target)),
           differs("", mix_text(a), mix_text(b)),
           differs("stages", stages(a), stages(b)),
       }) {
    if (!line.empty()) return line.front() == ' ' ? line.substr(1) : line;
  }
  // Durations "within reason": a factor of 2 changes how much warm state a run reaches, not what
  // each request meets. The asked-for -d is compared, not the time measured: a run bounded by -n
  // takes longer on a slower server, which is the finding, not a different load.
  const auto da = static_cast<double>(a.duration_target_ns);
  const auto db = static_cast<double>(b.duration_target_ns);
  if (da > 0 && db > 0 && (da > 2 * db || db > 2 * da)) {
    const auto seconds = [](double ns) {
      std::string text = std::to_string(ns / 1e9);
      text.erase(text.find_last_not_of('0') + 1);
      if (text.ends_with('.')) text.pop_back();
      return text + " s";
    };
    return "duration " + seconds(da) + " vs " + seconds(db) + " (more than a factor of 2)";
  }
  return "";
}

std::vector<std::string> run_health_notes(const RunResult& run, const std::string& name) {
  std::vector<std::string> notes;
  const GeneratorHealth health = check_generator_health(run);
  std::string failed;
  for (const HealthCheck& check : health.checks) {
    if (check.applicable && !check.ok) failed += (failed.empty() ? "" : ", ") + check.name;
  }
  if (health.limited_by_hail) {
    notes.push_back(name + ": hail itself was the limit (generator health: " + failed +
                    "): its latencies include hail's own delays, so a difference may be the "
                    "machine's, not the server's");
  } else if (!failed.empty()) {
    notes.push_back(name + ": generator health checks failed (" + failed +
                    "): the load it offered was not the one asked for");
  }
  return notes;
}

}  // namespace hail
