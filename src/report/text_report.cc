#include "report/text_report.h"

#include <cstdio>
#include <string>
#include <string_view>

#include "core/strings.h"
#include "core/units.h"
#include "report/error_reason_text.h"
#include "report/monitor_report.h"
#include "report/percentiles.h"
#include "report/verdict_report.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

namespace hail {

namespace {
std::string dur(uint64_t ns) {
  return format_duration_ns(static_cast<double>(ns));
}
std::string durd(double ns) {
  return format_duration_ns(ns);
}

void line(std::string& out, const char* fmt, auto... args) {
  if constexpr (sizeof...(args) == 0) {
    out += fmt;  // plain text: no format string to interpret
  } else {
    out += string_printf(fmt, args...);
  }
  out.push_back('\n');
}

void distribution_rows(std::string& out, const char* name, const Histogram& h) {
  if (h.count() == 0) {
    line(out, "  %-12s %10s", name, "-");
    return;
  }
  line(out, "  %-12s %10s %10s %10s %10s %10s", name, durd(h.mean()).c_str(),
       dur(h.value_at_percentile(50)).c_str(), dur(h.value_at_percentile(90)).c_str(),
       dur(h.value_at_percentile(99)).c_str(), dur(h.max()).c_str());
}

// "HTTP/1.1", "HTTP/1.1 pipeline 8", "HTTP/2 10 streams", "HTTP/0.9"; "h2+http/1.1" when ALPN
// gave both.
std::string protocol_label(const RunResult& r) {
  const WireProtocol h1 = r.protocols.http1();
  const char* h1_label = h1 == WireProtocol::kHttp09   ? "HTTP/0.9"
                         : h1 == WireProtocol::kHttp10 ? "HTTP/1.0"
                                                       : "HTTP/1.1";
  if (r.protocols == ProtocolSet(WireProtocol::kHttp2)) {
    std::string label =
        "HTTP/2" + (r.streams > 1 ? " " + std::to_string(r.streams) + " streams" : "");
    // The servers' SETTINGS_MAX_CONCURRENT_STREAMS held some connections below --streams.
    const uint32_t low = r.streams_effective_min;
    const uint32_t high = r.streams_effective_max;
    if (low != 0 && low < r.streams) {
      label += " (server allowed " + std::to_string(low) +
               (high != low ? "-" + std::to_string(high) : "") + ")";
    }
    return label;
  }
  if (r.protocols.speaks_h2()) return std::string("HTTP/2 and ") + h1_label;
  std::string label = h1_label;
  if (r.pipeline > 1) label += " pipeline " + std::to_string(r.pipeline);
  return label;
}

// A target for the step table: integers without decimals, anything else with one decimal.
std::string compact_number(double v) {
  std::string s = string_printf("%.1f", v);
  if (s.size() > 2 && s.ends_with(".0")) s.resize(s.size() - 2);
  return s;
}

// One row per --stages stage / --ladder step: target (a->b for a ramp), achieved rate, latency,
// errors. 79 columns with the widest usual values.
void step_table(std::string& out, const RunResult& r) {
  const bool has_unit = r.target_unit != nullptr && r.target_unit[0] != '\0';
  line(out, "  %s%s%s%s", r.ladder ? "Ladder" : "Stages", has_unit ? " (" : "",
       has_unit ? r.target_unit : "", has_unit ? ")" : "");
  line(out, "  %4s %15s %11s %8s %8s %8s %8s %8s", "Step", "Target", "Req/s", "50%", "90%", "99%",
       "Max", "Errors");
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const WindowStats& s = r.steps[i];
    std::string target = has_unit ? compact_number(s.target_start) : "-";
    if (has_unit && s.target_end != s.target_start) target += "->" + compact_number(s.target_end);
    const bool has_latency = s.completed > 0;
    line(out, "  %4zu %15s %11.2f %8s %8s %8s %8s %8llu", i + 1, target.c_str(), s.requests_per_s(),
         has_latency ? dur(s.p50_ns).c_str() : "-", has_latency ? dur(s.p90_ns).c_str() : "-",
         has_latency ? dur(s.p99_ns).c_str() : "-", has_latency ? dur(s.max_ns).c_str() : "-",
         static_cast<unsigned long long>(s.error_total()));
  }
  out.push_back('\n');
}

// A tag's name in `width` columns. Scripts may tag with any bytes, so anything but printable ASCII
// becomes '?' (the JSON report keeps the name exact). A long name loses its middle: the method in
// front and the end of the path (where URLs differ, and a " (line N)" suffix) stay readable.
std::string fit_label(std::string_view name, size_t width) {
  std::string s;
  s.reserve(name.size());
  for (char c : name) s += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() <= width) return s;
  const size_t head = (width - 3 + 1) / 2;
  const size_t tail = width - 3 - head;
  return s.substr(0, head) + "..." + s.substr(s.size() - tail);
}

