"""The HTML report (--html) in a real browser: Debian's headless Chromium opens pages hail wrote
for a plain run, a ladder with thresholds, a rate run whose server stalls, a saved run reported
again, a merge, a comparison and a capacity search. Each page must load with no console error and no request (its
Content-Security-Policy forbids them; a violation would be logged), draw every chart the run has
data for, non-empty, and leave a screenshot under the build folder (test-artifacts/)."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from support import ServerTestCase, describe, run_hail

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = os.path.join(os.path.dirname(os.path.abspath(os.environ.get("HAIL_BIN", "hail"))),
                         "test-artifacts")


def open_page(path, name):
    """Loads the page in headless Chromium; returns (the <body> tag's attributes, the chart
    divs {id: attributes}, console lines)."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hail-chromium-") as profile:
        base = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--no-first-run", "--disable-extensions", "--enable-logging=stderr", "--v=0",
                "--window-size=1200,2800", "--user-data-dir=" + profile]
        dom = subprocess.run(base + ["--dump-dom", "file://" + path], capture_output=True,
                             text=True, timeout=120)
        subprocess.run(base + ["--screenshot=" + os.path.join(ARTIFACTS, name + ".png"),
                               "file://" + path], capture_output=True, timeout=120)
    body = re.search(r"<body([^>]*)>", dom.stdout)
    attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', body.group(1))) if body else {}
    charts = {}
    for m in re.finditer(r'<div class="chart" id="([a-z-]+)"([^>]*)>', dom.stdout):
        charts[m.group(1)] = dict(re.findall(r'data-([a-z]+)="([^"]*)"', m.group(2)))
        charts[m.group(1)]["canvas"] = "<canvas" in dom.stdout[m.end():m.end() + 4000]
    console = [line for line in dom.stderr.splitlines()
               if "CONSOLE" in line or "Refused to" in line or "net::ERR" in line]
    return attrs, charts, console


