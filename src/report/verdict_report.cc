#include "report/verdict_report.h"

#include <cstdio>

#include "core/strings.h"
#include "core/units.h"

namespace hail {

namespace {

void line(std::string& out, const std::string& text) {
  out += text;
  out.push_back('\n');
}

std::string value_text(const SloThreshold* t, const SloCheck& c) {
  if (!c.value) return "no samples";
  return t != nullptr ? format_slo_value(*t, *c.value) : string_printf("%g", *c.value);
}

// The threshold a check came from (checks follow the thresholds; unreadable ones come last).
const SloThreshold* threshold_of(const RunVerdicts& v, size_t i) {
  return i < v.thresholds.size() ? &v.thresholds[i] : nullptr;
}

std::string step_target(const RunResult& r, const WindowStats& s) {
  const bool has_unit = r.target_unit != nullptr && r.target_unit[0] != '\0';
  if (!has_unit) return "";
  std::string t = string_printf("%g", s.target_start);
  if (s.target_end != s.target_start) t += "->" + string_printf("%g", s.target_end);
  return " (" + t + " " + r.target_unit + ")";
}

void threshold_table(std::string& out, const RunVerdicts& v) {
  line(out, "  Thresholds (--slo)");
  for (size_t i = 0; i < v.slo.checks.size(); ++i) {
    const SloCheck& c = v.slo.checks[i];
    std::string row = string_printf("  %-4s %-34s %16s", c.ok ? "ok" : "FAIL", c.expr.c_str(),
                                    value_text(threshold_of(v, i), c).c_str());
    if (!c.ok && c.first_breach_s)
      row += string_printf("  first breach at %.1fs", *c.first_breach_s);
    line(out, row);
    if (!c.detail.empty() && !c.ok) line(out, "       " + c.detail);
  }
  size_t failed = 0;
  for (const SloCheck& c : v.slo.checks) failed += c.ok ? 0 : 1;
  line(out, v.slo_ok() ? string_printf("  Verdict: PASS (%zu threshold%s held)",
                                       v.slo.checks.size(), v.slo.checks.size() == 1 ? "" : "s")
                       : string_printf("  Verdict: FAIL (%zu of %zu threshold%s failed)", failed,
                                       v.slo.checks.size(), v.slo.checks.size() == 1 ? "" : "s"));
}

void step_verdicts(std::string& out, const RunResult& r, const RunVerdicts& v) {
  line(out, std::string("  ") + (r.ladder ? "Ladder" : "Stages") + " against the thresholds");
  for (const SloStepVerdict& s : v.steps.steps) {
    if (s.step >= r.steps.size()) continue;
    std::string failed;
    for (const SloCheck& c : s.report.checks) {
      if (!c.ok && c.applicable) failed += (failed.empty() ? "" : ", ") + c.expr;
    }
    line(out, string_printf("  %4zu%s: %s", s.step + 1, step_target(r, r.steps[s.step]).c_str(),
                            s.ok ? "ok" : ("FAIL " + failed).c_str()));
  }
  if (v.steps.highest_passing) {
    const size_t i = *v.steps.highest_passing;
    line(out, string_printf("  Highest step meeting every threshold: %zu%s", i + 1,
                            step_target(r, r.steps[i]).c_str()));
  } else {
    line(out, "  No step met every threshold");
  }
}

void health_lines(std::string& out, const GeneratorHealth& h) {
  line(out, h.limited_by_hail ? "  Generator health: LIMITED BY HAIL (these numbers measure hail "
                                "as much as the server)"
                              : "  Generator health: ok");
  for (const HealthCheck& c : h.checks) {
    if (!c.applicable) continue;
    line(out, string_printf("  %-4s %-8s %s", c.ok ? "ok" : "FAIL", c.name.c_str(),
                            c.explanation.c_str()));
  }
}

const char* unit_of(const SloThreshold* t) {
  if (t == nullptr) return "";
  if (t->is_distribution()) return "ns";
  switch (t->metric) {
    case SloMetric::kErrorRate:
      return "fraction";
    case SloMetric::kRps:
      return "req/s";
    case SloMetric::kServerCpu:
    case SloMetric::kServerCpuMax:
      return "percent";
    case SloMetric::kServerRss:
      return "bytes";
    case SloMetric::kServerRssGrowth:
      return "bytes/h";
    default:
      return "count";
  }
}

void write_check(JsonWriter& j, const SloCheck& c, const SloThreshold* t) {
  j.begin_object();
  j.value("expr", c.expr);
  j.value("metric", c.metric);
  if (c.value) {
    j.exact("value", *c.value);
  } else {
    j.null("value");
  }
  j.value("unit", unit_of(t));
  if (c.value && t != nullptr) j.value("value_text", format_slo_value(*t, *c.value));
  j.value("ok", c.ok);
  if (c.first_breach_s) {
    j.value("first_breach_s", *c.first_breach_s);
  } else {
    j.null("first_breach_s");
  }
  if (!c.applicable) j.value("applicable", false);
  if (!c.detail.empty()) j.value("detail", c.detail);
  j.end_object();
}

}  // namespace

std::string render_verdicts_text(const RunResult& r, const RunVerdicts& v) {
  std::string out;
  if (v.has_slo()) {
    threshold_table(out, v);
    if (!r.slo_abort.empty()) line(out, "  Stopped early by --slo-abort: " + r.slo_abort);
    if (!v.steps.steps.empty()) step_verdicts(out, r, v);
  }
  // Without thresholds the runner's notes already say when hail was the limit.
  if (v.has_slo()) health_lines(out, v.health);
  if (!out.empty()) out.push_back('\n');
  return out;
}

void write_verdicts_json(JsonWriter& j, const RunResult& r, const RunVerdicts& v) {
  if (v.has_slo()) {
    j.begin_object("slo");
    j.value("ok", v.slo_ok());
    j.value("aborted", !r.slo_abort.empty());
    if (!r.slo_abort.empty()) j.value("abort_reason", r.slo_abort);
    j.begin_array("checks");
    for (size_t i = 0; i < v.slo.checks.size(); ++i) {
      write_check(j, v.slo.checks[i], threshold_of(v, i));
    }
    j.end_array();
    if (!v.steps.steps.empty()) {
      j.begin_array("steps");
      for (const SloStepVerdict& s : v.steps.steps) {
        j.begin_object();
        j.value("step", static_cast<uint64_t>(s.step + 1));
        j.value("ok", s.ok);
        j.begin_array("checks");
        for (size_t i = 0; i < s.report.checks.size(); ++i) {
          write_check(j, s.report.checks[i], threshold_of(v, i));
        }
        j.end_array();
        j.end_object();
      }
      j.end_array();
      if (v.steps.highest_passing) {
        j.value("highest_passing_step", static_cast<uint64_t>(*v.steps.highest_passing + 1));
      } else {
        j.null("highest_passing_step");
      }
    }
    j.end_object();
  }
  j.begin_object("generator_health");
  j.value("limited_by_hail", v.health.limited_by_hail);
  j.begin_array("checks");
  for (const HealthCheck& c : v.health.checks) {
    j.begin_object();
    j.value("name", c.name);
    j.value("applicable", c.applicable);
    j.value("ok", c.ok);
    j.exact("value", c.value);
    j.exact("limit", c.limit);
    j.value("explanation", c.explanation);
    j.end_object();
  }
  j.end_array();
  j.end_object();
}

std::string render_junit(const RunResult& r) {
  const RunVerdicts v = judge_run(r);
  size_t failures = 0;
  for (const SloCheck& c : v.slo.checks) failures += c.ok ? 0 : 1;
  const bool health_failed = v.health.limited_by_hail;
  failures += health_failed ? 1 : 0;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += string_printf(
      "<testsuites name=\"hail\" tests=\"%zu\" failures=\"%zu\">\n"
      "  <testsuite name=\"hail slo\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" time=\"%.3f\">\n",
      v.slo.checks.size() + 1, failures, v.slo.checks.size() + 1, failures, r.duration_s());
  out += "    <properties><property name=\"url\" value=\"" + markup_escaped(r.url) +
         "\"/></properties>\n";
  for (size_t i = 0; i < v.slo.checks.size(); ++i) {
    const SloCheck& c = v.slo.checks[i];
    out += "    <testcase classname=\"hail.slo\" name=\"" + markup_escaped(c.expr) + "\" time=\"" +
           string_printf("%.3f", r.duration_s()) + "\">";
    if (c.ok) {
      out += "</testcase>\n";
      continue;
    }
    std::string message = c.metric + " = " + value_text(threshold_of(v, i), c);
    if (c.first_breach_s) message += string_printf(", first breach at %.1fs", *c.first_breach_s);
    out += "\n      <failure message=\"" + markup_escaped(message) + "\" type=\"threshold\">" +
           markup_escaped(c.detail.empty() ? message : message + "\n" + c.detail) +
           "</failure>\n    </testcase>\n";
  }
  out += "    <testcase classname=\"hail.generator\" name=\"generator health\" time=\"0\">";
  if (health_failed) {
    std::string text;
    for (const HealthCheck& c : v.health.checks) {
      if (c.applicable && !c.ok) text += c.name + ": " + c.explanation + "\n";
    }
    out += "\n      <failure message=\"limited by hail\" type=\"generator\">" +
           markup_escaped(text) + "</failure>\n    </testcase>\n";
  } else {
    out += "</testcase>\n";
  }
  if (!r.slo_abort.empty()) {
    out += "    <system-out>" + markup_escaped("stopped early by --slo-abort: " + r.slo_abort) +
           "</system-out>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace hail
