#include "report/openmetrics.h"

#include <charconv>
#include <cmath>

#include "core/ascii.h"

namespace hail {

namespace {

constexpr double kBoundsS[] = {0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1,
                               0.2,    0.5,    1,      2,     5,     10,    20,   50,   60};

constexpr const char* kStatusClassNames[kStatusClassCount] = {"other", "1xx", "2xx",
                                                              "3xx",   "4xx", "5xx"};

std::string format_double(double v, std::chars_format fmt) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v, fmt);
  if (ec != std::errc()) return "0";
  return std::string(buf, end);
}

std::string number(double v) {
  return format_double(v, std::chars_format::general);
}

std::string number(uint64_t v) {
  return std::to_string(v);
}

// Writes families: the HELP and TYPE lines once, then samples, each with the constant labels.
class Exposition {
 public:
  Exposition(const MetricsSnapshot& s, MetricsFormat format) : format_(format) {
    if (!s.run_id.empty()) constant_labels_ = "run_id=\"" + escape_label_value(s.run_id) + "\",";
    constant_labels_ += "shard=\"" + escape_label_value(s.shard) + "\"";
  }

  // `name` is the sample name; a counter's family drops "_total" in OpenMetrics.
  void family(const std::string& name, const char* type, const char* help) {
    std::string family_name = name;
    if (format_ == MetricsFormat::kOpenMetrics && std::string_view(type) == "counter" &&
        family_name.size() > 6 && family_name.ends_with("_total")) {
      family_name.resize(family_name.size() - 6);
    }
    out_ += "# HELP " + family_name + " " + help + "\n";
    out_ += "# TYPE " + family_name + " " + type + "\n";
  }

  // `labels`: extra labels, already escaped ("status_class=\"2xx\""), or empty.
  void sample(const std::string& name, const std::string& labels, const std::string& value) {
    out_ += name + "{" + constant_labels_;
    if (!labels.empty()) out_ += "," + labels;
    out_ += "} " + value + "\n";
  }

  std::string finish() {
    if (format_ == MetricsFormat::kOpenMetrics) out_ += "# EOF\n";
    return std::move(out_);
  }

 private:
  MetricsFormat format_;
  std::string constant_labels_;
  std::string out_;
};

std::string label(const char* name, std::string_view value) {
  return std::string(name) + "=\"" + escape_label_value(value) + "\"";
}

void gauge(Exposition& e, const char* name, const char* help, const std::string& value) {
  e.family(name, "gauge", help);
  e.sample(name, "", value);
}

}  // namespace

std::span<const double> metrics_bucket_bounds_s() {
  return kBoundsS;
}

