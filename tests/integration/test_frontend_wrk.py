"""`hail wrk ...` (and hail started through a link named wrk) against `hail serve`, side by side
with the real wrk 4.1 when it is installed: the same usage text, messages and exit statuses, and
reports with the same lines in the same order and the same column layout. Numbers differ from run
to run, so only labels, order and layout are compared, never values."""

import os
import re
import shutil
import subprocess
import time
import unittest

from support import HailRun, HailServer, free_port, hail_bin, run_as, run_hail



def real_wrk():
    """The real wrk, not hail under that name (./run install-aliases puts a link in PATH)."""
    for path in ("/usr/bin/wrk", shutil.which("wrk")):
        if path and os.access(path, os.X_OK) and (
                os.path.realpath(path) != os.path.realpath(hail_bin())):
            return path
    return None


try:
    WRK = real_wrk()
except AssertionError:  # no hail binary: every test fails on that, with the message, anyway
    WRK = None
DURATION = "1"  # seconds, wrk's bare-number rule

# Every line a wrk 4.1 report may contain, by kind.
NUM = r"\d+\.\d+"
LINE_KINDS = [
    ("running", re.compile(r"Running \d+[smh] test @ \S+")),
    ("threads", re.compile(r"  \d+ threads and \d+ connections")),
    ("header", re.compile(r"  Thread Stats   Avg      Stdev     Max   \+/- Stdev")),
    ("latency", re.compile(r"    Latency +%s(us|ms|s|m) +%s(us|ms|s|m) +%s(us|ms|s|m) +(%s|-nan)%%"
                           % (NUM, NUM, NUM, NUM))),
    ("req/sec", re.compile(r"    Req/Sec +%s[kMGT]? +%s[kMGT]? +%s[kMGT]? +(%s|-nan)%%"
                           % (NUM, NUM, NUM, NUM))),
    ("distribution", re.compile(r"  Latency Distribution")),
    ("percentile", re.compile(r" +(50|75|90|99)%% +%s(us|ms|s|m)" % NUM)),
    ("totals", re.compile(r"  \d+ requests in %s(us|ms|s|m), %s[KMGT]?B read" % (NUM, NUM))),
    ("socket errors", re.compile(r"  Socket errors: connect \d+, read \d+, write \d+, timeout \d+")),
    ("non-2xx", re.compile(r"  Non-2xx or 3xx responses: \d+")),
    ("requests/sec", re.compile(r"Requests/sec: +%s" % NUM)),
    ("transfer/sec", re.compile(r"Transfer/sec: +%s[KMGT]?B" % NUM)),
]


def line_kind(line):
    for kind, pattern in LINE_KINDS:
        if pattern.fullmatch(line):
            return kind
    return None


def value_columns(line):
    """Where each number's two-character unit slot ends: wrk right-aligns a number so that this
    column is fixed whatever the unit ("1.00ms", "2.00s ", "3.00  ")."""
    return [m.start(2) + 2 if m.group(2) else m.end(1) + 2
            for m in re.finditer(r"(-?\d+\.\d+|-nan)([a-zA-Z]{0,2})", line)]


def shape(stdout):
    """[(kind, columns)] for each line of a report; unknown lines fail the comparison."""
    out = []
    for line in stdout.splitlines():
        kind = line_kind(line)
        if kind is None:
            out.append(("?", line))
            continue
        columns = value_columns(line) if kind in ("latency", "req/sec", "percentile") else []
        out.append((kind, tuple(columns)))
    return out


def run_wrk(args, timeout=30):
    """The real wrk, as run_hail runs hail: HailRun(code, stdout, stderr, None, seconds)."""
    start = time.monotonic()
    # argv[0] "wrk", as a shell gives it: getopt's messages start with it.
    proc = subprocess.run(["wrk"] + [str(a) for a in args], executable=WRK,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)
    return HailRun(proc.returncode, proc.stdout, proc.stderr, None, time.monotonic() - start)


def hail_wrk(args, timeout=30):
    return run_hail(["wrk"] + list(args), timeout=timeout)


