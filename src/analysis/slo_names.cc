#include "analysis/slo_names.h"

#include <string>

#include "analysis/slo_expr.h"
#include "core/ascii.h"
#include "core/result.h"
#include "core/strings.h"
#include "core/units.h"

namespace hail {

namespace slo_names {

const char* metric_name(SloMetric m) {
  switch (m) {
    case SloMetric::kLatency:
      return "latency";
    case SloMetric::kService:
      return "service";
    case SloMetric::kTtfb:
      return "ttfb";
    case SloMetric::kConnect:
      return "connect";
    case SloMetric::kLag:
      return "lag";
    case SloMetric::kTls:
      return "tls";
    case SloMetric::kErrorRate:
      return "error_rate";
    case SloMetric::kRps:
      return "rps";
    case SloMetric::kRequests:
      return "requests";
    case SloMetric::kErrors:
      return "errors";
    case SloMetric::kServerCpu:
      return "server.cpu";
    case SloMetric::kServerCpuMax:
      return "server.cpu_max";
    case SloMetric::kServerRss:
      return "server.rss";
    case SloMetric::kServerRssGrowth:
      return "server.rss_growth";
    case SloMetric::kServerFds:
      return "server.fds";
  }
  return "?";
}

const char* errors_suffix(SloErrors e) {
  switch (e) {
    case SloErrors::kAll:
      return "";
    case SloErrors::kConnect:
      return ".connect";
    case SloErrors::kRead:
      return ".read";
    case SloErrors::kWrite:
      return ".write";
    case SloErrors::kTimeout:
      return ".timeout";
    case SloErrors::kParse:
      return ".parse";
    case SloErrors::kStream:
      return ".stream";
    case SloErrors::kStatus:
      return ".status";
  }
  return "";
}

}  // namespace slo_names

namespace {

// %g without a locale, enough digits for any percentile a user types.
std::string short_number(double v) {
  return string_printf("%.10g", v);
}

}  // namespace

using slo_names::errors_suffix;
using slo_names::metric_name;

std::string SloThreshold::metric_label() const {
  std::string label = metric_name(metric);
  if (metric == SloMetric::kErrors) label += errors_suffix(errors);
  if (!tag.empty()) {
    const bool plain = tag.find_first_of("{}\"\\") == std::string::npos &&
                       !ascii::is_space(tag.front()) && !ascii::is_space(tag.back());
    label += "{tag=" + (plain ? tag : quote(tag)) + "}";
  }
  switch (stat) {
    case SloStat::kNone:
      break;
    case SloStat::kPercentile:
      label += ".p(" + short_number(percentile) + ")";
      break;
    case SloStat::kAvg:
      label += ".avg";
      break;
    case SloStat::kMin:
      label += ".min";
      break;
    case SloStat::kMax:
      label += ".max";
      break;
  }
  return label;
}

bool slo_holds(SloOp op, double value, double limit) {
  switch (op) {
    case SloOp::kLess:
      return value < limit;
    case SloOp::kLessEqual:
      return value <= limit;
    case SloOp::kGreater:
      return value > limit;
    case SloOp::kGreaterEqual:
      return value >= limit;
    case SloOp::kEqual:
      return value == limit;
    case SloOp::kNotEqual:
      return value != limit;
  }
  return false;
}

bool slo_metric_in_windows(SloMetric metric) {
  switch (metric) {
    case SloMetric::kTtfb:
    case SloMetric::kConnect:
    case SloMetric::kTls:
      return false;
    default:
      return !slo_names::is_server_metric(metric);
  }
}

std::string format_slo_value(const SloThreshold& threshold, double value) {
  if (threshold.is_distribution()) return format_duration_ns(value);
  switch (threshold.metric) {
    case SloMetric::kErrorRate:
      return string_printf("%.3g%%", value * 100);
    case SloMetric::kRps:
      return string_printf("%.1f req/s", value);
    case SloMetric::kServerCpu:
    case SloMetric::kServerCpuMax:
      return string_printf("%.1f%%", value);
    case SloMetric::kServerRss:
      return string_printf("%.1f MiB", value / (1024.0 * 1024.0));
    case SloMetric::kServerRssGrowth:
      return string_printf("%.2f MiB/h", value / (1024.0 * 1024.0));
    default:
      return string_printf("%.0f", value);
  }
}

const char* slo_op_text(SloOp op) {
  switch (op) {
    case SloOp::kLess:
      return "<";
    case SloOp::kLessEqual:
      return "<=";
    case SloOp::kGreater:
      return ">";
    case SloOp::kGreaterEqual:
      return ">=";
    case SloOp::kEqual:
      return "==";
    case SloOp::kNotEqual:
      return "!=";
  }
  return "?";
}

}  // namespace hail
