// ApacheBench 2.3's output on hail's run results, byte for byte in layout and number formatting:
// header, -v 2's request, "Benchmarking" line, report (its tables computed from the request log
// as ab computes them), HTML report, -e (CSV) and -g (gnuplot) files. Owner: report. Pure
// functions of their arguments (the gnuplot file uses the local time zone, as ab does); any
// thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stats/request_log.h"
#include "stats/run_result.h"

namespace hail {

// "This is ApacheBench, Version 2.3 <$Revision$>" and the two copyright lines, then an empty line:
// ab prints them before every run, and alone for -V.
std::string render_ab_copyright();

// What ab -v 2 (and higher) prints before the run: "INFO: GET header == ", then the request's
// head exactly as sent (its request line, fields and empty line) between "---" lines.
std::string render_ab_request_info(std::string_view method, std::string_view head);

// "Benchmarking HOST [through PROXY:PORT] (be patient)", then a newline when progress lines will
// follow on stderr (ab's "Completed N requests"), else "...". proxy_host empty: no proxy.
std::string render_ab_benchmarking(std::string_view hostname, std::string_view proxy_host,
                                   int proxy_port, bool progress_lines);
// What follows when the run ends: "..done\n" on stdout without progress lines (with them, ab
// writes "Finished N requests" on stderr instead).
inline constexpr std::string_view kAbDone = "..done\n";

// What ab's report is made of: hail's result, and what ab's front-end collected during the run
// (load/collectors.h): every measured request's record, in order of start, and the first
// response's Server field and body length (-1: no response was seen).
struct AbRun {
  const RunResult& result;
  const std::vector<RequestRecord>& request_log;
  std::string_view server_software;
  int64_t document_length = -1;
};

// One request as ab's `struct data` keeps it, in microseconds (ab's clock).
struct AbSample {
  int64_t start_us = 0;  // wall clock, since the epoch
  int64_t ctime_us = 0;  // connect
  int64_t time_us = 0;   // start -> response complete
  int64_t wait_us = 0;   // request written -> first response byte
  size_t log_index = 0;  // position in the request log it came from
};

// The request log as ab's array ends up after its report: in order of completion, then sorted by
// connect, processing, waiting and total time in turn (stably, as glibc's qsort sorts), so the
// last order, which the -g file shows, is by total time.
std::vector<AbSample> ab_samples(const std::vector<RequestRecord>& log);

// ab's failure classes. Connect: connections that could not be opened; Receive: the connection
// broke or the response was malformed; Length: a body length unlike the first response's (not
// with -l); Exceptions: hail's per-request timeouts and failed writes (ab has neither: it stops
// the whole test on a timeout, and counts a failed write as its own line).
struct AbFailures {
  uint64_t connect = 0;
  uint64_t receive = 0;
  uint64_t length = 0;
  uint64_t exceptions = 0;
  uint64_t total() const { return connect + receive + length + exceptions; }
};
AbFailures ab_failures(const AbRun& run, bool variable_length);

// "Keep-Alive requests": responses after which the connection stayed open. hail's log says which
// requests reused a connection; the responses that ended a connection are its fresh connects
// beyond one per connection slot (or all of them when no connection was ever reused).
uint64_t ab_keep_alive_requests(const AbRun& run, uint32_t connections);

struct AbReportOptions {
  std::string hostname;  // Server Hostname
  uint16_t port = 0;
  std::string path;             // Document Path, as typed
  std::string ssl_protocol;     // "TLSv1.3,TLS_AES_256_GCM_SHA384,2048,256"; empty: no line
  std::string server_temp_key;  // "X25519 253 bits"; empty: no line
  std::string tls_server_name;  // empty: no line
  int concurrency = 1;
  bool keep_alive = false;       // -k: the Keep-Alive requests line
  bool variable_length = false;  // -l
  bool percentiles = true;       // not -d
  bool confidence = true;        // not -S
  bool send_body = false;        // -p / -u: the "sent" lines
};

// Everything ab prints from the two empty lines after "..done" to the end of its report.
std::string render_ab_report(const AbRun& run, const std::vector<AbSample>& samples,
                             const AbReportOptions& options);

// -w (or -x, -y, -z): ab's HTML output. Its header replaces the plain one (and there is no
// "Benchmarking" line); its table replaces the report. The attributes go into every <table>,
// <tr> and <th>/<td> tag as typed.
struct AbHtmlAttributes {
  std::string table;                 // -x
  std::string tr;                    // -y
  std::string td = "bgcolor=white";  // -z
};
std::string render_ab_html_copyright();
std::string render_ab_html_report(const AbRun& run, const std::vector<AbSample>& samples,
                                  const AbReportOptions& options, const AbHtmlAttributes& html);

// -e FILE: "Percentage served,Time in ms" and one row per percent, 0 to 100. ab reads past its
// array for the top rows of a run of 50 requests or fewer; hail shows the longest request there.
std::string render_ab_csv(const std::vector<AbSample>& samples);
// -g FILE: a header and one tab-separated row per request (apr_ctime's local time, Unix seconds,
// then ctime, dtime, ttime and wait in whole milliseconds), in the samples' order.
std::string render_ab_gnuplot(const std::vector<AbSample>& samples);

// ab's server name rule: the Server field up to its first space, control or non-ASCII byte.
std::string ab_server_software(std::string_view server_field);

}  // namespace hail
