// The --monitor parts of the reports: the time-series columns (one per source and metric, the
// sample taken at each window's end, empty when not measured), the JSON "monitors" read back
// exactly by hail report, and the text's server lines.
#include <gtest/gtest.h>

#include <string>

#include "report/json_reader.h"
#include "report/json_report.h"
#include "report/monitor_report.h"
#include "report/text_report.h"
#include "report/timeseries_writer.h"

namespace hail {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;

RunResult run_with_monitor() {
  RunResult r;
  r.url = "http://127.0.0.1:1/";
  r.interval_ns = kSecond;
  r.duration_ns = 3 * kSecond;
  r.target_unit = "connections";
  MonitorSeries s;
  s.source = "name:nginx";
  s.kind = "process";
  s.metrics = {"cpu_core_pct", "rss_bytes"};
  for (uint64_t i = 0; i < 3; ++i) {
    WindowStats w;
    w.start_ns = i * kSecond;
    w.end_ns = (i + 1) * kSecond;
    w.sources = 1;
    r.intervals.push_back(w);
    // Samples a few ms late, as the supervising thread takes them.
    MonitorWindow m;
    m.start_ns = i == 0 ? 0 : i * kSecond + 3'000'000;
    m.end_ns = (i + 1) * kSecond + 3'000'000;
    m.values = {12.5 + static_cast<double>(i), i == 2 ? kNoValue : 1048576.0};
    s.windows.push_back(m);
  }
  s.events.push_back({2 * kSecond, "exited (no process named \"nginx\" left)"});
  r.monitors.push_back(s);
  return r;
}

TEST(MonitorReport, TimeseriesColumns) {
  const std::string csv = render_timeseries_csv(run_with_monitor());
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",name_nginx.cpu_core_pct,name_nginx.rss_bytes"), std::string::npos)
      << header;
  EXPECT_NE(csv.find(",12.500,1048576.000\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",14.500,\n"), std::string::npos) << csv;  // not measured: an empty cell
}

TEST(MonitorReport, WindowAlignment) {
  const MonitorSeries s = run_with_monitor().monitors[0];
  EXPECT_EQ(monitor_window_at(s, 2 * kSecond, kSecond), &s.windows[1]);
  EXPECT_EQ(monitor_window_at(s, 10 * kSecond, kSecond), nullptr);
  EXPECT_EQ(monitor_column(s, "rss_bytes"), "name_nginx.rss_bytes");
}

TEST(MonitorReport, JsonRoundTripAndText) {
  const RunResult r = run_with_monitor();
  auto back = read_result_json(render_json_report(r));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->monitors.size(), 1u);
  const MonitorSeries& s = back->monitors[0];
  EXPECT_EQ(s.source, "name:nginx");
  EXPECT_EQ(s.metrics, r.monitors[0].metrics);
  ASSERT_EQ(s.windows.size(), 3u);
  EXPECT_EQ(s.windows[1].end_ns, 2 * kSecond + 3'000'000);
  EXPECT_EQ(s.windows[1].values[0], 13.5);
  EXPECT_FALSE(has_value(s.windows[2].values[1]));
  ASSERT_EQ(s.events.size(), 1u);
  EXPECT_EQ(s.events[0].at_ns, 2 * kSecond);
  const std::string text = render_monitors_text(r);
  EXPECT_NE(text.find("    name:nginx: CPU mean 13.5% max 14.5% of one core"), std::string::npos)
      << text;
  EXPECT_NE(text.find("      at 2.0 s: exited (no process named \"nginx\" left)"),
            std::string::npos)
      << text;
  EXPECT_EQ(render_monitors_text(back.value()), text);
}

}  // namespace
}  // namespace hail
