#include "report/compare_report.h"

#include <cmath>
#include <cstdio>

#include "core/units.h"
#include "report/json_writer.h"

namespace hail {

namespace {

std::string printf_text(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string value_text(const MetricComparison& m, double v) {
  if (m.is_time) return format_duration_ns(v);
  if (m.absolute) return printf_text("%.3f%%", v * 100);  // error rate
  return printf_text("%.1f/s", v);
}

// A change as the table shows it: relative in %, absolute (error rate) in percentage points.
std::string change_text(const MetricComparison& m, double change) {
  if (std::isinf(change)) return change > 0 ? "+inf" : "-inf";
  if (std::isnan(change)) return "n/a";
  return m.absolute ? printf_text("%+.3fpp", change * 100) : printf_text("%+.1f%%", change * 100);
}

std::string pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string files_text(const std::vector<std::string>& files) {
  if (files.size() == 1) return files.front();
  return std::to_string(files.size()) + " runs (" + files.front() + " ...)";
}

JsonWriter& number_or_null(JsonWriter& w, std::string_view key, double v) {
  return std::isfinite(v) ? w.exact(key, v) : w.null(key);
}

}  // namespace

std::string render_compare_text(const Comparison& c, const CompareInputs& inputs) {
  std::string out = "Comparing " + files_text(inputs.base) + " (base) with " +
                    files_text(inputs.candidate) + " (candidate)\n";
  if (c.method == "block-bootstrap") {
    out += "Moving-block bootstrap: " + std::to_string(c.base_windows) + " and " +
           std::to_string(c.candidate_windows) + " measured windows, blocks of " +
           std::to_string(c.block_windows) + ", " + std::to_string(c.resamples) +
           " resamples, seed " + std::to_string(c.seed) + "\n";
  } else {
    out += "Repeated runs: " + std::to_string(c.base_runs) + " and " +
           std::to_string(c.candidate_runs) + " runs, medians, Mann-Whitney U at alpha " +
           printf_text("%g", c.alpha) + "\n";
  }
  out += "\n";
  const std::string interval_head = printf_text("%g%% interval", c.confidence * 100);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"metric", "base", "candidate", "change", interval_head, "margin", "verdict"});
  for (const MetricComparison& m : c.metrics) {
    std::string margin = m.absolute ? printf_text("%.3fpp", m.tolerance * 100)
                                    : printf_text("%g%%", m.tolerance * 100);
    rows.push_back({m.tag.empty() ? m.name : m.tag + " " + m.name, value_text(m, m.base),
                    value_text(m, m.candidate), change_text(m, m.change),
                    "[" + change_text(m, m.change_interval.low) + ", " +
                        change_text(m, m.change_interval.high) + "]",
                    margin, std::string(verdict_name(m.verdict))});
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += i + 1 < row.size() ? pad(row[i], widths[i] + 2) : row[i];
    }
    out += line + "\n";
  }
  size_t counts[4] = {};
  for (const MetricComparison& m : c.metrics) ++counts[static_cast<size_t>(m.verdict)];
  out += "\n" + std::to_string(counts[static_cast<size_t>(Verdict::kRegressed)]) + " regressed, " +
         std::to_string(counts[static_cast<size_t>(Verdict::kImproved)]) + " improved, " +
         std::to_string(counts[static_cast<size_t>(Verdict::kSame)]) + " same, " +
         std::to_string(counts[static_cast<size_t>(Verdict::kInconclusive)]) + " inconclusive\n";
  for (const std::string& note : c.notes) out += "Note: " + note + "\n";
  return out;
}

std::string render_compare_json(const Comparison& c, const CompareInputs& inputs) {
  JsonWriter w;
  w.begin_object();
  w.value("schema", "hail-compare/1");
  w.begin_object("comparison");
  w.value("method", c.method);
  w.exact("confidence", c.confidence);
  w.exact("alpha", c.alpha);
  const auto side = [&](const char* key, const std::vector<std::string>& files, size_t windows) {
    w.begin_object(key);
    w.begin_array("files");
    for (const std::string& f : files) w.element(f);
    w.end_array();
    w.value("runs", static_cast<uint64_t>(files.size()));
    if (c.method == "block-bootstrap") w.value("windows", static_cast<uint64_t>(windows));
    w.end_object();
  };
  side("base", inputs.base, c.base_windows);
  side("candidate", inputs.candidate, c.candidate_windows);
  if (c.method == "block-bootstrap") {
    w.value("block_windows", static_cast<uint64_t>(c.block_windows));
    w.value("resamples", static_cast<uint64_t>(c.resamples));
    w.value("seed", c.seed);
  }
  w.begin_array("metrics");
  for (const MetricComparison& m : c.metrics) {
    w.begin_object();
    w.value("name", m.name);
    if (!m.tag.empty()) w.value("tag", m.tag);
    w.value("unit", m.is_time ? "ns" : m.absolute ? "fraction" : "req/s");
    w.value("change_kind", m.absolute ? "absolute" : "relative");
    w.value("lower_is_better", m.lower_is_better);
    number_or_null(w, "base", m.base);
    number_or_null(w, "base_ci_low", m.base_interval.low);
    number_or_null(w, "base_ci_high", m.base_interval.high);
    number_or_null(w, "candidate", m.candidate);
    number_or_null(w, "candidate_ci_low", m.candidate_interval.low);
    number_or_null(w, "candidate_ci_high", m.candidate_interval.high);
    number_or_null(w, "change", m.change);
    number_or_null(w, "ci_low", m.change_interval.low);
    number_or_null(w, "ci_high", m.change_interval.high);
    w.exact("tolerance", m.tolerance);
    if (m.p_value >= 0) w.exact("p_value", m.p_value);
    w.value("verdict", verdict_name(m.verdict));
    w.end_object();
  }
  w.end_array();
  w.begin_array("notes");
  for (const std::string& note : c.notes) w.element(note);
  w.end_array();
  w.value("regressed", c.any_regressed());
  w.end_object();
  w.end_object();
  return w.str() + "\n";
}

}  // namespace hail
