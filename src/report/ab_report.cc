#include "report/ab_report.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>

#include "core/strings.h"
#include "stats/error_class.h"

namespace hail {

namespace {

// ab's server name buffer holds 1023 characters.
constexpr size_t kAbMaxServerNameBytes = 1023;
// The rows of ab's "Percentage of the requests served" table.
constexpr int kAbPercentiles[] = {50, 66, 75, 80, 90, 95, 98, 99, 100};

void append(std::string& out, const char* fmt, auto... args) {
  out += string_printf(fmt, args...);
}

// ab's ap_round_ms: microseconds to milliseconds, rounding half up (integer arithmetic).
int64_t round_ms(int64_t us) {
  return (us + 500) / 1000;
}

double double_ms(double us) {
  return us / 1000.0;
}

long long ll(int64_t v) {
  return static_cast<long long>(v);
}

// One row of the Connection Times table, in milliseconds, as ab derives it.
struct TimesRow {
  int64_t min = 0;
  int64_t mean = 0;
  double sd = 0;
  int64_t median = 0;
  int64_t max = 0;
};

// ab's median: for an odd count above one it averages the middle element and the one after it
// (ab's off-by-one, kept); otherwise it takes element n/2 of the values in sorted order. Found by
// selection, O(n), instead of the sort ab does: only the values matter, not the order of ties.
template <typename Fn>
int64_t ab_median(const std::vector<AbSample>& samples, Fn value, std::vector<int64_t>& scratch) {
  scratch.clear();
  for (const AbSample& s : samples) scratch.push_back(value(s));
  const size_t n = scratch.size();
  const auto mid = scratch.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(scratch.begin(), mid, scratch.end());
  if (n > 1 && n % 2 == 1) return (*mid + *std::min_element(mid + 1, scratch.end())) / 2;
  return *mid;
}

template <typename Fn>
TimesRow times_row(const std::vector<AbSample>& samples, Fn value) {
  int64_t min = std::numeric_limits<int64_t>::max();
  int64_t max = 0;
  int64_t total = 0;
  for (const AbSample& s : samples) {
    const int64_t v = value(s);
    min = std::min(min, v);
    max = std::max(max, v);
    total += v;
  }
  const auto n = static_cast<int64_t>(samples.size());
  const int64_t mean = total / n;
  double squares = 0;
  for (const AbSample& s : samples) {
    const double d = static_cast<double>(value(s)) - static_cast<double>(mean);
    squares += d * d;
  }
  TimesRow row;
  row.min = round_ms(min);
  row.mean = round_ms(mean);
  row.sd = double_ms(n > 1 ? std::sqrt(squares / static_cast<double>(n - 1)) : 0);
  row.max = round_ms(max);
  return row;
}

int64_t ctime_of(const AbSample& s) {
  return s.ctime_us;
}
int64_t processing_of(const AbSample& s) {
  return s.time_us - s.ctime_us;
}
int64_t wait_of(const AbSample& s) {
  return s.wait_us;
}
int64_t total_of(const AbSample& s) {
  return s.time_us;
}

// ab's SANE(): a warning when a row's mean and median lie more than one (or two) deviations apart.
void sanity(std::string& out, const char* what, const TimesRow& row) {
  const double d = std::fabs(static_cast<double>(row.mean) - static_cast<double>(row.median));
  if (d > 2 * row.sd) {
    append(out,
           "ERROR: The median and mean for %s are more than twice the standard\n"
           "       deviation apart. These results are NOT reliable.\n",
           what);
  } else if (d > row.sd) {
    append(out,
           "WARNING: The median and mean for %s are not within a normal deviation\n"
           "        These results are probably not that reliable.\n",
           what);
  }
}

}  // namespace

std::string render_ab_copyright() {
  return "This is ApacheBench, Version 2.3 <$Revision$>\n"
         "Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/\n"
         "Licensed to The Apache Software Foundation, http://www.apache.org/\n"
         "\n";
}

std::string render_ab_request_info(std::string_view method, std::string_view head) {
  return "INFO: " + std::string(method) + " header == \n---\n" + std::string(head) + "\n---\n";
}

std::string render_ab_benchmarking(std::string_view hostname, std::string_view proxy_host,
                                   int proxy_port, bool progress_lines) {
  std::string out = "Benchmarking " + std::string(hostname) + " ";
  if (!proxy_host.empty()) {
    out += "[through " + std::string(proxy_host) + ":" + std::to_string(proxy_port) + "] ";
  }
  out += progress_lines ? "(be patient)\n" : "(be patient)...";
  return out;
}

std::vector<AbSample> ab_samples(const std::vector<RequestRecord>& log) {
  // ab files each request when it completes, then sorts the array by connect, processing, waiting
  // and total time in turn, each sort stable (glibc's qsort merges). The final order is one sort
  // by the key (total, waiting, processing, connect, completion time, log position): the same
  // order at a fifth of the cost, in place, which matters for a log of millions of requests.
  std::vector<AbSample> samples;
  samples.reserve(log.size());
  for (size_t i = 0; i < log.size(); ++i) {
    const RequestRecord& r = log[i];
    AbSample s;
    s.start_us = static_cast<int64_t>(r.start_unix_ns / 1000);
    s.ctime_us = static_cast<int64_t>(r.connect_ns / 1000);
    s.time_us = std::max(s.ctime_us, static_cast<int64_t>(r.total_ns / 1000));
    s.wait_us = static_cast<int64_t>(r.wait_ns / 1000);
    s.log_index = i;
    samples.push_back(s);
  }
  std::sort(samples.begin(), samples.end(), [&log](const AbSample& a, const AbSample& b) {
    const auto key = [](const AbSample& s) {
      return std::make_tuple(total_of(s), wait_of(s), processing_of(s), ctime_of(s));
    };
    if (key(a) != key(b)) return key(a) < key(b);
    const RequestRecord& ra = log[a.log_index];
    const RequestRecord& rb = log[b.log_index];
    const uint64_t end_a = ra.start_unix_ns + ra.total_ns;
    const uint64_t end_b = rb.start_unix_ns + rb.total_ns;
    return end_a != end_b ? end_a < end_b : a.log_index < b.log_index;
  });
  return samples;
}

AbFailures ab_failures(const AbRun& run, bool variable_length) {
  const Counters& c = run.result.counters;
  AbFailures f;
  f.connect = c.error(ErrorClass::kConnect);
  f.receive =
      c.error(ErrorClass::kRead) + c.error(ErrorClass::kParse) + c.error(ErrorClass::kStream);
  f.exceptions = c.error(ErrorClass::kTimeout) + c.error(ErrorClass::kWrite);
  if (!variable_length) {
    const uint64_t expected =
        run.document_length >= 0 ? static_cast<uint64_t>(run.document_length) : 0;
    for (const RequestRecord& r : run.request_log) {
      if (r.body_bytes != expected) ++f.length;
    }
  }
  return f;
}

uint64_t ab_keep_alive_requests(const AbRun& run, uint32_t connections) {
  uint64_t fresh = 0;
  for (const RequestRecord& r : run.request_log) {
    if (r.connect_ns > 0) ++fresh;
  }
  const uint64_t done = run.request_log.size();
  if (fresh >= done) return 0;  // no connection carried a second request
  const uint64_t closed_by_server = fresh > connections ? fresh - connections : 0;
  return done - closed_by_server;
}

std::string ab_server_software(std::string_view server_field) {
  std::string name;
  for (char ch : server_field) {
    // ab copies while the (signed) char is above 32: a space, a control or a non-ASCII byte ends
    // it.
    if (static_cast<signed char>(ch) <= 32 || name.size() >= kAbMaxServerNameBytes) break;
    name += ch;
  }
  return name;
}

std::string render_ab_report(const AbRun& run, const std::vector<AbSample>& samples,
                             const AbReportOptions& o) {
  const RunResult& result = run.result;
  const Counters& c = result.counters;
  const double taken_s = result.duration_s();
  const auto done = static_cast<uint64_t>(samples.size());
  std::string out = "\n\n";
  append(out, "Server Software:        %s\n", ab_server_software(run.server_software).c_str());
  append(out, "Server Hostname:        %s\n", o.hostname.c_str());
  append(out, "Server Port:            %hu\n", o.port);
  if (!o.ssl_protocol.empty()) append(out, "SSL/TLS Protocol:       %s\n", o.ssl_protocol.c_str());
  if (!o.server_temp_key.empty()) {
    append(out, "Server Temp Key:        %s\n", o.server_temp_key.c_str());
  }
  if (!o.tls_server_name.empty()) {
    append(out, "TLS Server Name:        %s\n", o.tls_server_name.c_str());
  }
  out += "\n";
  out += "Document Path:          " + o.path + "\n";
  if (o.variable_length) {
    out += "Document Length:        Variable\n";
  } else {
    append(out, "Document Length:        %lld bytes\n",
           ll(std::max<int64_t>(run.document_length, 0)));
  }
  out += "\n";
  append(out, "Concurrency Level:      %d\n", o.concurrency);
  append(out, "Time taken for tests:   %.3f seconds\n", taken_s);
  append(out, "Complete requests:      %llu\n", static_cast<unsigned long long>(done));
  const AbFailures failures = ab_failures(run, o.variable_length);
  append(out, "Failed requests:        %llu\n", static_cast<unsigned long long>(failures.total()));
  if (failures.total() > 0) {
    append(out, "   (Connect: %llu, Receive: %llu, Length: %llu, Exceptions: %llu)\n",
           static_cast<unsigned long long>(failures.connect),
           static_cast<unsigned long long>(failures.receive),
           static_cast<unsigned long long>(failures.length),
           static_cast<unsigned long long>(failures.exceptions));
  }
  if (const uint64_t writes = c.error(ErrorClass::kWrite); writes > 0) {
    append(out, "Write errors:           %llu\n", static_cast<unsigned long long>(writes));
  }
  uint64_t non_2xx = 0;
  for (const auto& [status, count] : result.status_codes) {
    if (status < 200 || status > 299) non_2xx += count;
  }
  if (non_2xx > 0) {
    append(out, "Non-2xx responses:      %llu\n", static_cast<unsigned long long>(non_2xx));
  }
  if (o.keep_alive) {
    append(out, "Keep-Alive requests:    %llu\n",
           static_cast<unsigned long long>(
               ab_keep_alive_requests(run, static_cast<uint32_t>(o.concurrency))));
  }
  uint64_t body_bytes = 0;
  for (const RequestRecord& r : run.request_log) body_bytes += r.body_bytes;
  const auto read = static_cast<unsigned long long>(c.bytes_read);
  const auto sent = static_cast<unsigned long long>(c.bytes_written);
  append(out, "Total transferred:      %llu bytes\n", read);
  if (o.send_body) append(out, "Total body sent:        %llu\n", sent);
  append(out, "HTML transferred:       %llu bytes\n", static_cast<unsigned long long>(body_bytes));
  if (taken_s > 0 && done > 0) {
    const auto n = static_cast<double>(done);
    append(out, "Requests per second:    %.2f [#/sec] (mean)\n", n / taken_s);
    append(out, "Time per request:       %.3f [ms] (mean)\n",
           static_cast<double>(o.concurrency) * taken_s * 1000 / n);
    append(out, "Time per request:       %.3f [ms] (mean, across all concurrent requests)\n",
           taken_s * 1000 / n);
    append(out, "Transfer rate:          %.2f [Kbytes/sec] received\n",
           static_cast<double>(read) / 1024 / taken_s);
    if (o.send_body) {
      append(out, "                        %.2f kb/s sent\n",
             static_cast<double>(sent) / 1024 / taken_s);
      append(out, "                        %.2f kb/s total\n",
             static_cast<double>(read + sent) / 1024 / taken_s);
    }
  }
  if (done == 0) return out;

  TimesRow connect = times_row(samples, ctime_of);
  TimesRow processing = times_row(samples, processing_of);
  TimesRow waiting = times_row(samples, wait_of);
  TimesRow total = times_row(samples, total_of);
  std::vector<int64_t> scratch;
  scratch.reserve(samples.size());
  connect.median = round_ms(ab_median(samples, ctime_of, scratch));
  processing.median = round_ms(ab_median(samples, processing_of, scratch));
  waiting.median = round_ms(ab_median(samples, wait_of, scratch));
  total.median = round_ms(ab_median(samples, total_of, scratch));

  out += "\nConnection Times (ms)\n";
  const std::pair<const char*, const TimesRow*> rows[] = {{"Connect:    ", &connect},
                                                          {"Processing: ", &processing},
                                                          {"Waiting:    ", &waiting},
                                                          {"Total:      ", &total}};
  if (o.confidence) {
    out += "              min  mean[+/-sd] median   max\n";
    for (const auto& [label, row] : rows) {
      append(out, "%s%5lld %4lld %5.1f %6lld %7lld\n", label, ll(row->min), ll(row->mean), row->sd,
             ll(row->median), ll(row->max));
    }
    sanity(out, "the initial connection time", connect);
    sanity(out, "the processing time", processing);
    sanity(out, "the waiting time", waiting);
    sanity(out, "the total time", total);
  } else {
    out += "              min   avg   max\n";
    for (const auto& [label, row] : rows) {
      append(out, "%s%5lld %5lld%5lld\n", label, ll(row->min), ll(row->mean), ll(row->max));
    }
  }

  if (o.percentiles && done > 1) {
    out += "\nPercentage of the requests served within a certain time (ms)\n";
    for (int percent : kAbPercentiles) {
      if (percent >= 100) {
        append(out, " 100%%  %5lld (longest request)\n", ll(round_ms(samples[done - 1].time_us)));
      } else {
        const uint64_t index = done * static_cast<uint64_t>(percent) / 100;
        append(out, "  %d%%  %5lld\n", percent, ll(round_ms(samples[index].time_us)));
      }
    }
  }
  return out;
}

std::string render_ab_html_copyright() {
  return "<p>\n"
         " This is ApacheBench, Version 2.3 <i>&lt;$Revision$&gt;</i><br>\n"
         " Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/<br>\n"
         " Licensed to The Apache Software Foundation, http://www.apache.org/<br>\n"
         "</p>\n<p>\n";
}

std::string render_ab_html_report(const AbRun& run, const std::vector<AbSample>& samples,
                                  const AbReportOptions& o, const AbHtmlAttributes& html) {
  const RunResult& result = run.result;
  const Counters& c = result.counters;
  const double taken_s = result.duration_s();
  const auto done = static_cast<int64_t>(samples.size());
  const char* tr = html.tr.c_str();
  const char* td = html.td.c_str();
  std::string out = "\n\n<table " + html.table + ">\n";
  // One "<tr><th colspan=2>label</th><td colspan=2>value</td></tr>" row.
  auto row = [&out, tr, td](const char* label, const std::string& value) {
    out += std::string("<tr ") + tr + "><th colspan=2 " + td + ">" + label + "</th><td colspan=2 " +
           td + ">" + value + "</td></tr>\n";
  };
  auto number = [](const char* fmt, auto value) { return string_printf(fmt, value); };
  row("Server Software:", ab_server_software(run.server_software));
  row("Server Hostname:", o.hostname);
  row("Server Port:", std::to_string(o.port));
  row("Document Path:", o.path);
  row("Document Length:",
      o.variable_length ? std::string("Variable")
                        : std::to_string(std::max<int64_t>(run.document_length, 0)) + " bytes");
  row("Concurrency Level:", std::to_string(o.concurrency));
  row("Time taken for tests:", number("%.3f", taken_s) + " seconds");
  row("Complete requests:", std::to_string(done));
  const AbFailures failures = ab_failures(run, o.variable_length);
  row("Failed requests:", std::to_string(failures.total()));
  if (failures.total() > 0) {
    append(
        out,
        "<tr %s><td colspan=4 %s >   (Connect: %llu, Length: %llu, Exceptions: %llu)</td></tr>\n",
        tr, td, static_cast<unsigned long long>(failures.connect),
        static_cast<unsigned long long>(failures.length),
        static_cast<unsigned long long>(failures.exceptions));
  }
  uint64_t non_2xx = 0;
  for (const auto& [status, count] : result.status_codes) {
    if (status < 200 || status > 299) non_2xx += count;
  }
  if (non_2xx > 0) row("Non-2xx responses:", std::to_string(non_2xx));
  if (o.keep_alive) {
    row("Keep-Alive requests:",
        std::to_string(ab_keep_alive_requests(run, static_cast<uint32_t>(o.concurrency))));
  }
  uint64_t body_bytes = 0;
  for (const RequestRecord& r : run.request_log) body_bytes += r.body_bytes;
  row("Total transferred:", std::to_string(c.bytes_read) + " bytes");
  if (o.send_body) row("Total body sent:", std::to_string(c.bytes_written));
  row("HTML transferred:", std::to_string(body_bytes) + " bytes");
  if (taken_s > 0) {
    row("Requests per second:", number("%.2f", static_cast<double>(done) / taken_s));
    row("Transfer rate:",
        number("%.2f", static_cast<double>(c.bytes_read) / 1024 / taken_s) + " kb/s received");
    if (o.send_body) {
      const double sent = static_cast<double>(c.bytes_written) / 1024 / taken_s;
      const double all = static_cast<double>(c.bytes_read + c.bytes_written) / 1024 / taken_s;
      append(out, "<tr %s><td colspan=2 %s>&nbsp;</td><td colspan=2 %s>%.2f kb/s sent</td></tr>\n",
             tr, td, td, sent);
      append(out, "<tr %s><td colspan=2 %s>&nbsp;</td><td colspan=2 %s>%.2f kb/s total</td></tr>\n",
             tr, td, td, all);
    }
  }
  if (done > 0) {
    int64_t min_connect = std::numeric_limits<int64_t>::max();
    int64_t min_total = std::numeric_limits<int64_t>::max();
    int64_t max_connect = 0;
    int64_t max_total = 0;
    int64_t sum_connect = 0;
    int64_t sum_total = 0;
    for (const AbSample& s : samples) {
      min_connect = std::min(min_connect, s.ctime_us);
      min_total = std::min(min_total, s.time_us);
      max_connect = std::max(max_connect, s.ctime_us);
      max_total = std::max(max_total, s.time_us);
      sum_connect += s.ctime_us;
      sum_total += s.time_us;
    }
    // As ab: the sums are rounded to milliseconds before they are divided.
    min_connect = round_ms(min_connect);
    min_total = round_ms(min_total);
    max_connect = round_ms(max_connect);
    max_total = round_ms(max_total);
    sum_connect = round_ms(sum_connect);
    sum_total = round_ms(sum_total);
    append(out, "<tr %s><th %s colspan=4>Connection Times (ms)</th></tr>\n", tr, td);
    append(out,
           "<tr %s><th %s>&nbsp;</th> <th %s>min</th>   <th %s>avg</th>   <th %s>max</th></tr>\n",
           tr, td, td, td, td);
    const char* kRow =
        "<tr %s><th %s>%s</th><td %s>%5lld</td><td %s>%5lld</td><td %s>%5lld</td></tr>\n";
    append(out, kRow, tr, td, "Connect:", td, ll(min_connect), td, ll(sum_connect / done), td,
           ll(max_connect));
    append(out, kRow, tr, td, "Processing:", td, ll(min_total - min_connect), td,
           ll(sum_total / done - sum_connect / done), td, ll(max_total - max_connect));
    append(out, kRow, tr, td, "Total:", td, ll(min_total), td, ll(sum_total / done), td,
           ll(max_total));
  }
  out += "</table>\n";
  return out;
}

std::string render_ab_csv(const std::vector<AbSample>& samples) {
  std::string out = "Percentage served,Time in ms\n";
  if (samples.empty()) return out;
  const size_t done = samples.size();
  for (int i = 0; i <= 100; ++i) {
    size_t index = 0;
    if (i == 100) {
      index = done - 1;
    } else if (i > 0) {
      index = static_cast<size_t>(0.5 + static_cast<double>(done) * i / 100.0);
    }
    index = std::min(index, done - 1);
    append(out, "%d,%.3f\n", i, double_ms(static_cast<double>(samples[index].time_us)));
  }
  return out;
}

std::string render_ab_gnuplot(const std::vector<AbSample>& samples) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  std::string out = "starttime\tseconds\tctime\tdtime\tttime\twait\n";
  for (const AbSample& s : samples) {
    const auto seconds = static_cast<time_t>(s.start_us / 1'000'000);
    tm local{};
    localtime_r(&seconds, &local);
    // apr_ctime: like ctime(3), but the day of the month is zero-padded.
    append(out, "%s %s %02d %02d:%02d:%02d %d\t%lld\t%lld\t%lld\t%lld\t%lld\n",
           kDays[local.tm_wday], kMonths[local.tm_mon], local.tm_mday, local.tm_hour, local.tm_min,
           local.tm_sec, local.tm_year + 1900, ll(s.start_us / 1'000'000), ll(round_ms(s.ctime_us)),
           ll(round_ms(s.time_us - s.ctime_us)), ll(round_ms(s.time_us)), ll(round_ms(s.wait_us)));
  }
  return out;
}

}  // namespace hail
