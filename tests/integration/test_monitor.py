"""--monitor end to end: name:nginx's CPU against /proc over the same run, a leaking test server
flagged by the soak verdict and a non-leaking one not, prom: against a real node_exporter, a
process that exits mid-run, and bad input (unknown pid, a name no process has, a bad syntax, an
unreachable or malformed prom: endpoint) refused with one clear line and exit 2."""

import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import signal

from support import (LOOPBACK, HailServer, Nginx, _kill_group, describe, free_port, http_get,
                     read_line_within, require_nginx, run_hail, wait_until)

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_EXPORTER = "/usr/bin/prometheus-node-exporter"


def node_cpu_seconds(port):
    """(seconds of every mode summed over all CPUs, number of CPUs) from node_exporter's
    node_cpu_seconds_total, scraped now."""
    status, body = http_get(port, "/metrics", timeout=5)
    assert status == 200, status
    total, cpus = 0.0, set()
    for line in body.decode().splitlines():
        if line.startswith("node_cpu_seconds_total{"):
            labels, value = line.rsplit(" ", 1)
            total += float(value)
            cpus.add([l for l in labels.split(",") if 'cpu="' in l][0])
    return total, len(cpus)


def comm_ticks(name):
    """utime + stime (clock ticks) summed over every process whose comm is `name`."""
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                text = f.read()
        except OSError:
            continue
        comm = text[text.index("(") + 1:text.rindex(")")]
        if comm != name:
            continue
        fields = text[text.rindex(")") + 2:].split()
        total += int(fields[11]) + int(fields[12])
    return total


def monitor_cpu_seconds(series):
    col = series["metrics"].index("cpu_core_pct")
    seconds = 0.0
    for w in series["windows"]:
        v = w[series["metrics"][col]]
        if v is not None:
            seconds += v / 100.0 * (w["t_end_s"] - w["t_start_s"])
    return seconds


class LeakyServer:
    """tests/integration/leaky_server.py in its own process group."""

    def __init__(self, leak_bytes):
        self.leak_bytes = leak_bytes

    def __enter__(self):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "leaky_server.py"), "--leak", str(self.leak_bytes)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True)
        line = read_line_within(self.proc.stdout, 10)
        if not line or not line.strip().isdigit():
            _kill_group(self.proc, signal.SIGTERM, 5)
            raise AssertionError("leaky_server.py did not start: %r" % line)
        self.port = int(line)
        return self

    def __exit__(self, *exc):
        _kill_group(self.proc, signal.SIGTERM, 5)
        self.proc.stdout.close()


