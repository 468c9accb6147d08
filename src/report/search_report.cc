#include "report/search_report.h"

#include "core/strings.h"
#include "core/units.h"
#include "report/json_machine.h"
#include "report/json_writer.h"

namespace hail {

namespace {

std::string dur(uint64_t ns) {
  return format_duration_ns(static_cast<double>(ns));
}

const char* unit(const SearchContext& c) {
  return c.by_connections ? "connections" : "req/s";
}

std::string level(const SearchContext& c, double v) {
  return c.by_connections ? string_printf("%.0f", v) : string_printf("%.1f", v);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string limit_text(const SearchContext& c, const SearchVerdict& v) {
  switch (v.limited_by) {
    case SearchLimit::kServer:
      return "the server: " + v.limit_reason + " at " + level(c, v.upper) + " " + unit(c);
    case SearchLimit::kHail:
      return string_printf("hail, at %.1f req/s: ", v.hail_limit) + v.limit_reason +
             " (the server's capacity is higher than hail can measure here)";
    case SearchLimit::kMaxLevel:
      return c.by_connections ? "--max-connections (every level up to it passed)"
                              : "--max (every rate up to it passed)";
    case SearchLimit::kBudget:
      return "the --budget ran out" + (v.limit_reason.empty() ? "" : ": " + v.limit_reason);
    case SearchLimit::kNone:
      break;
  }
  return c.interrupted ? "interrupted" : "-";
}

}  // namespace

std::string render_search_header(const SearchContext& c) {
  std::string out = "hail " + c.version + ": search @ " + c.url + "\n";
  if (c.by_connections) {
    out += string_printf("  %u thread%s, closed loop, the level is the number of connections\n",
                         c.threads, c.threads == 1 ? "" : "s");
  } else {
    out += string_printf(
        "  %u thread%s, open loop (latency from each planned send), %u connections, up to %u\n",
        c.threads, c.threads == 1 ? "" : "s", c.connections, c.max_connections);
  }
  out += "  thresholds: " + joined(c.slo) + "\n\n";
  out += string_printf("  %3s %-8s %10s %10s %8s %8s %8s %8s %8s %7s %8s %5s  %s\n", "#", "probe",
                       c.by_connections ? "conns" : "target", "achieved", "p50", "p90", "p99",
                       "p99.9", "max", "errors", "lag p99", "cpu", "verdict");
  return out;
}

std::string render_search_row(const SearchContext& c, const ProbeRecord& r, size_t index) {
  const ProbeStats& s = r.outcome.stats;
  std::string kind = probe_kind_name(r.probe.kind);
  const bool estimate = r.probe.kind == ProbeKind::kEstimate;
  std::string verdict = estimate ? "estimate" : probe_verdict_name(r.outcome.verdict);
  if (!estimate && r.decided != r.outcome.verdict) {
    verdict += std::string(" -> ") + probe_verdict_name(r.decided);
  }
  std::string row = string_printf(
      "  %3zu %-8s %10s %10.1f %8s %8s %8s %8s %8s %6.2f%% %8s %4.0f%%  %s\n", index, kind.c_str(),
      estimate ? "-" : level(c, r.probe.target).c_str(), r.outcome.achieved, dur(s.p50_ns).c_str(),
      dur(s.p90_ns).c_str(), dur(s.p99_ns).c_str(), dur(s.p999_ns).c_str(), dur(s.max_ns).c_str(),
      s.error_rate * 100, estimate || c.by_connections ? "-" : dur(s.lag_p99_ns).c_str(),
      s.hail_cpu * 100, verdict.c_str());
  if (!r.outcome.reason.empty() && r.outcome.verdict != ProbeVerdict::kPass) {
    row += "        " + r.outcome.reason + "\n";
  }
  return row;
}

std::string render_search_verdict(const SearchContext& c, const SearchVerdict& v) {
  std::string out = "\n";
  if (v.found) {
    out += "  Highest " + std::string(c.by_connections ? "level" : "rate") +
           " meeting every threshold: " + level(c, v.max_passing) + " " + unit(c);
    out += v.confirmed ? " (confirmed by the final, longer probe)\n"
                       : " (not confirmed by a longer probe)\n";
    if (v.upper > 0) {
      out += "  Bracket: [" + level(c, v.lower) + ", " + level(c, v.upper) + ") " + unit(c) +
             (v.upper_inconclusive ? " (the upper end was too close to call)" : "") + "\n";
    }
  } else {
    // Only a server limit means the lowest level failed; hail, the budget or an interruption
    // can stop the search before any level passed or failed.
    out += "  No " + std::string(c.by_connections ? "level" : "rate") + " met every threshold" +
           (v.limited_by == SearchLimit::kServer ? " (the lowest probed failed)\n" : "\n");
  }
  out += "  Limited by " + limit_text(c, v) + "\n";
  out += string_printf("  %zu probes in %s%s\n", v.probes.size(), dur(v.elapsed_ns).c_str(),
                       c.interrupted ? " (interrupted)" : "");
  return out;
}

std::string render_search_json(const SearchContext& c, const SearchVerdict& v) {
  JsonWriter j;
  j.begin_object();
  j.value("schema", "hail-search/1");
  j.value("version", c.version);
  j.value("url", c.url);
  j.value("domain", c.by_connections ? "connections" : "rate");
  j.value("unit", unit(c));
  j.begin_array("slo");
  for (const std::string& s : c.slo) j.element(s);
  j.end_array();
  j.value("threads", c.threads);
  if (!c.by_connections) {
    j.value("connections", c.connections);
    j.value("max_connections", c.max_connections);
  }
  j.value("interrupted", c.interrupted);
  write_machines_json(j, c.machines);
  j.begin_object("search");
  j.value("found", v.found);
  const char* suffix = c.by_connections ? "_connections" : "_per_s";
  const std::string max_key = c.by_connections ? "max_connections" : "max_rate_per_s";
  if (v.found) {
    j.exact(max_key, v.max_passing);
  } else {
    j.null(max_key);
  }
  j.exact(std::string("lower") + suffix, v.lower);
  j.exact(std::string("upper") + suffix, v.upper);
  j.value("limited_by", search_limit_name(v.limited_by));
  j.value("limit_reason", v.limit_reason);
  if (v.limited_by == SearchLimit::kHail) j.exact("hail_limit_per_s", v.hail_limit);
  j.value("confirmed", v.confirmed);
  j.value("upper_inconclusive", v.upper_inconclusive);
  j.value("elapsed_s", static_cast<double>(v.elapsed_ns) / 1e9);
  j.begin_array("probes");
  for (const ProbeRecord& r : v.probes) {
    const ProbeStats& s = r.outcome.stats;
    j.begin_object();
    j.value("kind", probe_kind_name(r.probe.kind));
    j.value("look", r.probe.look);
    j.exact("target", r.probe.target);
    j.value("settle_s", static_cast<double>(r.probe.settle_ns) / 1e9);
    j.value("measure_s", static_cast<double>(r.probe.measure_ns) / 1e9);
    j.value("achieved_per_s", r.outcome.achieved);
    j.value("verdict", probe_verdict_name(r.outcome.verdict));
    j.value("decided", probe_verdict_name(r.decided));
    j.value("reason", r.outcome.reason);
    j.value("p50_us", static_cast<double>(s.p50_ns) / 1e3);
    j.value("p90_us", static_cast<double>(s.p90_ns) / 1e3);
    j.value("p99_us", static_cast<double>(s.p99_ns) / 1e3);
    j.value("p99_9_us", static_cast<double>(s.p999_ns) / 1e3);
    j.value("max_us", static_cast<double>(s.max_ns) / 1e3);
    j.exact("error_rate", s.error_rate);
    j.value("lag_p99_us", static_cast<double>(s.lag_p99_ns) / 1e3);
    j.value("hail_cpu", s.hail_cpu);
    j.value("duration_s", static_cast<double>(r.outcome.duration_ns) / 1e9);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  j.end_object();
  return j.str();
}

}  // namespace hail