class WrkReportTest(unittest.TestCase):
    def check_report(self, run, latency, non_2xx):
        self.assertEqual(run.code, 0, run.stderr)
        kinds = [k for k, _ in shape(run.stdout)]
        expected = ["running", "threads", "header", "latency", "req/sec"]
        if latency:
            expected += ["distribution"] + ["percentile"] * 4
        expected += ["totals"] + (["non-2xx"] if non_2xx else []) + ["requests/sec",
                                                                      "transfer/sec"]
        self.assertEqual(kinds, expected, run.stdout)

    def test_report_lines_and_layout(self):
        with HailServer() as server:
            url = server.url + "/"
            run = hail_wrk(["-t", "2", "-c", "4", "-d", DURATION, "--latency", url])
            self.check_report(run, latency=True, non_2xx=True)  # hail serve's / is a 404
            self.assertTrue(run.stdout.startswith(
                "Running 1s test @ %s\n  2 threads and 4 connections\n" % url), run.stdout)
            ok = hail_wrk(["-t1", "-c2", "-d" + DURATION, server.url + "/bytes/100"])
            self.check_report(ok, latency=False, non_2xx=False)
            if WRK is None:
                return
            real = run_wrk(["-t", "2", "-c", "4", "-d", DURATION, "--latency", url])
            self.check_report(real, latency=True, non_2xx=True)
            self.assertEqual(shape(run.stdout), shape(real.stdout),
                             "hail:\n%s\nwrk:\n%s" % (run.stdout, real.stdout))

    def test_socket_errors_line(self):
        # /delay/1200 outlives a 1 s timeout: hail aborts the requests (at 1 s and 2 s), wrk
        # counts the late response (at 1.2 s); both print the socket errors line.
        with HailServer() as server:
            url = server.url + "/delay/1200"
            run = hail_wrk(["-t1", "-c1", "-d2", "--timeout", "1", url])
            self.assertEqual(run.code, 0, run.stderr)
            self.assertRegex(run.stdout, r"\n  Socket errors: connect 0, read 0, write 0, "
                                         r"timeout [1-9]\d*\n")
            if WRK is not None:
                real = run_wrk(["-t1", "-c1", "-d2", "--timeout", "1", url])
                self.assertRegex(real.stdout, r"\n  Socket errors: connect 0, read 0, write 0, "
                                              r"timeout [1-9]\d*\n")

    def test_unreachable_target(self):
        url = "http://127.0.0.1:%d/" % free_port()
        run = hail_wrk(["-d", "1", url])
        self.assertEqual((run.code, run.stdout), (1, ""))
        self.assertRegex(run.stderr, r"^unable to connect to 127\.0\.0\.1:\d+ Connection refused\n")
        if WRK is not None:
            real = run_wrk(["-d", "1", url])
            self.assertEqual((real.code, real.stdout, real.stderr),
                             (run.code, run.stdout, run.stderr))


class WrkCommandLineTest(unittest.TestCase):
    # Command lines wrk refuses before connecting anywhere: stdout (usage), stderr (getopt's or
    # wrk's message) and the exit status must be wrk's exactly.
    BAD = [
        [],
        ["--help"],
        ["-h"],
        ["-x", "http://127.0.0.1:1/"],
        ["--foo=bar", "http://127.0.0.1:1/"],
        ["http://127.0.0.1:1/", "-c"],
        ["http://127.0.0.1:1/", "--connections"],
        ["--latency=1", "http://127.0.0.1:1/"],
        ["--t", "5", "http://127.0.0.1:1/"],
        ["-d", "500ms", "http://127.0.0.1:1/"],
        ["--timeout", "500ms", "http://127.0.0.1:1/"],
        ["-c", "1.5k", "http://127.0.0.1:1/"],
        ["-d", "0", "http://127.0.0.1:1/"],
        ["-t", "3", "-c", "2", "http://127.0.0.1:1/"],
        ["-c", "0", "http://127.0.0.1:1/"],
        ["localhost:8080"],
        ["http:///x"],
        ["-r", "http://127.0.0.1:1/"],
    ]

    def test_usage_and_messages(self):
        for args in self.BAD:
            with self.subTest(args=args):
                run = hail_wrk(args)
                self.assertEqual(run.code, 1, run.stderr)
                self.assertTrue(run.stdout.startswith("Usage: wrk <options> <url>"), run.stdout)
                if WRK is None:
                    continue
                real = run_wrk(args)
                self.assertEqual((run.code, run.stdout, run.stderr),
                                 (real.code, real.stdout, real.stderr))

    def test_version(self):
        run = hail_wrk(["-v"])
        self.assertEqual(run.code, 1)
        first, rest = run.stdout.split("\n", 1)
        self.assertRegex(first, r"^wrk 4\.1\.0 \(hail \S+\) \[epoll\]$")
        self.assertTrue(rest.startswith("Usage: wrk <options> <url>"), rest)
        if WRK is not None:
            real = run_wrk(["-v"])
            self.assertEqual(real.code, run.code)
            self.assertEqual(real.stdout.split("\n", 1)[1], rest)

    def test_started_as_wrk(self):
        """A link named wrk makes hail behave as wrk (./run install-aliases)."""
        usage = run_as("wrk", [], timeout=10)
        self.assertEqual(usage.code, 1)
        self.assertTrue(usage.stdout.startswith("Usage: wrk <options> <url>"), usage.stdout)
        with HailServer() as server:
            url = server.url + "/bytes/10"
            run = run_as("wrk", ["-t1", "-c1", "-d1", url])
            self.assertEqual(run.code, 0, run.stderr)
            self.assertTrue(run.stdout.startswith("Running 1s test @ %s\n" % url), run.stdout)
            self.assertIn("\nRequests/sec: ", run.stdout)


if __name__ == "__main__":
    unittest.main()