// One row per tag (--urls line, Lua hail.tag). The statuses wrap under their column, so a row
// stays within 80 columns however many codes a tag saw; the column starts at 67 so that a status
// with an 8-digit count (the Count column's width) and its comma fit.
void tag_table(std::string& out, const RunResult& r) {
  constexpr size_t kLabelWidth = 20;
  constexpr size_t kWidth = 80;
  constexpr int kLabelColumns = static_cast<int>(kLabelWidth);
  line(out, "  %-*s %8s %9s %8s %8s %6s %s", kLabelColumns, "Tag", "Count", "Req/s", "50%", "99%",
       "Errors", "Status");
  for (const TagResult& t : r.tags) {
    const bool has_latency = t.latency.count() > 0;
    std::string row = string_printf(
        "  %-*s %8llu %9.2f %8s %8s %6llu ", kLabelColumns, fit_label(t.name, kLabelWidth).c_str(),
        static_cast<unsigned long long>(t.completed), r.requests_per_s(t),
        has_latency ? dur(t.latency.value_at_percentile(50)).c_str() : "-",
        has_latency ? dur(t.latency.value_at_percentile(99)).c_str() : "-",
        static_cast<unsigned long long>(t.error_total()));
    const size_t status_column = row.size();
    size_t line_start = 0;
    bool first = true;
    for (const auto& [code, count] : t.status_codes) {
      const std::string item = std::to_string(code) + ":" + std::to_string(count);
      if (!first) {
        // Room for the item and a possible trailing comma, else continue under the column.
        if (row.size() - line_start + 1 + item.size() + 1 > kWidth) {
          row += ",\n";
          line_start = row.size();
          row.append(status_column, ' ');
        } else {
          row += ',';
        }
      }
      row += item;
      first = false;
    }
    if (first) row += '-';
    out += row;
    out.push_back('\n');
  }
  out.push_back('\n');
}
}  // namespace

std::string render_text_report(const RunResult& result) {
  return render_text_report(result, HAIL_VERSION_STRING);
}

