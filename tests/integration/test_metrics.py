"""--metrics-listen end to end: a scraped exposition accepted by promtool (Prometheus text and
OpenMetrics), its counters against the run's own JSON once the run ended (hail_up 0 during
--metrics-linger), 404 off /metrics, bad addresses refused with exit 2, and a real Prometheus server
scraping two hail processes at once: sum(rate(hail_requests_total[5s])) near their total rate and a
sane histogram_quantile over the summed buckets."""

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

from support import (LOOPBACK, HailServer, _kill_group, free_port, hail_bin, read_line_within,
                     run_hail, wait_until)

PROMETHEUS = "/usr/bin/prometheus"
PROMTOOL = "/usr/bin/promtool"
METRICS_LINE = re.compile(r"hail: metrics on (http://127\.0\.0\.1:(\d+)/metrics)")
OPENMETRICS_ACCEPT = ("application/openmetrics-text;version=1.0.0,"
                      "text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


def scrape(url, accept=None, timeout=5):
    """(status, content type, body text) of a GET on a fresh connection."""
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(req, timeout=timeout) as resp:
            return resp.status, resp.headers.get("Content-Type", ""), resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


def samples(text):
    """{series (name{labels} as written): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        series, value = line.rsplit(" ", 1)
        out[series] = float(value)
    return out


def total(text, name):
    """Sum of every series of metric `name`."""
    return sum(v for k, v in samples(text).items() if k.split("{")[0] == name)


class MetricsHail:
    """hail ARGS --metrics-listen 127.0.0.1:0 in its own process group; .url from its stderr."""

    def __init__(self, *args, port=0):
        self.args = [str(a) for a in args]
        self.listen_port = port

    def __enter__(self):
        self.proc = subprocess.Popen(
            [hail_bin()] + self.args + ["--metrics-listen", "127.0.0.1:%d" % self.listen_port],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        line = read_line_within(self.proc.stderr, 10)
        m = METRICS_LINE.fullmatch((line or "").strip())
        if not m:
            _kill_group(self.proc, signal.SIGTERM, 5)
            raise AssertionError("hail printed %r, not 'hail: metrics on http://127.0.0.1:PORT"
                                 "/metrics'" % line)
        self.url = m.group(1)
        self.port = int(m.group(2))
        self.started = time.monotonic()
        return self

    def wait(self, timeout):
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out.decode(), err.decode()

    def __exit__(self, *exc):
        _kill_group(self.proc, signal.SIGTERM, 5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream:
                stream.close()


class ExpositionTest(unittest.TestCase):

    @unittest.skipUnless(os.access(PROMTOOL, os.X_OK), "promtool not installed")
    def test_promtool_accepts_both_formats_and_counters_match_the_report(self):
        with HailServer() as server, MetricsHail("-c", 4, "-t", 2, "-d", "3s", "-q",
                                                 "--metrics-linger", "20s", "--json", "-",
                                                 server.url + "/bytes/10") as hail:
            # Counters come from closed 1 s windows: wait for the first.
            wait_until(lambda: total(scrape(hail.url)[2], "hail_requests_total") > 0, 5,
                       what="a non-zero hail_requests_total")
            status, ctype, text = scrape(hail.url)
            self.assertEqual(status, 200)
            self.assertIn("text/plain; version=0.0.4", ctype)
            self.assertNotIn("# EOF", text)
            check = subprocess.run([PROMTOOL, "check", "metrics"], input=text, text=True,
                                   capture_output=True, timeout=20)
            self.assertEqual(check.returncode, 0, "promtool: %s%s\n%s"
                             % (check.stdout, check.stderr, text))
            self.assertEqual(samples(text)['hail_up{shard="0/1"}'], 1)
            self.assertGreater(samples(text)['hail_open_connections{shard="0/1"}'], 0)

            status, ctype, om = scrape(hail.url, accept=OPENMETRICS_ACCEPT)
            self.assertEqual(status, 200)
            self.assertIn("application/openmetrics-text", ctype)
            self.assertTrue(om.endswith("# EOF\n"), om[-200:])
            self.assertIn("# TYPE hail_requests counter", om)

            status, _, _ = scrape(hail.url.replace("/metrics", "/other"))
            self.assertEqual(status, 404)

            # The run ends; the final values stay while it lingers.
            wait_until(lambda: samples(scrape(hail.url)[2])['hail_up{shard="0/1"}'] == 0, 15,
                       interval=0.2, what="hail_up 0 after the run")
            final = scrape(hail.url)[2]
            hail.proc.send_signal(signal.SIGINT)  # ends the linger early
            code, out, err = hail.wait(15)
            self.assertEqual(code, 0, err)
            report = json.loads(out)
            values = samples(final)
            self.assertEqual(values['hail_requests_total{shard="0/1",status_class="2xx"}'],
                             report["requests"]["completed"], final)
            self.assertEqual(values['hail_request_duration_seconds_count{shard="0/1"}'],
                             report["requests"]["completed"])
            self.assertEqual(values['hail_request_duration_seconds_bucket{shard="0/1",le="+Inf"}'],
                             report["requests"]["completed"])
            self.assertEqual(values['hail_in_flight_requests{shard="0/1"}'], 0)
            self.assertGreater(values['hail_cpu_seconds_total{shard="0/1"}'], 0)
            # The buckets never decrease with le.
            buckets = [v for k, v in samples(final).items()
                       if k.startswith("hail_request_duration_seconds_bucket")]
            self.assertEqual(buckets, sorted(buckets))

    def test_mix_tags_are_line_names(self):
        with tempfile.TemporaryDirectory(prefix="hail_metrics_") as tmp:
            urls = os.path.join(tmp, "urls.txt")
            with open(urls, "w") as f:
                f.write("3 /bytes/10\n1 /bytes/100\n")
            with HailServer() as server, MetricsHail("-c", 2, "-t", 1, "-d", "1500ms", "-q",
                                                     "--urls", urls, "--metrics-linger", "20s",
                                                     "--json", "-", server.url) as hail:
                wait_until(lambda: samples(scrape(hail.url)[2])['hail_up{shard="0/1"}'] == 0, 15,
                           interval=0.2, what="hail_up 0 after the run")
                final = samples(scrape(hail.url)[2])
                hail.proc.send_signal(signal.SIGINT)
                code, out, err = hail.wait(15)
                self.assertEqual(code, 0, err)
                report = json.loads(out)
        tags = {k: v for k, v in final.items() if k.startswith("hail_tag_requests_total")}
        self.assertEqual(set(tags), {
            'hail_tag_requests_total{shard="0/1",tag="GET /bytes/10"}',
            'hail_tag_requests_total{shard="0/1",tag="GET /bytes/100"}'}, final)
        self.assertEqual(sum(tags.values()), report["requests"]["completed"])
        by_name = {t["name"]: t["completed"] for t in report["tags"]}
        self.assertEqual(tags['hail_tag_requests_total{shard="0/1",tag="GET /bytes/10"}'],
                         by_name["GET /bytes/10"])

    def test_linger_keeps_serving_then_exits(self):
        with HailServer() as server, MetricsHail("-c", 2, "-t", 1, "-d", "1s", "-q",
                                                 "--metrics-linger", "2s",
                                                 server.url + "/bytes/10") as hail:
            code, _, err = hail.wait(20)
            elapsed = time.monotonic() - hail.started
            self.assertEqual(code, 0, err)
            self.assertGreaterEqual(elapsed, 2.9)
            self.assertLess(elapsed, 10)

    def test_bad_addresses_are_usage_errors(self):
        for value in ("nonsense", "127.0.0.1", "127.0.0.1:70000", "127.0.0.1:x", "host.name:80",
                      ":9100"):
            run = run_hail(["--metrics-listen", value, "-d", "1s", "http://127.0.0.1:1/"])
            self.assertEqual(run.code, 2, "%s: %s" % (value, run.stderr))
            lines = run.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, run.stderr)
            self.assertIn("--metrics-listen", lines[0])
        run = run_hail(["--metrics-linger", "5s", "-d", "1s", "http://127.0.0.1:1/"])
        self.assertEqual(run.code, 2, run.stderr)
        self.assertIn("--metrics-listen", run.stderr)

    def test_address_in_use_refuses_the_run(self):
        with HailServer() as server, MetricsHail("-c", 1, "-t", 1, "-d", "5s", "-q",
                                                 server.url + "/bytes/10") as first:
            run = run_hail(["--metrics-listen", "127.0.0.1:%d" % first.port, "-d", "1s",
                            server.url + "/bytes/10"])
            self.assertEqual(run.code, 1, run.stderr)
            self.assertIn("--metrics-listen", run.stderr)
            self.assertIn("cannot listen", run.stderr)


@unittest.skipUnless(os.access(PROMETHEUS, os.X_OK), "prometheus not installed")
class PrometheusTest(unittest.TestCase):
    """Two hail processes of 1000 requests/s each, scraped every second by a real Prometheus."""

    RATE_PER_PROCESS = 1000
    DURATION_S = 12

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="hail_prom_")
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            _kill_group(p, signal.SIGTERM, 5)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def api(self, port, path):
        """The "data" of GET /api/v1/PATH."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open("http://%s:%d/api/v1/%s" % (LOOPBACK, port, path), timeout=5) as resp:
            doc = json.load(resp)
        self.assertEqual(doc["status"], "success", doc)
        return doc["data"]

    def query(self, port, expr):
        result = self.api(port, "query?" + urllib.parse.urlencode({"query": expr}))["result"]
        return float(result[0]["value"][1]) if result else None

    def test_sum_of_rates_over_two_processes(self):
        ports = [free_port(), free_port()]
        self.assertNotEqual(ports[0], ports[1])
        # Prometheus first (its start-up takes ~0.5 s, more on a busy machine), scraping the two
        # ports the hails will listen on, so that it scrapes them from their first second.
        config = os.path.join(self.tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
                    "scrape_configs:\n  - job_name: hail\n    static_configs:\n"
                    "      - targets: [%s]\n" % ", ".join("'127.0.0.1:%d'" % p for p in ports))
        prom_port = free_port()
        prom = subprocess.Popen(
            [PROMETHEUS, "--config.file=" + config,
             "--storage.tsdb.path=" + os.path.join(self.tmp, "data"),
             "--web.listen-address=%s:%d" % (LOOPBACK, prom_port)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        self.procs.append(prom)

        # Its scrape manager takes in discovered targets every 5 s: wait until it has both.
        def targets_known():
            try:
                return len(self.api(prom_port, "targets")["activeTargets"]) == 2
            except OSError:
                return False
        wait_until(targets_known, 15, interval=0.2, what="Prometheus knowing both targets")

        with HailServer(threads=2) as server:
            hails = []
            try:
                for port in ports:
                    h = MetricsHail("-R", self.RATE_PER_PROCESS, "-c", 8, "-t", 1, "-d",
                                    "%ds" % self.DURATION_S, "-q", "--metrics-linger", "5s",
                                    server.url + "/bytes/10", port=port)
                    hails.append(h.__enter__())

                def both_up():
                    try:
                        return self.query(prom_port, "sum(hail_up)") == 2
                    except OSError:
                        return False
                wait_until(both_up, 5, interval=0.1, what="Prometheus scraping both hails")
                first_scrape = time.monotonic()

                expected = 2 * self.RATE_PER_PROCESS
                rates, quantiles = [], []
                # Once Prometheus has scraped for more than the 5 s of rate() (a range that starts
                # before the first scrape extrapolates only half an interval back, reading low)
                # until shortly before the runs end.
                while time.monotonic() - hails[0].started < self.DURATION_S - 0.5:
                    if time.monotonic() - first_scrape >= 5.5:
                        r = self.query(prom_port, "sum(rate(hail_requests_total[5s]))")
                        q = self.query(prom_port, "histogram_quantile(0.99, sum by (le) "
                                                  "(rate(hail_request_duration_seconds_bucket"
                                                  "[5s])))")
                        if r is not None:
                            rates.append(r)
                        if q is not None:
                            quantiles.append(q)
                    time.sleep(0.5)
                self.assertGreaterEqual(len(rates), 3, rates)
                median = statistics.median(rates)
                self.assertLess(abs(median - expected) / expected, 0.10,
                                "sum(rate()) %s, expected about %d" % (rates, expected))
                # A local server answers in well under 100 ms; the p99 comes from the buckets.
                self.assertTrue(quantiles, "no histogram_quantile result")
                for q in quantiles:
                    self.assertGreater(q, 0)
                    self.assertLess(q, 0.1, quantiles)
                self.assertEqual(self.query(prom_port, "sum(hail_target_rate_per_second)"),
                                 expected)
                for h in hails:
                    code, _, err = h.wait(30)
                    self.assertEqual(code, 0, err)
            finally:
                for h in hails:
                    h.__exit__(None, None, None)


if __name__ == "__main__":
    unittest.main()
