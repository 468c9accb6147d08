// The Prometheus text parser on a node_exporter-shaped scrape (labels, escapes, NaN, timestamps),
// malformed bodies (an HTML page, a cut line), the default node_exporter columns and the
// --monitor-metric ones; and a prom: monitor's rates over a fake endpoint, including a failed
// scrape in the middle (null row and one event) and a counter reset.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "monitor/prom_monitor.h"
#include "monitor/prom_text.h"

namespace hail {
namespace {

constexpr const char* kScrape =
    R"(# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} 100
node_cpu_seconds_total{cpu="0",mode="user"} 10
node_cpu_seconds_total{cpu="1",mode="idle"} 200
node_cpu_seconds_total{cpu="1",mode="user"} 20
# TYPE node_memory_MemAvailable_bytes gauge
node_memory_MemAvailable_bytes 5e+09
node_memory_MemTotal_bytes 8e+09
node_network_receive_bytes_total{device="eth0"} 1000
node_network_receive_bytes_total{device="lo"} 99999
node_network_transmit_bytes_total{device="eth0"} 2000
weird{path="a\"b\\c",x="y"} NaN 1700000000000
process_open_fds 12
)";

TEST(PromText, ParsesSamples) {
  auto samples = parse_prom_text(kScrape);
  ASSERT_TRUE(samples) << samples.error().message;
  ASSERT_EQ(samples->size(), 11u);
  EXPECT_EQ((*samples)[0].name, "node_cpu_seconds_total");
  EXPECT_EQ((*samples)[0].label("mode"), "idle");
  EXPECT_DOUBLE_EQ((*samples)[4].value, 5e9);
  EXPECT_EQ((*samples)[9].label("path"), "a\"b\\c");
  EXPECT_TRUE(std::isnan((*samples)[9].value));
}

TEST(PromText, RefusesWhatIsNotPrometheusText) {
  auto html = parse_prom_text("<html><body>hello</body></html>\n");
  ASSERT_FALSE(html);
  EXPECT_NE(html.error().message.find("line 1"), std::string::npos) << html.error().message;
  EXPECT_FALSE(parse_prom_text("ok 1\nnode_x{a=\"b\" 3\n"));
  EXPECT_FALSE(parse_prom_text("node_x abc\n"));
  EXPECT_TRUE(parse_prom_text("")->empty());
}

TEST(PromText, DefaultNodeExporterColumns) {
  const auto columns = prom_columns(parse_prom_text(kScrape).value(), {});
  std::map<std::string, PromColumn> by_name;
  for (const PromColumn& c : columns) by_name[c.name] = c;
  ASSERT_EQ(by_name.size(), 6u);
  EXPECT_DOUBLE_EQ(by_name["cpu_idle_pct"].value, 300);  // summed over the CPUs
  EXPECT_DOUBLE_EQ(by_name["cpu_idle_pct"].scale, 50);   // x100 / 2 CPUs
  EXPECT_TRUE(by_name["cpu_user_pct"].counter);
  EXPECT_DOUBLE_EQ(by_name["mem_available_bytes"].value, 5e9);
  EXPECT_FALSE(by_name["mem_total_bytes"].counter);
  EXPECT_DOUBLE_EQ(by_name["net_rx_bytes_per_s"].value, 1000);  // lo left out
  EXPECT_DOUBLE_EQ(by_name["net_tx_bytes_per_s"].value, 2000);
}

TEST(PromText, NamedColumns) {
  const auto columns = prom_columns(parse_prom_text(kScrape).value(),
                                    {"process_open_fds", "node_network_receive_bytes_total"});
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[0].name, "node_network_receive_bytes_total_per_s{device=eth0}");
  EXPECT_TRUE(columns[0].counter);
  EXPECT_EQ(columns[1].name, "node_network_receive_bytes_total_per_s{device=lo}");
  EXPECT_EQ(columns[2].name, "process_open_fds");
  EXPECT_FALSE(columns[2].counter);
}

TEST(PromMonitor, RatesFailuresAndResets) {
  std::string body = "req_total 100\ninflight 3\n";
  bool fail = false;
  PromMonitor m("prom:http://127.0.0.1:1/metrics", {"req_total", "inflight"},
                [&]() -> Result<std::string> {
                  if (fail) return make_error("connect to 127.0.0.1:1: Connection refused");
                  return body;
                });
  ASSERT_TRUE(m.check());
  m.begin(0);
  body = "req_total 300\ninflight 5\n";
  m.sample(2'000'000'000, false);
  fail = true;
  m.sample(3'000'000'000, false);
  m.sample(4'000'000'000, false);
  fail = false;
  body = "req_total 10\ninflight 1\n";  // the exporter restarted: the counter reset
  m.sample(5'000'000'000, false);
  body = "req_total 30\ninflight 1\n";
  m.sample(6'000'000'000, false);
  const MonitorSeries& s = m.series();
  ASSERT_EQ(s.metrics.size(), 2u);
  EXPECT_EQ(s.metrics[0], "req_total_per_s");
  EXPECT_DOUBLE_EQ(s.windows[0].values[0], 100);  // 200 in 2 s
  EXPECT_DOUBLE_EQ(s.windows[0].values[1], 5);
  EXPECT_FALSE(has_value(s.windows[1].values[0]));
  EXPECT_FALSE(has_value(s.windows[2].values[1]));
  EXPECT_FALSE(has_value(s.windows[3].values[0]));  // reset: no rate, not a negative one
  EXPECT_DOUBLE_EQ(s.windows[3].values[1], 1);
  EXPECT_DOUBLE_EQ(s.windows[4].values[0], 20);
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_NE(s.events[0].text.find("scrape failed: connect"), std::string::npos);
  EXPECT_EQ(s.events[1].text, "scrape succeeded again");
}

TEST(PromMonitor, CheckRefusesBadEndpoints) {
  PromMonitor down("prom:http://127.0.0.1:1/metrics", {},
                   []() -> Result<std::string> { return make_error("connect: refused"); });
  auto st = down.check();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "--monitor \"prom:http://127.0.0.1:1/metrics\": connect: refused");
  PromMonitor html("prom:http://x/", {},
                   []() -> Result<std::string> { return std::string("<html>"); });
  EXPECT_FALSE(html.check());
  PromMonitor none("prom:http://x/", {},
                   []() -> Result<std::string> { return std::string("a 1\n"); });
  auto missing = none.check();
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("--monitor-metric"), std::string::npos);
}

}  // namespace
}  // namespace hail