std::string render_text_report(const RunResult& r, std::string_view hail_version) {
  const Counters& c = r.counters;
  std::string out;
  line(out, "hail %s: %s test @ %s", std::string(hail_version).c_str(),
       r.requests_target ? (std::to_string(r.requests_target) + " requests").c_str()
                         : dur(r.duration_target_ns).c_str(),
       r.url.c_str());
  line(out, "  %u thread%s, %u connection%s, %s, %s %s%s", r.threads, r.threads == 1 ? "" : "s",
       r.connections, r.connections == 1 ? "" : "s",
       r.keep_alive ? "keep-alive" : "new connection per request", protocol_label(r).c_str(),
       r.method.c_str(),
       r.warmup_ns ? (", warm-up " + dur(r.warmup_ns) + " excluded").c_str() : "");
  if (r.shard_count > 1) {
    std::string start;
    if (r.start_at_unix_ns != 0) {
      start = ", load started " + format_duration_ns(static_cast<double>(r.start_late_ns)) +
              " after --start-at";
    }
    line(out, "  shard %u of %u (%s)%s%s%s: its part of a test of %u connections", r.shard_index,
         r.shard_count, r.shard_source.c_str(), r.run_id.empty() ? "" : ", run ", r.run_id.c_str(),
         start.c_str(), r.whole_connections);
  }
  if (!r.tls_version.empty()) {
    line(out, "  TLS: %s %s, %llu handshakes (%llu resumed)", r.tls_version.c_str(),
         r.tls_cipher.c_str(), static_cast<unsigned long long>(c.tls_handshakes),
         static_cast<unsigned long long>(c.tls_resumed));
  }
  if (r.rate_mode()) {
    line(out, "  rate: target %.1f/s, achieved %.1f/s, backlog %llu at the end",
         r.rate_target_per_s, r.requests_per_s(), static_cast<unsigned long long>(r.backlog));
    line(out, "  latency counts from each request's planned send time (corrected)");
  }
  if (r.interrupted) line(out, "  interrupted: partial run");
  out.push_back('\n');

  const Histogram& lat = r.latency;
  line(out, "  %-12s %10s %10s %10s %10s", "Latency", "Mean", "Stdev", "Min", "Max");
  if (lat.count() > 0) {
    line(out, "  %-12s %10s %10s %10s %10s", "", durd(lat.mean()).c_str(),
         durd(lat.stdev()).c_str(), dur(lat.min()).c_str(), dur(lat.max()).c_str());
    std::string labels = "  Percentiles ";
    std::string values = "              ";
    for (const auto& p : kReportPercentiles) {
      labels += string_printf("%10s", p.text_label);
      values += string_printf("%10s", dur(lat.value_at_percentile(p.percentile)).c_str());
    }
    out += labels + "\n" + values + "\n";
  } else {
    line(out, "  %-12s %10s", "", "no completed requests");
  }
  line(out, "  %-12s %10s %10s %10s %10s %10s", "", "Mean", "50%", "90%", "99%", "Max");
  if (r.rate_mode()) {
    distribution_rows(out, "Service", r.service_time);
    distribution_rows(out, "Lag", r.lag);
  }
  distribution_rows(out, "Connect", r.connect_time);
  if (!r.tls_version.empty()) distribution_rows(out, "TLS", r.tls_handshake);
  distribution_rows(out, "First byte", r.ttfb);
  out.push_back('\n');
  if (!r.tags.empty()) tag_table(out, r);

  line(out, "  %llu requests in %s, %s read", static_cast<unsigned long long>(c.completed),
       dur(r.duration_ns).c_str(), format_bytes(static_cast<double>(c.bytes_read)).c_str());
  line(out, "Requests/sec: %12.2f", r.requests_per_s());
  line(out, "Transfer/sec: %12s", format_bytes(r.bytes_per_s()).c_str());
  out.push_back('\n');
  if (!r.steps.empty()) step_table(out, r);

  std::string codes;
  for (const auto& [code, count] : r.status_codes) {
    if (!codes.empty()) codes += ", ";
    codes += std::to_string(code) + ": " + std::to_string(count);
  }
  line(out, "  Status codes  %s", codes.empty() ? "none" : codes.c_str());
  // Every class with its count, wrapped to 80 columns under the label.
  std::string errors = "  Errors        ";
  size_t line_start = 0;
  for (size_t i = 0; i <= kErrorClassCount; ++i) {
    const bool last = i == kErrorClassCount;
    std::string item = last ? "status " + std::to_string(c.status_errors)
                            : std::string(error_class_name(static_cast<ErrorClass>(i))) + " " +
                                  std::to_string(c.errors[i]) + ",";
    if (errors.size() - line_start + item.size() + 1 > 80) {
      errors += "\n                ";
      line_start = errors.size() - 16;
    } else if (i > 0) {
      errors += ' ';
    }
    errors += item;
  }
  line(out, "%s", errors.c_str());
  for (const ErrorReasonCount& row : r.error_reasons) {
    line(out, "                %s (%llu)", error_reason_text(row).c_str(),
         static_cast<unsigned long long>(row.count));
  }
  // Retried sends appear only when there were some: most runs have none.
  const std::string retried =
      c.retried > 0 ? string_printf(" + %llu retried", static_cast<unsigned long long>(c.retried))
                    : std::string();
  line(out, "  Accounting    %llu attempted = %llu completed + %llu failed + %llu in flight%s%s",
       static_cast<unsigned long long>(c.attempted), static_cast<unsigned long long>(c.completed),
       static_cast<unsigned long long>(c.request_errors()),
       static_cast<unsigned long long>(c.in_flight), retried.c_str(),
       r.accounting_holds() ? "" : "  (MISMATCH)");
  if (c.unsolicited > 0) {
    line(out,
         "  Unsolicited   %llu times the server sent bytes no request asked for (parse errors "
         "of their connections)",
         static_cast<unsigned long long>(c.unsolicited));
  }
  line(out, "  Connections   %llu opened", static_cast<unsigned long long>(c.connections_opened));
  if (r.naps > 0) {
    line(out, "  Coalescing    %llu naps of <= %.0fus before waiting (--no-coalesce: off)",
         static_cast<unsigned long long>(r.naps), static_cast<double>(r.max_nap_ns) / 1e3);
  }
  for (const auto& note : r.notes) line(out, "  Note: %s", note.c_str());
  if (!r.monitors.empty()) {
    out.push_back('\n');
    out += render_monitors_text(r);
  }
  if (!r.slo.empty()) {
    out.push_back('\n');
    out += render_verdicts_text(r, judge_run(r));
    out.pop_back();  // the report ends with its last line
  }
  return out;
}

}  // namespace hail