void set_duration_buckets(MetricsSnapshot& snapshot, const Histogram& latency) {
  const std::span<const double> bounds = metrics_bucket_bounds_s();
  snapshot.duration_buckets.assign(bounds.size(), 0);
  std::vector<uint64_t> bounds_ns(bounds.size());
  for (size_t i = 0; i < bounds.size(); ++i) {
    bounds_ns[i] = static_cast<uint64_t>(std::llround(bounds[i] * 1e9));
  }
  // Slots arrive in increasing order: each one counts towards its first bound and every later one.
  std::vector<uint64_t> per_bucket(bounds.size() + 1, 0);
  size_t b = 0;
  latency.for_each_recorded([&](uint64_t value_ns, uint64_t count) {
    while (b < bounds_ns.size() && value_ns > bounds_ns[b]) ++b;
    per_bucket[b] += count;
  });
  uint64_t running = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    running += per_bucket[i];
    snapshot.duration_buckets[i] = running;
  }
  snapshot.duration_count = latency.count();
  snapshot.duration_sum_s = latency.mean() * static_cast<double>(latency.count()) / 1e9;
}

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_metrics(const MetricsSnapshot& s, MetricsFormat format) {
  Exposition e(s, format);
  e.family("hail_requests_total", "counter",
           "Completed responses by HTTP status class, since the load started (warm-up "
           "included).");
  for (size_t c = 1; c < kStatusClassCount; ++c) {
    e.sample("hail_requests_total", label("status_class", kStatusClassNames[c]),
             number(s.requests_by_class[c]));
  }
  if (s.requests_by_class[0] != 0) {
    e.sample("hail_requests_total", label("status_class", kStatusClassNames[0]),
             number(s.requests_by_class[0]));
  }
  e.family("hail_errors_total", "counter",
           "Requests and connection attempts that failed, by hail's error class.");
  for (size_t c = 0; c < kErrorClassCount; ++c) {
    e.sample("hail_errors_total", label("class", error_class_name(static_cast<ErrorClass>(c))),
             number(s.errors[c]));
  }
  e.family("hail_request_duration_seconds", "histogram",
           "Latency of completed responses (rate mode: from each request's planned time).");
  const std::span<const double> bounds = metrics_bucket_bounds_s();
  for (size_t i = 0; i < bounds.size(); ++i) {
    const uint64_t n = i < s.duration_buckets.size() ? s.duration_buckets[i] : 0;
    e.sample("hail_request_duration_seconds_bucket",
             label("le", format_double(bounds[i], std::chars_format::fixed)), number(n));
  }
  e.sample("hail_request_duration_seconds_bucket", label("le", "+Inf"), number(s.duration_count));
  e.sample("hail_request_duration_seconds_sum", "", number(s.duration_sum_s));
  e.sample("hail_request_duration_seconds_count", "", number(s.duration_count));
  if (s.has_tags) {
    e.family("hail_tag_requests_total", "counter",
             "Completed responses per request-mix line (its tag or name).");
    for (const TagCount& t : s.tags) {
      e.sample("hail_tag_requests_total", label("tag", t.tag), number(t.completed));
    }
  }
  gauge(e, "hail_in_flight_requests", "Requests sent and not yet answered.", number(s.in_flight));
  gauge(e, "hail_open_connections", "Connections open at the end of the last window.",
        number(s.open_connections));
  gauge(e, "hail_target_rate_per_second",
        "Rate mode: this shard's planned requests per second (0 in a closed loop).",
        number(s.target_rate_per_s));
  gauge(e, "hail_achieved_rate_per_second",
        "Completed responses per second in the last whole window.", number(s.achieved_rate_per_s));
  gauge(e, "hail_schedule_lag_seconds",
        "Rate mode: p99 of the delay from planned to sent time in the last whole window.",
        number(s.schedule_lag_s));
  e.family("hail_cpu_seconds_total", "counter", "CPU time (user + system) of the hail process.");
  e.sample("hail_cpu_seconds_total", "", number(s.cpu_seconds));
  gauge(e, "hail_up", "1 while the load runs, 0 once it ended (--metrics-linger).",
        s.up ? "1" : "0");
  gauge(e, "hail_warmup", "1 during the warm-up, else 0.", s.warmup ? "1" : "0");
  return e.finish();
}

MetricsFormat metrics_format_for_accept(std::string_view accept) {
  // Media ranges separated by commas, each with ;-parameters.
  size_t pos = 0;
  while (pos <= accept.size()) {
    size_t comma = accept.find(',', pos);
    if (comma == std::string_view::npos) comma = accept.size();
    std::string_view range = accept.substr(pos, comma - pos);
    pos = comma + 1;
    const size_t semi = range.find(';');
    std::string_view type = ascii::trim_ows(range.substr(0, semi));
    if (!ascii::iequals(type, "application/openmetrics-text")) continue;
    bool refused = false;
    if (semi != std::string_view::npos) {
      std::string_view params = range.substr(semi + 1);
      size_t q = params.find("q=");
      if (q != std::string_view::npos) {
        std::string_view qv = ascii::trim_ows(params.substr(q + 2, params.find(';', q) - (q + 2)));
        double qd = 1;
        auto [p, ec] = std::from_chars(qv.data(), qv.data() + qv.size(), qd);
        (void)p;
        refused = ec == std::errc() && qd <= 0;
      }
    }
    if (!refused) return MetricsFormat::kOpenMetrics;
  }
  return MetricsFormat::kPrometheus;
}

const char* metrics_content_type(MetricsFormat format) {
  return format == MetricsFormat::kOpenMetrics
             ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
             : "text/plain; version=0.0.4; charset=utf-8";
}

}  // namespace hail
