#include "report/json_reader.h"

#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/units.h"
#include "report/json_exact.h"
#include "report/json_machine.h"
#include "report/json_node.h"
#include "report/json_report.h"
#include "report/json_shard.h"
#include "stats/hdr_string.h"
#include "stats/histogram_codec.h"

namespace hail {

namespace {

using Json = nlohmann::json;

// hail/2 documents nest 6 levels deep; a file nesting far deeper is not one, and is refused while
// it is parsed rather than built into a deep tree.
constexpr int kMaxDepth = 32;
// Linux's errno values end at 133; an errno field is any small non-negative number.
constexpr uint64_t kMaxErrno = 4095;
constexpr int kMaxStatusCode = 999;
// A run's times are bounded so that a start plus a warm-up plus a duration cannot overflow:
// wall-clock times up to 2^63 - 1 ns (year 2262), spans up to kMaxDurationNs (100 years). (Windows
// are not: a merge checks its sums of them.)
constexpr uint64_t kMaxUnixNs = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

uint64_t span_ns(const JsonNode& node, std::string_view key) {
  return node.at(key).u64_at_most(kMaxDurationNs);
}

// Histograms are decoded through one dense scratch histogram, reset after each, rather than one
// new mapping per histogram (a long run has tens of thousands of windows).
class HistogramReader {
 public:
  EncodedHistogram encoded(const JsonNode& node);
  Histogram dense(const JsonNode& node) { return encoded(node).decode(); }