@unittest.skipIf(CHROMIUM is None, "chromium is not installed (./run installs it)")
class HtmlReportTest(ServerTestCase):
    def check_page(self, path, name, expected):
        attrs, charts, console = open_page(path, name)
        self.assertEqual(console, [], name)
        self.assertEqual(attrs.get("ready"), "1", (name, attrs))
        self.assertEqual(int(attrs.get("charts", "0")), len(charts), (name, charts))
        for chart in expected:
            self.assertIn(chart, charts, (name, sorted(charts)))
            self.assertTrue(charts[chart]["canvas"], (name, chart))
            self.assertGreater(int(charts[chart].get("points", "0")), 0, (name, chart))
        return charts

    def test_plain_run(self):
        path = os.path.join(self.dir, "plain.html")
        r = run_hail(["-q", "-c", "4", "-d", "2s", "--interval", "100ms", "--html", path,
                      self.server.url + "/delay/2"], timeout=60)
        self.assertEqual(r.code, 0, describe(r))
        charts = self.check_page(path, "plain", ["chart-throughput", "chart-connections",
                                                 "chart-latency", "chart-heatmap",
                                                 "chart-spectrum"])
        self.assertGreaterEqual(int(charts["chart-latency"]["points"]), 19)
        self.assertGreater(int(charts["chart-heatmap"]["cells"]), 0)
        self.assertNotIn("chart-knee", charts)

    def test_monitor_resources_chart(self):
        path = os.path.join(self.dir, "monitor.html")
        r = run_hail(["-q", "-c", "4", "-d", "1s", "--interval", "100ms", "--monitor",
                      "pid:%d" % self.server.proc.pid, "--monitor", "host", "--html", path,
                      self.server.url + "/delay/2"], timeout=60)
        self.assertEqual(r.code, 0, describe(r))
        charts = self.check_page(path, "monitor", ["chart-resources", "chart-latency"])
        self.assertGreaterEqual(int(charts["chart-resources"]["points"]), 8)

    def test_ladder_with_thresholds(self):
        path = os.path.join(self.dir, "ladder.html")
        r = run_hail(["-q", "-c", "20", "--ladder", "1:3:10", "--step-duration", "1s", "--slo",
                      "p(99)<1s", "--html", path, self.server.url + "/delay/2"], timeout=60)
        self.assertEqual(r.code, 0, describe(r))
        charts = self.check_page(path, "ladder", ["chart-knee", "chart-spectrum",
                                                  "chart-latency"])
        self.assertEqual(charts["chart-knee"]["points"], "4")
        self.assertEqual(charts["chart-knee"]["failed"], "0")

    def test_rate_run_with_a_stall(self):
        # One connection, a 300 ms answer, 20 requests/s planned: requests queue behind it, the
        # lag grows; the page shows service time and lag.
        path = os.path.join(self.dir, "rate.html")
        r = run_hail(["-q", "-R", "20", "-c", "1", "--max-connections", "1", "-d", "2s",
                      "--interval", "200ms", "--html", path, self.server.url + "/delay/300"],
                     timeout=60)
        self.assertIn(r.code, (0, 98), describe(r))
        self.check_page(path, "rate", ["chart-throughput", "chart-latency", "chart-service",
                                       "chart-heatmap"])

    def test_report_and_merge(self):
        runs = []
        for i in range(2):
            runs.append(os.path.join(self.dir, "run%d.json" % i))
            r = run_hail(["-q", "-c", "2", "-d", "1s", "--interval", "100ms", "--json", runs[-1],
                          self.server.url + "/delay/1"], timeout=60)
            self.assertEqual(r.code, 0, describe(r))
        again = os.path.join(self.dir, "again.html")
        r = run_hail(["report", "--html", again, runs[0]])
        self.assertEqual(r.code, 0, describe(r))
        self.check_page(again, "report", ["chart-throughput", "chart-latency", "chart-spectrum"])
        merged = os.path.join(self.dir, "merged.html")
        r = run_hail(["merge", "--html", merged] + runs)
        self.assertEqual(r.code, 0, describe(r))
        self.check_page(merged, "merge", ["chart-throughput", "chart-latency", "chart-spectrum"])

    def test_compare(self):
        runs = []
        for i in range(2):
            runs.append(os.path.join(self.dir, "cmp%d.json" % i))
            r = run_hail(["-q", "-c", "2", "-d", "1500ms", "--interval", "100ms", "--json",
                          runs[-1], self.server.url + "/delay/2"], timeout=60)
            self.assertEqual(r.code, 0, describe(r))
        page = os.path.join(self.dir, "compare.html")
        r = run_hail(["compare", "--html", page] + runs)
        self.assertIn(r.code, (0, 3), describe(r))
        charts = self.check_page(page, "compare", ["chart-spectrum", "chart-shift"])
        self.assertEqual(charts["chart-shift"]["points"], "4")  # p50 p90 p99 p99.9
        self.assertEqual(len(charts["chart-shift"]["verdicts"].split(",")), 4)

    def test_search(self):
        # A capped search (every level passes up to --max): the page shows each level probed.
        page = os.path.join(self.dir, "search.html")
        r = run_hail(["search", "--slo", "p(99)<500ms", "--from", "400", "--max", "1200",
                      "--probe", "1s", "--settle", "100ms", "--confirm", "1s", "--budget",
                      "15s", "--html", page, self.server.url + "/delay/1"], timeout=60)
        self.assertIn(r.code, (0, 98), describe(r))
        charts = self.check_page(page, "search", ["chart-search"])
        self.assertGreaterEqual(int(charts["chart-search"]["points"]), 2)
        self.assertIn("pass", charts["chart-search"]["verdicts"])

    def test_bad_paths(self):
        r = run_hail(["--html", "-", self.server.url + "/"])
        self.assertEqual(r.code, 2, describe(r))
        self.assertIn("--html writes a file", r.stderr)
        r = run_hail(["-n", "1", "--html", "/nonexistent-dir/x.html", self.server.url + "/"])
        self.assertNotEqual(r.code, 0, describe(r))
        self.assertIn("--html", r.stderr)


if __name__ == "__main__":
    unittest.main()
