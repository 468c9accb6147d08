#include "report/timeseries_writer.h"

#include <cstdio>

#include "core/ascii.h"
#include "core/strings.h"
#include "report/json_writer.h"
#include "report/monitor_report.h"

namespace hail {

namespace {

// One field of an interval row. Numbers print with three decimals (as JsonWriter does); an absent
// value is null in JSON and an empty cell in CSV.
struct Field {
  enum class Kind { kDecimal, kCount, kFlag, kAbsent };
  Kind kind = Kind::kAbsent;
  double decimal = 0;
  uint64_t count = 0;
  bool flag = false;
};

Field decimal(double v) {
  Field f;
  f.kind = Field::Kind::kDecimal;
  f.decimal = v;
  return f;
}
Field count(uint64_t v) {
  Field f;
  f.kind = Field::Kind::kCount;
  f.count = v;
  return f;
}
Field flag(bool v) {
  Field f;
  f.kind = Field::Kind::kFlag;
  f.flag = v;
  return f;
}
Field absent() {
  return Field{};
}

double seconds(uint64_t ns) {
  return static_cast<double>(ns) / 1e9;
}
double micros(uint64_t ns) {
  return static_cast<double>(ns) / 1e3;
}

// The single definition of the row: every column, in order. Calls emit(key, field) for each; the
// CSV header, CSV rows and JSON objects all come from here.
template <class Emit>
void for_each_field(const RunResult& r, const WindowStats& w, bool has_target, Emit&& emit) {
  emit("t_start_s", decimal(seconds(w.start_ns)));
  emit("t_end_s", decimal(seconds(w.end_ns)));
  emit("warmup", flag(w.warmup));
  emit("completed", count(w.completed));
  emit("requests_per_s", decimal(w.requests_per_s()));
  emit("errors", count(w.error_total()));
  for (size_t i = 0; i < kErrorClassCount; ++i) {
    const std::string key = std::string("errors_") + error_class_name(static_cast<ErrorClass>(i));
    emit(key, count(w.errors[i]));
  }
  emit("status_errors", count(w.status_errors));
  const bool has_latency = w.completed > 0;
  emit("latency_p50_us", has_latency ? decimal(micros(w.p50_ns)) : absent());
  emit("latency_p90_us", has_latency ? decimal(micros(w.p90_ns)) : absent());
  emit("latency_p99_us", has_latency ? decimal(micros(w.p99_ns)) : absent());
  emit("latency_max_us", has_latency ? decimal(micros(w.max_ns)) : absent());
  emit("open_connections", count(w.open_connections));
  emit("target", has_target ? decimal(w.target_end) : absent());
  // --monitor: the sample taken at this window's end, one column per source and metric.
  for (const MonitorSeries& m : r.monitors) {
    const MonitorWindow* row = monitor_window_at(m, w.end_ns, r.interval_ns);
    for (size_t i = 0; i < m.metrics.size(); ++i) {
      const bool known = row != nullptr && i < row->values.size() && has_value(row->values[i]);
      emit(monitor_column(m, m.metrics[i]), known ? decimal(row->values[i]) : absent());
    }
  }
}

bool run_has_target(const RunResult& r) {
  return r.target_unit != nullptr && r.target_unit[0] != '\0';
}

void append_csv_cell(std::string& out, const Field& f) {
  switch (f.kind) {
    case Field::Kind::kDecimal:
      out += string_printf("%.3f", f.decimal);
      break;
    case Field::Kind::kCount:
      out += std::to_string(f.count);
      break;
    case Field::Kind::kFlag:
      out += f.flag ? '1' : '0';
      break;
    case Field::Kind::kAbsent:
      break;
  }
}

}  // namespace

Result<TimeseriesFormat> timeseries_format_for_path(std::string_view path) {
  if (ascii::iends_with(path, ".csv")) return TimeseriesFormat::kCsv;
  for (std::string_view ext : {".jsonl", ".ndjson", ".json"}) {
    if (ascii::iends_with(path, ext)) return TimeseriesFormat::kJsonLines;
  }
  return make_error("--timeseries " + quote(path) + ": unknown file type (use .csv or .jsonl)");
}

void write_interval_json(JsonWriter& j, const RunResult& result, const WindowStats& w) {
  j.begin_object();
  for_each_field(result, w, run_has_target(result), [&j](std::string_view key, const Field& f) {
    switch (f.kind) {
      case Field::Kind::kDecimal:
        j.value(key, f.decimal);
        break;
      case Field::Kind::kCount:
        j.value(key, f.count);
        break;
      case Field::Kind::kFlag:
        j.value(key, f.flag);
        break;
      case Field::Kind::kAbsent:
        j.null(key);
        break;
    }
  });
  j.end_object();
}

std::string render_timeseries_csv(const RunResult& result) {
  std::string out;
  bool first = true;
  for_each_field(result, WindowStats{}, true, [&](std::string_view key, const Field&) {
    if (!first) out.push_back(',');
    first = false;
    out += key;
  });
  out.push_back('\n');
  const bool has_target = run_has_target(result);
  for (const WindowStats& w : result.intervals) {
    first = true;
    for_each_field(result, w, has_target, [&](std::string_view, const Field& f) {
      if (!first) out.push_back(',');
      first = false;
      append_csv_cell(out, f);
    });
    out.push_back('\n');
  }
  return out;
}

std::string render_timeseries_jsonl(const RunResult& result) {
  std::string out;
  for (const WindowStats& w : result.intervals) {
    JsonWriter j(0);  // compact: one object per line
    write_interval_json(j, result, w);
    out += j.str();
    out.push_back('\n');
  }
  return out;
}

}  // namespace hail