 private:
  Histogram scratch_;
  std::vector<uint8_t> payload_;
};

// {"count", "min_ns", "max_ns", "out_of_range", "hdr"}: the string's counts, with the extremes
// and the out-of-range count checked against them (EncodedHistogram::from_parts).
EncodedHistogram HistogramReader::encoded(const JsonNode& node) {
  const uint64_t count = node.u64("count");
  const uint64_t min_ns = node.u64("min_ns");
  const uint64_t max_ns = node.u64("max_ns");
  const uint64_t out_of_range = node.u64("out_of_range");
  const JsonNode hdr = node.at("hdr");
  if (Status st = decode_histf(hdr.string(), scratch_); !st) hdr.fail(st.error().message);
  const uint64_t decoded = scratch_.count();
  payload_.clear();
  encode_counts(scratch_, payload_);
  scratch_.reset();
  if (decoded != count) {
    node.at("count").fail(std::to_string(count) + " disagrees with the " + std::to_string(decoded) +
                          " values of hdr");
  }
  auto parts = EncodedHistogram::from_parts(payload_, min_ns, max_ns, out_of_range);
  if (!parts) {
    std::string message = parts.error().message;
    if (message.starts_with("histogram: ")) message.erase(0, 11);
    node.fail(message);
  }
  return std::move(parts.value());
}

void check_schema(const JsonNode& doc) {
  const std::optional<JsonNode> schema = doc.find("schema");
  if (!schema) doc.fail("no \"schema\" key: not a hail JSON report");
  const std::string& name = schema->string();
  if (name == kJsonSchema) return;
  if (name == "hail/1") {
    schema->fail("hail/1 has no histograms to read back; this hail reads " +
                 std::string(kJsonSchema) + " (run again with this version)");
  }
  schema->fail("unknown schema " + quote(name) + " (this hail reads " + std::string(kJsonSchema) +
               ")");
}

// The layout must be exactly this hail's: other layouts cannot be merged or re-rendered exactly.
void check_layout(const JsonNode& layout) {
  const auto expect_text = [&layout](std::string_view key, std::string_view want) {
    const JsonNode node = layout.at(key);
    if (node.string() != want) {
      node.fail("histograms of layout " + quote(node.string()) + " (this hail reads " +
                quote(want) + ")");
    }
  };
  const auto expect_number = [&layout](std::string_view key, uint64_t want) {
    const JsonNode node = layout.at(key);
    if (node.u64() != want) {
      node.fail("histograms of another layout (" + std::to_string(node.u64()) +
                "; this hail's is " + std::to_string(want) + ")");
    }
  };
  expect_text("format", kHistogramFormat);
  expect_text("unit", kHistogramUnit);
  expect_number("lowest_discernible_value", kHistogramLowestDiscernible);
  expect_number("highest_trackable_value", kHistogramHighestTrackable);
  expect_number("significant_digits", kHistogramSignificantDigits);
}

std::optional<ErrorClass> error_class_named(std::string_view name) {
  for (size_t c = 0; c < kErrorClassCount; ++c) {
    if (name == error_class_name(static_cast<ErrorClass>(c))) return static_cast<ErrorClass>(c);
  }
  return std::nullopt;
}

// {"connect": N, ...}: every class when `all`, else the classes present (the others are 0).
std::array<uint64_t, kErrorClassCount> read_class_counts(const JsonNode& node, bool all) {
  std::array<uint64_t, kErrorClassCount> out{};
  node.expect_object();
  for (const auto& item : node.json().items()) {
    const JsonNode value(item.value(), node.path() + "." + item.key());
    const std::optional<ErrorClass> c = error_class_named(item.key());
    if (!c) value.fail("unknown error class");
    out[static_cast<size_t>(*c)] = value.u64();
  }
  if (all) {
    for (size_t c = 0; c < kErrorClassCount; ++c) {
      (void)node.at(error_class_name(static_cast<ErrorClass>(c)));
    }
  }
  return out;
}

// {"200": N, ...}: codes as the writer prints them (no sign, no leading zero).
std::map<int, uint64_t> read_status_codes(const JsonNode& node) {
  std::map<int, uint64_t> out;
  node.expect_object();
  for (const auto& item : node.json().items()) {
    const std::string& key = item.key();
    const JsonNode value(item.value(), node.path() + "." + key);
    const bool digits = !key.empty() && key.size() <= 3 &&
                        key.find_first_not_of("0123456789") == std::string::npos &&
                        (key.size() == 1 || key[0] != '0');
    if (!digits || std::stoi(key) > kMaxStatusCode) value.fail("not a status code");
    out[std::stoi(key)] = value.u64();
  }
  return out;
}

Counters read_counters(const JsonNode& node) {
  Counters c;
  for (const CounterKey& k : kCounterKeys) c.*k.member = node.u64(k.key);
  c.errors = read_class_counts(node.at("errors"), true);
  return c;
}

std::vector<ErrorReasonCount> read_error_reasons(const JsonNode& list) {
  std::vector<ErrorReasonCount> rows;
  const size_t n = list.array_size();
  for (size_t i = 0; i < n; ++i) {
    const JsonNode row = list.element(i);
    ErrorReasonCount r;
    const JsonNode label = row.at("class");
    if (label.string() == error_reason_class_label(ErrorClass::kCount)) {
      r.error_class = ErrorClass::kCount;
    } else if (std::optional<ErrorClass> c = error_class_named(label.string())) {
      r.error_class = *c;
    } else {
      label.fail("unknown error class");
    }
    r.reason = row.string("reason");
    r.errno_value = static_cast<int>(row.at("errno").u64_at_most(kMaxErrno));
    r.count = row.u64("count");
    merge_error_reasons(rows, {r});  // keeps the reports' order whatever the file's
  }
  return rows;
}

ProtocolSet read_protocols(const JsonNode& list) {
  ProtocolSet set;
  const size_t n = list.array_size();
  for (size_t i = 0; i < n; ++i) {
    const JsonNode name = list.element(i);
    bool known = false;
    for (WireProtocol p : {WireProtocol::kHttp09, WireProtocol::kHttp10, WireProtocol::kHttp11,
                           WireProtocol::kHttp2}) {
      if (name.string() == wire_protocol_name(p)) {
        set.add(p);
        known = true;
      }
    }
    if (!known) name.fail("unknown protocol " + quote(name.string()));
  }
  return set;
}

// RunResult keeps the unit as a static string: one of the runner's.
const char* read_target_unit(const JsonNode& node) {
  for (const char* unit : {"", "connections", "req/s"}) {
    if (node.string() == unit) return unit;
  }
  node.fail("unknown target unit " + quote(node.string()));
}

// A window's or a tag's "completed" is its latency histogram's count, exactly.
void check_latency_count(const JsonNode& node, uint64_t histogram_count, uint64_t completed) {
  if (histogram_count == completed) return;
  node.at("completed")
      .fail("disagrees with the latency histogram's count (" + std::to_string(histogram_count) +
            ")");
}

WindowStats read_window(const JsonNode& node, HistogramReader& histograms) {
  WindowStats w;
  w.start_ns = node.u64("start_ns");
  w.end_ns = node.u64("end_ns");
  if (w.end_ns < w.start_ns) node.at("end_ns").fail("the window ends before it starts");
  w.warmup = node.boolean("warmup");
  w.completed = node.u64("completed");
  w.status_errors = node.u64("status_errors");
  w.errors = read_class_counts(node.at("errors"), true);
  w.open_connections = node.u64("open_connections");
  w.target_start = node.at("target_start").finite_number();
  w.target_end = node.at("target_end").finite_number();
  w.sources = node.u32("sources");
  const JsonNode hs = node.at("histograms");
  hs.expect_object();
  for (const WindowHistogramKey& k : kWindowHistogramKeys) {
    if (std::optional<JsonNode> h = hs.find(k.key)) w.*k.member = histograms.encoded(*h);
  }
  check_latency_count(node, w.latency.count(), w.completed);
  if (std::optional<JsonNode> tags = node.find("tags")) {
    const size_t n = tags->array_size();
    for (size_t i = 0; i < n; ++i) {
      const JsonNode t = tags->element(i);
      TagWindow& tw = w.tags.emplace_back();
      tw.name = t.at("name").string();
      tw.completed = t.u64("completed");
      tw.status_errors = t.u64("status_errors");
      tw.errors = read_class_counts(t.at("errors"), true);
      const JsonNode th = t.at("histograms");
      th.expect_object();
      if (std::optional<JsonNode> h = th.find("latency")) tw.latency = histograms.encoded(*h);
      check_latency_count(t, tw.latency.count(), tw.completed);
    }
  }
  w.update_percentiles();
  return w;
}

std::vector<WindowStats> read_windows(const JsonNode& list, HistogramReader& histograms) {
  std::vector<WindowStats> out;
  const size_t n = list.array_size();
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(read_window(list.element(i), histograms));
  return out;
}

std::vector<TagResult> read_tags(const JsonNode& list, HistogramReader& histograms) {
  std::vector<TagResult> out;
  const size_t n = list.array_size();
  for (size_t i = 0; i < n; ++i) {
    const JsonNode node = list.element(i);
    const JsonNode name = node.at("name");
    for (const TagResult& earlier : out) {
      if (earlier.name == name.string()) name.fail("a second tag of this name");
    }
    TagResult& t = out.emplace_back();
    t.name = name.string();
    t.completed = node.u64("completed");
    t.errors = read_class_counts(node.at("errors"), false);
    t.status_codes = read_status_codes(node.at("status"));
    if (std::optional<JsonNode> h = node.at("histograms").find("latency")) {
      t.latency = histograms.dense(*h);
    }
    check_latency_count(node, t.latency.count(), t.completed);
  }
  return out;
}

MergeSummary read_merge(const JsonNode& node) {
  MergeSummary m;
  m.start_spread_ns = node.u64("start_spread_ns");
  m.end_spread_ns = node.u64("end_spread_ns");
  m.measured_union_ns = node.u64("measured_union_ns");
  const JsonNode inputs = node.at("inputs");
  const size_t n = inputs.array_size();
  for (size_t i = 0; i < n; ++i) {
    const JsonNode in = inputs.element(i);
    m.inputs.push_back(MergedInput{in.string("file"),
                                   in.at("start_unix_ns").u64_at_most(kMaxUnixNs),
                                   span_ns(in, "warmup_ns"), span_ns(in, "duration_ns")});
  }
  return m;
}

// What was asked for, and the run's own scalars.
void read_settings(const JsonNode& doc, RunResult& r) {
  r.url = doc.string("url");
  r.method = doc.string("method");
  r.connections = doc.u32("connections");
  r.threads = doc.u32("threads");
  r.keep_alive = doc.boolean("keep_alive");
  r.interrupted = doc.boolean("interrupted");
  read_shard_fields(doc, r);
  if (std::optional<JsonNode> target = doc.at("requests").find("target")) {
    r.requests_target = target->u64();
  }
  r.start_unix_ns = doc.at("start_unix_ns").u64_at_most(kMaxUnixNs);
  r.duration_ns = span_ns(doc, "duration_ns");
  r.duration_target_ns = span_ns(doc, "duration_target_ns");
  r.warmup_ns = span_ns(doc, "warmup_ns");
  r.timeout_ns = span_ns(doc, "timeout_ns");
  r.http_minor = static_cast<int>(doc.at("http_minor").u64_at_most(1));
  r.protocols = read_protocols(doc.at("protocols"));
  r.pipeline = doc.u32("pipeline_depth");
  r.streams = doc.u32("streams_per_connection");
  // Written by hail versions that report the servers' stream limits.
  if (std::optional<JsonNode> low = doc.find("streams_effective_min"))
    r.streams_effective_min = low->u32();
  if (std::optional<JsonNode> high = doc.find("streams_effective_max"))
    r.streams_effective_max = high->u32();
  r.rate_target_per_s = doc.at("rate_target_per_s").finite_number();
  r.backlog = doc.u64("backlog");
  r.target_unit = read_target_unit(doc.at("target_unit"));
  r.ladder = doc.boolean("ladder");
  r.interval_ns = span_ns(doc, "interval_ns");
  r.max_nap_ns = span_ns(doc, "max_nap_ns");
  r.script_error = doc.string("script_error");
  if (std::optional<JsonNode> gone = doc.find("server_gone")) r.server_gone = gone->boolean();
  // Written only when --slo was given (and by hail versions that know it).
  if (std::optional<JsonNode> slo = doc.find("slo_thresholds")) {
    for (size_t i = 0, n = slo->array_size(); i < n; ++i) {
      r.slo.push_back(slo->element(i).string());
    }
  }
  if (std::optional<JsonNode> abort = doc.find("slo_abort")) r.slo_abort = abort->string();
  if (std::optional<JsonNode> tls = doc.find("tls")) {
    r.tls_version = tls->string("version");
    r.tls_cipher = tls->string("cipher");
  }
  const JsonNode client = doc.at("client");
  // The exact value (hail/2 block), else hail/1's three decimals.
  const std::optional<JsonNode> cpu = doc.find("max_worker_cpu_utilization");
  r.max_worker_cpu_utilization =
      (cpu ? *cpu : client.at("max_worker_cpu_utilization")).finite_number();
  r.naps = client.u64("naps");
  if (std::optional<JsonNode> io = client.find("io")) r.io_backend = io->string();
  r.machines = read_machines_json(doc);
  const JsonNode notes = doc.at("notes");
  for (size_t i = 0, n = notes.array_size(); i < n; ++i) {
    r.notes.push_back(notes.element(i).string());
  }
}

// Measurements: counters, status codes, reasons, histograms, windows, tags.
// "monitors" (--monitor): each source's columns, events and windows; a null value is kNoValue.
std::vector<MonitorSeries> read_monitors(const JsonNode& list) {
  std::vector<MonitorSeries> out;
  for (size_t i = 0, n = list.array_size(); i < n; ++i) {
    const JsonNode m = list.element(i);
    MonitorSeries s;
    s.source = m.string("source");
    s.kind = m.string("kind");
    const JsonNode metrics = m.at("metrics");
    for (size_t k = 0, nk = metrics.array_size(); k < nk; ++k) {
      s.metrics.push_back(metrics.element(k).string());
    }
    const JsonNode events = m.at("events");
    for (size_t k = 0, nk = events.array_size(); k < nk; ++k) {
      const JsonNode e = events.element(k);
      s.events.push_back({e.u64("at_ns"), e.string("text")});
    }
    const JsonNode windows = m.at("windows");
    for (size_t k = 0, nk = windows.array_size(); k < nk; ++k) {
      const JsonNode w = windows.element(k);
      MonitorWindow row;
      row.start_ns = w.u64("start_ns");
      row.end_ns = w.u64("end_ns");
      row.warmup = w.boolean("warmup");
      for (const std::string& metric : s.metrics) {
        const JsonNode v = w.at(metric);
        if (v.json().is_null()) {
          row.values.push_back(kNoValue);
        } else if (v.json().is_number()) {
          row.values.push_back(v.json().get<double>());
        } else {
          v.fail("expected a number or null");
        }
      }
      s.windows.push_back(std::move(row));
    }
    out.push_back(std::move(s));
  }
  return out;
}

void read_measurements(const JsonNode& doc, RunResult& r) {
  HistogramReader histograms;
  r.counters = read_counters(doc.at("counters"));
  r.status_codes = read_status_codes(doc.at("status_codes"));
  r.error_reasons = read_error_reasons(doc.at("error_reason_list"));
  const JsonNode hs = doc.at("histograms");
  check_layout(hs.at("layout"));
  for (const RunHistogramKey& k : kRunHistogramKeys) {
    if (std::optional<JsonNode> h = hs.find(k.key)) r.*k.member = histograms.dense(*h);
  }
  if (r.latency.count() != r.counters.completed) {
    doc.at("counters")
        .at("completed")
        .fail("disagrees with the latency histogram's count (" + std::to_string(r.latency.count()) +
              ")");
  }
  const JsonNode windows = doc.at("windows");
  const JsonNode intervals = windows.at("intervals");
  r.intervals = read_windows(intervals, histograms);
  if (r.interval_ns == 0 && !r.intervals.empty()) {
    intervals.fail("a time series, but interval_ns is 0");
  }
  r.steps = read_windows(windows.at("steps"), histograms);
  if (std::optional<JsonNode> tags = doc.find("tags")) r.tags = read_tags(*tags, histograms);
  if (std::optional<JsonNode> monitors = doc.find("monitors"))
    r.monitors = read_monitors(*monitors);
}

Json parse(std::string_view text) {
  const Json::parser_callback_t depth_limit = [](int depth, Json::parse_event_t, Json&) {
    if (depth > kMaxDepth) {
      throw JsonNode::Failure{"document: nested more than " + std::to_string(kMaxDepth) +
                              " levels deep: not a hail report"};
    }
    return true;
  };
  try {
    return Json::parse(text.begin(), text.end(), depth_limit);
  } catch (const Json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ...", or
    // "[json.exception.out_of_range.406] number overflow parsing '1e400'": without the library's
    // prefix, and printable whatever bytes the file had.
    std::string what = e.what();
    if (const size_t at = what.find("] "); at != std::string::npos) what.erase(0, at + 2);
    for (char& c : what) {
      if (c < 0x20 || c >= 0x7f) c = '?';
    }
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) what = "the file is empty";
    throw JsonNode::Failure{"not valid JSON: " + what};
  }
}

}  // namespace

Result<ResultDocument> read_result_document(std::string_view text) {
  try {
    const Json root = parse(text);
    const JsonNode doc(root, "");
    doc.expect_object();
    check_schema(doc);
    ResultDocument out;
    out.version = doc.string("version");
    read_settings(doc, out.result);
    read_measurements(doc, out.result);
    if (std::optional<JsonNode> merge = doc.find("merge")) out.merge = read_merge(*merge);
    if (std::optional<JsonNode> shards = doc.find("shards")) {
      out.shards = read_shards_json(*shards);
    }
    return out;
  } catch (const JsonNode::Failure& f) {
    return make_error(f.message);
  } catch (const Json::exception& e) {
    return make_error(std::string("not a hail report: ") + e.what());
  }
}

Result<RunResult> read_result_json(std::string_view text) {
  auto doc = read_result_document(text);
  if (!doc) return doc.error();
  return std::move(doc.value().result);
}

}  // namespace hail
