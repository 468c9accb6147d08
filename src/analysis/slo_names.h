// The names an SLO expression may use for its metrics (hail's and k6's), shared by the parser
// (slo_expr.cc) and the canonical labels reports show (SloThreshold::metric_label).
// Owner: analysis, internal to it. Constants and pure functions: any thread.
#pragma once

#include <array>
#include <string_view>

#include "analysis/slo_expr.h"

namespace hail::slo_names {

inline constexpr std::string_view kKnownMetrics =
    "latency, service, ttfb, connect, lag, tls, error_rate, rps, requests, errors, errors.CLASS, "
    "timeouts, status_errors, server.cpu, server.cpu_max, server.rss, server.rss_growth, "
    "server.fds";

struct NamedMetric {
  std::string_view name;
  SloMetric metric;
};

// Distributions, hail's names first, then k6's.
inline constexpr std::array<NamedMetric, 11> kDistributions = {{
    {"latency", SloMetric::kLatency},
    {"service", SloMetric::kService},
    {"ttfb", SloMetric::kTtfb},
    {"connect", SloMetric::kConnect},
    {"lag", SloMetric::kLag},
    {"tls", SloMetric::kTls},
    {"http_req_duration", SloMetric::kLatency},
    {"http_req_waiting", SloMetric::kTtfb},
    {"http_req_connecting", SloMetric::kConnect},
    {"http_req_tls_handshaking", SloMetric::kTls},
    {"service_time", SloMetric::kService},
}};

struct NamedScalar {
  std::string_view name;
  SloMetric metric;
  SloErrors errors;
};

inline constexpr std::array<NamedScalar, 19> kScalars = {{
    {"error_rate", SloMetric::kErrorRate, SloErrors::kAll},
    {"rps", SloMetric::kRps, SloErrors::kAll},
    {"requests", SloMetric::kRequests, SloErrors::kAll},
    {"errors", SloMetric::kErrors, SloErrors::kAll},
    {"timeouts", SloMetric::kErrors, SloErrors::kTimeout},
    {"status_errors", SloMetric::kErrors, SloErrors::kStatus},
    {"errors.connect", SloMetric::kErrors, SloErrors::kConnect},
    {"errors.read", SloMetric::kErrors, SloErrors::kRead},
    {"errors.write", SloMetric::kErrors, SloErrors::kWrite},
    {"errors.timeout", SloMetric::kErrors, SloErrors::kTimeout},
    {"errors.parse", SloMetric::kErrors, SloErrors::kParse},
    {"errors.stream", SloMetric::kErrors, SloErrors::kStream},
    {"errors.status", SloMetric::kErrors, SloErrors::kStatus},
    {"errors.all", SloMetric::kErrors, SloErrors::kAll},
    {"server.cpu", SloMetric::kServerCpu, SloErrors::kAll},
    {"server.cpu_max", SloMetric::kServerCpuMax, SloErrors::kAll},
    {"server.rss", SloMetric::kServerRss, SloErrors::kAll},
    {"server.rss_growth", SloMetric::kServerRssGrowth, SloErrors::kAll},
    {"server.fds", SloMetric::kServerFds, SloErrors::kAll},
}};

// The server.* metrics (whole run only, from --monitor).
inline bool is_server_metric(SloMetric m) {
  return m >= SloMetric::kServerCpu;
}

// hail's canonical name: "latency", "error_rate", ...
const char* metric_name(SloMetric metric);
// ".timeout" for SloErrors::kTimeout; "" for kAll.
const char* errors_suffix(SloErrors errors);

}  // namespace hail::slo_names