class NotMetrics(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<html><body>this is not Prometheus text</body></html>\n"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class MonitorTest(unittest.TestCase):

    def test_name_nginx_cpu_matches_proc(self):
        require_nginx()
        with Nginx() as nginx:
            before = comm_ticks("nginx")
            r = run_hail(["-q", "-c", "8", "-t", "1", "-d", "3s", "--interval", "250ms",
                          "--monitor", "name:nginx", "--json", "-", nginx.url + "/"], timeout=30)
            after = comm_ticks("nginx")
            self.assertEqual(r.code, 0, describe(r))
            series = r.json["monitors"][0]
            self.assertEqual(series["source"], "name:nginx")
            self.assertEqual(series["kind"], "process")
            windows = series["windows"]
            span = windows[-1]["t_end_s"] - windows[0]["t_start_s"]
            hail_s = monitor_cpu_seconds(series)
            proc_s = (after - before) / os.sysconf("SC_CLK_TCK")
            # Within a few points of one core over the run (and the same order of magnitude).
            self.assertLess(abs(hail_s - proc_s) / span * 100, 5.0,
                            "monitor %.3f s of CPU, /proc %.3f s over %.2f s" % (hail_s, proc_s, span))
            self.assertGreater(hail_s, 0.05)
            summary = series["summary"]
            self.assertGreater(summary["rss_start_bytes"], 0)
            self.assertGreaterEqual(summary["fds_max"], summary["fds_start"])
            self.assertIn("limit", r.json["server_verdicts"])
            self.assertIn("name_nginx.cpu_core_pct", r.json["timeseries"][0])
            # A saved run read back gives the same server lines and verdicts.
            with tempfile.TemporaryDirectory(prefix="hail-monitor-") as d:
                saved = os.path.join(d, "run.json")
                with open(saved, "w") as f:
                    f.write(r.stdout)
                text = run_hail(["report", saved], timeout=20)
                self.assertEqual(text.code, 0, describe(text))
                self.assertIn("Server side (--monitor)", text.stdout)
                self.assertIn("    name:nginx: CPU mean ", text.stdout)
                self.assertIn("    Limit: ", text.stdout)
                self.assertIn(r.json["server_verdicts"]["limit"]["text"], text.stdout)

    def soak(self, leak_bytes, slo):
        with LeakyServer(leak_bytes) as server:
            r = run_hail(["-q", "-R", "200", "-c", "4", "-t", "1", "-d", "8s", "--warmup", "1s",
                          "--interval", "250ms", "--monitor", "pid:%d" % server.proc.pid,
                          "--slo", slo, "--json", "-", "http://%s:%d/" % (LOOPBACK, server.port)],
                         timeout=40)
        return r

    def test_leak_is_flagged_and_flat_is_not(self):
        leaky = self.soak(32 * 1024, "server.rss_growth<100MiB/h")
        self.assertEqual(leaky.code, 99, describe(leaky))  # the threshold failed
        drift = leaky.json["server_verdicts"]["rss_drift"]
        self.assertTrue(drift["drifted"], drift)
        self.assertTrue(drift["text"].startswith("server RSS grew "), drift["text"])
        self.assertGreater(drift["slope_per_h"], 1024 ** 3)  # ~6 MiB/s: GiB per hour

        flat = self.soak(0, "server.rss_growth<100MiB/h")
        self.assertEqual(flat.code, 0, describe(flat))
        drift = flat.json["server_verdicts"]["rss_drift"]
        self.assertFalse(drift["drifted"], drift)
        self.assertIn("flat", drift["text"])

    def test_process_that_exits_is_reported_not_zeros(self):
        sleeper = subprocess.Popen(["sleep", "1.2"], start_new_session=True)
        try:
            with HailServer() as server:
                r = run_hail(["-q", "-c", "2", "-t", "1", "-d", "3s", "--interval", "250ms",
                              "--monitor", "pid:%d" % sleeper.pid, "--json", "-", server.url + "/"],
                             timeout=30)
        finally:
            _kill_group(sleeper, signal.SIGTERM, 5)
        self.assertEqual(r.code, 0, describe(r))
        series = r.json["monitors"][0]
        self.assertTrue(any("exited" in e["text"] for e in series["events"]), series["events"])
        last = series["windows"][-1]
        self.assertIsNone(last["rss_bytes"])
        self.assertIsNone(last["cpu_core_pct"])
        self.assertIsNotNone(series["windows"][0]["rss_bytes"])
        # The load itself went on.
        self.assertGreater(r.json["requests"]["completed"], 0)

    @unittest.skipUnless(os.access(NODE_EXPORTER, os.X_OK),
                         "Debian's prometheus-node-exporter is not installed (./run installs it)")
    def test_prom_node_exporter(self):
        for _ in range(5):
            port = free_port()
            exporter = subprocess.Popen(
                [NODE_EXPORTER, "--web.listen-address=%s:%d" % (LOOPBACK, port)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)

            def up():
                try:
                    return http_get(port, "/metrics", timeout=1)[0] == 200
                except OSError:
                    return exporter.poll() is not None
            try:
                wait_until(up, 10, what="node_exporter on port %d" % port)
            except AssertionError:
                _kill_group(exporter, signal.SIGTERM, 5)
                raise
            if exporter.poll() is None:
                break
        try:
            url = "prom:http://%s:%d/metrics" % (LOOPBACK, port)
            with HailServer() as server:
                before, t_before = node_cpu_seconds(port), time.monotonic()
                r = run_hail(["-q", "-c", "2", "-t", "1", "-d", "2s", "--interval", "500ms",
                              "--monitor", url, "--json", "-", server.url + "/"], timeout=30)
                after, t_after = node_cpu_seconds(port), time.monotonic()
                self.assertEqual(r.code, 0, describe(r))
                series = r.json["monitors"][0]
                self.assertEqual(series["kind"], "prom")
                for name in ("cpu_idle_pct", "cpu_user_pct", "mem_total_bytes",
                             "mem_available_bytes"):
                    self.assertIn(name, series["metrics"])
                measured = [w for w in series["windows"] if w["mem_total_bytes"] is not None]
                self.assertGreaterEqual(len(measured), 3, series["windows"])
                self.assertGreater(measured[-1]["mem_total_bytes"], 0)
                # The modes add up to what the exporter's own counters add up to over the run
                # (each window is timed by hail's clock, not the exporter's, so one window may be
                # off by the scrape's own delay). That is 100 % of the machine, except on a VM
                # whose host steals time: the kernel counts a stolen idle tick as idle and steal.
                modes = [k for k in series["metrics"] if k.startswith("cpu_")]
                sums = [sum(w[k] for k in modes if w[k] is not None) for w in measured
                        if w["t_end_s"] - w["t_start_s"] >= 0.4]  # not the run's last stub
                self.assertEqual(before[1], after[1])
                exporter_pct = (after[0] - before[0]) / (t_after - t_before) / after[1] * 100
                self.assertGreaterEqual(exporter_pct, 85, "the counters lose time")
                self.assertAlmostEqual(sum(sums) / len(sums), exporter_pct, delta=15,
                                       msg="%s against the exporter's %.1f" % (sums, exporter_pct))
                # --monitor-metric picks other series.
                r = run_hail(["-q", "-c", "2", "-t", "1", "-d", "1s", "--interval", "500ms",
                              "--monitor", url, "--monitor-metric", "node_load1", "--json", "-",
                              server.url + "/"], timeout=30)
                self.assertEqual(r.code, 0, describe(r))
                self.assertEqual(r.json["monitors"][0]["metrics"], ["node_load1"])
        finally:
            _kill_group(exporter, signal.SIGTERM, 5)

    def refused(self, args, *fragments):
        r = run_hail(["-q", "-d", "1s"] + args + ["http://%s:1/" % LOOPBACK], timeout=20)
        self.assertEqual(r.code, 2, describe(r))
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        for fragment in fragments:
            self.assertIn(fragment, lines[0])
        self.assertEqual(r.stdout, "")

    def test_bad_input_refuses_with_one_line(self):
        self.refused(["--monitor", "pid:999999999"], "--monitor \"pid:999999999\"",
                     "no process with pid 999999999")
        self.refused(["--monitor", "name:no-such-proc"], "no process named \"no-such-proc\"")
        self.refused(["--monitor", "pid:abc"], "--monitor \"pid:abc\"", "positive number")
        self.refused(["--monitor", "hots"], "expected pid:N, name:NAME, host or prom:URL")
        self.refused(["--monitor-metric", "node_load1"], "--monitor-metric needs a --monitor prom:")
        port = free_port()
        self.refused(["--monitor", "prom:http://%s:%d/metrics" % (LOOPBACK, port)],
                     "prom:http://%s:%d/metrics" % (LOOPBACK, port), "Connection refused")
        html = http.server.ThreadingHTTPServer((LOOPBACK, 0), NotMetrics)
        thread = threading.Thread(target=html.serve_forever, daemon=True)
        thread.start()
        try:
            self.refused(["--monitor", "prom:http://%s:%d/" % (LOOPBACK, html.server_address[1])],
                         "not Prometheus text: line 1")
        finally:
            html.shutdown()
            html.server_close()


if __name__ == "__main__":
    unittest.main()
