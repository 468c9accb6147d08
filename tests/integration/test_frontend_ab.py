"""`hail ab ...` (and hail started through a link named ab) against `hail serve`, side by side
with the real ApacheBench 2.3 (Debian's apache2-utils) when it is installed: the same usage text,
messages and exit statuses, reports with the same lines in the same order and column layout, the
same progress lines, -e/-g files of the same shape, the same request fields on the wire, and the
exact number of requests and connections the server sees. Numbers differ from run to run, so
only labels, order and layout are compared, never values."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from capture_server import CaptureServer
from support import HailRun, HailServer, free_port, hail_bin, run_hail


def real_ab():
    """The real ab, not hail under that name (./run install-aliases puts a link in PATH)."""
    for path in ("/usr/bin/ab", shutil.which("ab")):
        if path and os.access(path, os.X_OK) and (
                os.path.realpath(path) != os.path.realpath(hail_bin())):
            return path
    return None


try:
    AB = real_ab()
except AssertionError:  # no hail binary: every test fails on that, with the message, anyway
    AB = None

COPYRIGHT = ("This is ApacheBench, Version 2.3 <$Revision$>\n"
             "Copyright 1996 Adam Twiss, Zeus Technology Ltd, http://www.zeustech.net/\n"
             "Licensed to The Apache Software Foundation, http://www.apache.org/\n\n")

# Every line an ab 2.3 report may contain, by kind.
N = r"\d+"
F2 = r"\d+\.\d\d"
F3 = r"\d+\.\d{3}"
LINE_KINDS = [
    ("copyright", re.compile(r"This is ApacheBench, Version 2\.3 <\$Revision\$>|Copyright 1996 "
                             r"Adam Twiss, Zeus Technology Ltd, http://www\.zeustech\.net/|"
                             r"Licensed to The Apache Software Foundation, http://www\.apache\.org/")),
    ("empty", re.compile(r"")),
    ("benchmarking", re.compile(r"Benchmarking \S+ (\[through \S+\] )?\(be patient\)"
                                r"(\.\.\.\.\.done)?")),
    ("server software", re.compile(r"Server Software: {8}\S*")),
    ("server hostname", re.compile(r"Server Hostname: {8}\S+")),
    ("server port", re.compile(r"Server Port: {12}%s" % N)),
    ("ssl protocol", re.compile(r"SSL/TLS Protocol: {7}TLSv1(\.[0-3])?,[A-Z0-9_-]+,\d+,\d+")),
    ("temp key", re.compile(r"Server Temp Key: {8}\S+( \S+)? \d+ bits")),
    ("tls server name", re.compile(r"TLS Server Name: {8}\S+")),
    ("document path", re.compile(r"Document Path: {10}\S+")),
    ("document length", re.compile(r"Document Length: {8}(%s bytes|Variable)" % N)),
    ("concurrency", re.compile(r"Concurrency Level: {6}%s" % N)),
    ("time taken", re.compile(r"Time taken for tests: {3}%s seconds" % F3)),
    ("complete", re.compile(r"Complete requests: {6}%s" % N)),
    ("failed", re.compile(r"Failed requests: {8}%s" % N)),
    ("failed breakdown", re.compile(r"   \(Connect: %s, Receive: %s, Length: %s, Exceptions: %s\)"
                                    % (N, N, N, N))),
    ("non-2xx", re.compile(r"Non-2xx responses: {6}%s" % N)),
    ("keep-alive", re.compile(r"Keep-Alive requests: {4}%s" % N)),
    ("total transferred", re.compile(r"Total transferred: {6}%s bytes" % N)),
    ("total body sent", re.compile(r"Total body sent: {8}%s" % N)),
    ("html transferred", re.compile(r"HTML transferred: {7}%s bytes" % N)),
    ("requests per second", re.compile(r"Requests per second: {4}%s \[#/sec\] \(mean\)" % F2)),
    ("time per request", re.compile(r"Time per request: {7}%s \[ms\] \(mean\)" % F3)),
    ("time per request all", re.compile(r"Time per request: {7}%s \[ms\] \(mean, across all "
                                        r"concurrent requests\)" % F3)),
    ("transfer rate", re.compile(r"Transfer rate: {10}%s \[Kbytes/sec\] received" % F2)),
    ("sent rate", re.compile(r" {24}%s kb/s sent" % F2)),
    ("total rate", re.compile(r" {24}%s kb/s total" % F2)),
    ("connection times", re.compile(r"Connection Times \(ms\)")),
    ("table header", re.compile(r" {14}min  mean\[\+/-sd\] median   max")),
    ("table header -S", re.compile(r" {14}min   avg   max")),
    ("row", re.compile(r"(Connect|Processing|Waiting|Total): +%s +%s +%s\.\d +%s +%s"
                       % (N, N, N, N, N))),
    ("row -S", re.compile(r"(Connect|Processing|Waiting|Total): +%s +%s +%s" % (N, N, N))),
    ("warning", re.compile(r"(WARNING|ERROR): The median and mean for the .*|"
                           r" +(These results are probably not that reliable\.|deviation apart\. "
                           r"These results are NOT reliable\.)")),
    ("percentage header", re.compile(r"Percentage of the requests served within a certain time "
                                     r"\(ms\)")),
    ("percentile", re.compile(r"  (50|66|75|80|90|95|98|99)%%  +%s" % N)),
    ("percentile 100", re.compile(r" 100%%  +%s \(longest request\)" % N)),
]


def line_kind(line):
    for kind, pattern in LINE_KINDS:
        if pattern.fullmatch(line):
            return kind
    return None


def shape(stdout):
    """[(kind, number end columns)] for each line of a report; unknown lines fail the comparison.
    The warnings under the Connection Times table depend on the timings and are left out."""
    out = []
    for line in stdout.splitlines():
        kind = line_kind(line)
        if kind is None:
            out.append(("?", line))
        elif kind != "warning":
            columns = tuple(m.end() for m in re.finditer(r"\d+(\.\d+)?", line))
            out.append((kind, columns if kind.startswith(("row", "percentile")) else ()))
    return out


def run_ab(args, timeout=60):
    """The real ab, as run_hail runs hail: HailRun(code, stdout, stderr, None, seconds)."""
    start = time.monotonic()
    # argv[0] "ab", as a shell gives it: ab's messages start with it.
    proc = subprocess.run(["ab"] + [str(a) for a in args], executable=AB,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)
    return HailRun(proc.returncode, proc.stdout, proc.stderr, None, time.monotonic() - start)


def hail_ab(args, timeout=60):
    return run_hail(["ab"] + [str(a) for a in args], timeout=timeout)


def progress_lines(n):
    every = max(n // 10, 100)
    return "".join("Completed %d requests\n" % k for k in range(every, n + 1, every)) + (
        "Finished %d requests\n" % n)


class AbReportTest(unittest.TestCase):
    def check_against_ab(self, args, expected_kinds):
        run = hail_ab(args)
        self.assertEqual(run.code, 0, run.stderr)
        self.assertTrue(run.stdout.startswith(COPYRIGHT), run.stdout)
        kinds = [k for k, _ in shape(run.stdout)]
        self.assertEqual(kinds, expected_kinds, run.stdout)
        if AB is None:
            return run
        real = run_ab(args)
        self.assertEqual(real.code, 0, real.stderr)
        self.assertEqual(shape(run.stdout), shape(real.stdout),
                         "hail:\n%s\nab:\n%s" % (run.stdout, real.stdout))
        self.assertEqual(run.stderr, real.stderr)
        return run

    @staticmethod
    def kinds(keep_alive=False, non_2xx=False, confidence=True, percentiles=True, body=False):
        """The line kinds of an ab report, in order, for these options."""
        k = ["copyright"] * 3 + ["empty", "benchmarking", "empty", "empty", "server software",
                                 "server hostname", "server port", "empty", "document path",
                                 "document length", "empty", "concurrency", "time taken",
                                 "complete", "failed"]
        if non_2xx:
            k.append("non-2xx")
        if keep_alive:
            k.append("keep-alive")
        k.append("total transferred")
        if body:
            k.append("total body sent")
        k += ["html transferred", "requests per second", "time per request",
              "time per request all", "transfer rate"]
        if body:
            k += ["sent rate", "total rate"]
        k += ["empty", "connection times"]
        k += (["table header"] + ["row"] * 4) if confidence else (["table header -S"] +
                                                                    ["row -S"] * 4)
        if percentiles:
            k += ["empty", "percentage header"] + ["percentile"] * 8 + ["percentile 100"]
        return k

    def test_report_lines_and_layout(self):
        with HailServer() as server:
            url = server.url + "/bytes/100"
            run = self.check_against_ab(["-n", "20", "-c", "2", url], self.kinds())
            self.assertIn("\nBenchmarking 127.0.0.1 (be patient).....done\n\n\n", run.stdout)
            self.assertIn("\nDocument Path:          /bytes/100\n"
                          "Document Length:        100 bytes\n", run.stdout)
            self.assertIn("\nComplete requests:      20\nFailed requests:        0\n", run.stdout)
            self.assertIn("\nServer Software:        hail\n", run.stdout)
            self.assertEqual(run.stderr, "")

    def test_keep_alive_and_progress_lines(self):
        with HailServer() as server:
            url = server.url + "/bytes/10"
            run = self.check_against_ab(["-k", "-n", "300", "-c", "3", url],
                                        self.kinds(keep_alive=True))
            self.assertEqual(run.stderr, progress_lines(300))
            self.assertIn("\nBenchmarking 127.0.0.1 (be patient)\n\n\n", run.stdout)
            self.assertIn("\nKeep-Alive requests:    300\n", run.stdout)

    def test_non_2xx_variants_and_body(self):
        with HailServer() as server, tempfile.TemporaryDirectory(prefix="hail_ab_") as tmp:
            body = os.path.join(tmp, "body.txt")
            with open(body, "w") as f:
                f.write("x=1&y=2")
            run = self.check_against_ab(["-n", "10", "-S", "-d", "-l", server.url + "/"],
                                        self.kinds(non_2xx=True, confidence=False,
                                                   percentiles=False))
            self.assertIn("\nNon-2xx responses:      10\n", run.stdout)
            self.assertIn("\nDocument Length:        Variable\n", run.stdout)
            self.check_against_ab(["-n", "5", "-p", body, "-T", "application/x-www-form-"
                                   "urlencoded", server.url + "/echo"],
                                  self.kinds(body=True))

    def test_tls_lines(self):
        with HailServer(tls=True) as server:
            url = server.url + "/bytes/10"
            kinds = self.kinds()
            at = kinds.index("server port") + 1
            kinds[at:at] = ["ssl protocol", "temp key"]
            run = hail_ab(["-n", "4", "-c", "2", url])
            self.assertEqual(run.code, 0, run.stderr)
            self.assertEqual([k for k, _ in shape(run.stdout)], kinds, run.stdout)
            self.assertRegex(run.stdout, r"\nSSL/TLS Protocol:       TLSv1\.3,TLS_\w+,\d+,\d+\n"
                                         r"Server Temp Key:        \S+.* \d+ bits\n\n")
            if AB is None:
                return
            # ab reads hail serve's close without close_notify as a failure (its stderr and its
            # failure counts differ): compare the head of the report only.
            real = run_ab(["-n", "4", "-c", "2", url])
            head = kinds.index("document path")
            self.assertEqual(shape(run.stdout)[:head], shape(real.stdout)[:head], real.stdout)
            for label in ("SSL/TLS Protocol: ", "Server Temp Key: "):
                pattern = re.escape(label) + ".*"
                self.assertEqual(re.search(pattern, run.stdout).group(0),
                                 re.search(pattern, real.stdout).group(0))

    def test_html_output(self):
        with HailServer() as server:
            args = ["-w", "-x", "border=1", "-k", "-n", "5", server.url + "/bytes/10"]
            run = hail_ab(args)
            self.assertEqual(run.code, 0, run.stderr)
            self.assertTrue(run.stdout.startswith(
                "<p>\n This is ApacheBench, Version 2.3 <i>&lt;$Revision$&gt;</i><br>\n"),
                run.stdout)
            self.assertIn("\n..done\n\n\n<table border=1>\n", run.stdout)
            self.assertTrue(run.stdout.endswith("</table>\n"), run.stdout)
            if AB is None:
                return
            real = run_ab(args)
            self.assertEqual(real.code, 0, real.stderr)

            def numbers_out(text):
                return re.sub(r"\d+(\.\d+)?", "N", text).splitlines()

            self.assertEqual(numbers_out(run.stdout), numbers_out(real.stdout),
                             "hail:\n%s\nab:\n%s" % (run.stdout, real.stdout))

    def test_server_counts_exact(self):
        with HailServer() as server:
            url = server.url + "/bytes/10"
            for args, connections in ((["-n", "37", "-c", "4"], 37),
                                      (["-k", "-n", "37", "-c", "4"], 4)):
                with self.subTest(args=args):
                    before = server.stats()
                    run = hail_ab(args + [url])
                    self.assertEqual(run.code, 0, run.stderr)
                    delta = HailServer.stats_delta(before, server.stats())
                    self.assertEqual(delta["requests"], 37, run.stdout)
                    self.assertEqual(delta["connections"], connections, run.stdout)
                    self.assertIn("\nComplete requests:      37\n", run.stdout)

    def test_csv_and_gnuplot_files(self):
        with HailServer() as server, tempfile.TemporaryDirectory(prefix="hail_ab_") as tmp:
            url = server.url + "/bytes/10"
            runs = {"hail": hail_ab}
            if AB is not None:
                runs["ab"] = run_ab
            for name, runner in runs.items():
                with self.subTest(tool=name):
                    csv = os.path.join(tmp, name + ".csv")
                    tsv = os.path.join(tmp, name + ".tsv")
                    run = runner(["-n", "60", "-c", "3", "-e", csv, "-g", tsv, url])
                    self.assertEqual(run.code, 0, run.stderr)
                    with open(csv) as f:
                        rows = f.read().splitlines()
                    self.assertEqual(rows[0], "Percentage served,Time in ms")
                    self.assertEqual(len(rows), 102)
                    for i, row in enumerate(rows[1:]):
                        self.assertRegex(row, r"^%d,\d+\.\d{3}$" % i)
                    times = [float(r.split(",")[1]) for r in rows[1:]]
                    self.assertEqual(times, sorted(times))
                    with open(tsv) as f:
                        lines = f.read().splitlines()
                    self.assertEqual(lines[0], "starttime\tseconds\tctime\tdtime\tttime\twait")
                    self.assertEqual(len(lines), 61)
                    now = time.time()
                    for line in lines[1:]:
                        m = re.fullmatch(r"(\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4})\t(\d+)\t(\d+)"
                                         r"\t(\d+)\t(\d+)\t(\d+)", line)
                        self.assertIsNotNone(m, line)
                        self.assertLess(abs(int(m.group(2)) - now), 60)
                        self.assertEqual(m.group(1), time.strftime(
                            "%a %b %d %H:%M:%S %Y", time.localtime(int(m.group(2)))))
                    ttimes = [int(line.split("\t")[4]) for line in lines[1:]]
                    self.assertEqual(ttimes, sorted(ttimes))  # ab writes them sorted

    def test_time_limit(self):
        with HailServer() as server:
            run = hail_ab(["-t", "1", "-c", "2", server.url + "/delay/20"])
            self.assertEqual(run.code, 0, run.stderr)
            m = re.search(r"\nTime taken for tests:   (\d+\.\d+) seconds\n", run.stdout)
            self.assertIsNotNone(m, run.stdout)
            self.assertLess(abs(float(m.group(1)) - 1.0), 0.2, run.stdout)
            self.assertTrue(run.stdout.startswith(COPYRIGHT + "Benchmarking 127.0.0.1 (be patient)\n"))
            # Far fewer than -t's 50000 requests: no progress line, but "Finished".
            self.assertRegex(run.stderr, r"^Finished \d+ requests\n$")

    def test_interrupted_run_still_reports(self):
        with HailServer() as server:
            args = ["-n", "100000", "-c", "2", server.url + "/delay/10"]
            tools = [("hail", [hail_bin(), "ab"])] + ([("ab", [AB])] if AB else [])
            shapes = []
            for name, cmd in tools:
                with self.subTest(tool=name):
                    proc = subprocess.Popen(cmd + args, stdin=subprocess.DEVNULL,
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            text=True)
                    time.sleep(1.0)
                    proc.send_signal(signal.SIGINT)
                    out, err = proc.communicate(timeout=20)
                    self.assertEqual(proc.returncode, 1, err)
                    self.assertNotIn("Finished", err)
                    self.assertIn("\nComplete requests:      ", out)
                    self.assertIn("\nPercentage of the requests served", out)
                    shapes.append([k for k, _ in shape(out)])
            if len(shapes) == 2:
                self.assertEqual(shapes[0], shapes[1])

    def test_unreachable_target(self):
        url = "http://127.0.0.1:%d/" % free_port()
        run = hail_ab(["-n", "5", url])
        self.assertEqual(run.code, 111, run.stderr)
        self.assertEqual(run.stdout, COPYRIGHT + "Benchmarking 127.0.0.1 (be patient)...")
        self.assertEqual(run.stderr, "apr_socket_recv: Connection refused (111)\n")
        if AB is not None:
            real = run_ab(["-n", "5", url])
            self.assertEqual((real.code, real.stdout, real.stderr),
                             (run.code, run.stdout, run.stderr))

    def test_unresolvable_host(self):
        run = hail_ab(["-n", "1", "http://nonexistent.invalid/"])
        self.assertEqual(run.stdout, COPYRIGHT + "Benchmarking nonexistent.invalid (be patient)...")
        self.assertRegex(run.stderr, r"^apr_sockaddr_info_get\(\) for nonexistent\.invalid: "
                                     r".+ \(6700\d\d\)\n$")
        if AB is not None:
            real = run_ab(["-n", "1", "http://nonexistent.invalid/"])
            self.assertEqual((real.code, real.stdout, real.stderr),
                             (run.code, run.stdout, run.stderr))


def fields(request):
    head = request.split(b"\r\n\r\n", 1)[0].decode()
    lines = head.split("\r\n")
    return lines[0], sorted(lines[1:])


class AbRequestBytesTest(unittest.TestCase):
    CASES = [
        [],
        ["-k"],
        ["-i"],
        ["-m", "OPTIONS"],
        ["-m", "POST"],
        ["-C", "a=b", "-A", "user:pw", "-P", "pu:pp", "-H", "X-A: 1", "-H", "accept: text/html"],
        ["-H", "Host: other:9", "-H", "User-Agent: me"],
    ]

    def test_same_fields_as_ab(self):
        with tempfile.TemporaryDirectory(prefix="hail_ab_") as tmp:
            body = os.path.join(tmp, "body.json")
            with open(body, "w") as f:
                f.write('{"a": 1}\n')
            self.check_cases(self.CASES + [["-k", "-p", body, "-T", "application/json", "-C",
                                            "a=b", "-A", "u:p", "-H", "X-B: 2"],
                                           ["-u", body]])

    def check_cases(self, cases):
        for extra in cases:
            with self.subTest(args=extra):
                with CaptureServer() as server:
                    url = "http://127.0.0.1:%d/x?y=1" % server.port
                    run = hail_ab(extra + ["-n", "1", url])
                    self.assertEqual(run.code, 0, run.stderr)
                    if AB is not None:
                        real = run_ab(extra + ["-n", "1", url])
                        self.assertEqual(real.code, 0, real.stderr)
                self.assertEqual(len(server.requests), 2 if AB is not None else 1)
                line, hail_fields = fields(server.requests[0])
                if AB is not None:
                    self.assertEqual(server.requests[0].split(b"\r\n\r\n", 1)[1],
                                     server.requests[1].split(b"\r\n\r\n", 1)[1])
                self.assertTrue(line.endswith(" /x?y=1 HTTP/1.0"), line)
                if AB is not None:
                    # Byte for byte ab's request: fields, their order, the body.
                    self.assertEqual(server.requests[0], server.requests[1])


class AbVerboseTest(unittest.TestCase):
    """ab -v 2 prints the request's head exactly as it is sent, between ab's INFO lines."""
    CASES = [
        [],
        ["-k"],
        ["-m", "POST", "-H", "Host: foo"],
        ["-C", "a=b", "-A", "u:p", "-H", "X-A: 1", "-H", "accept: text/html"],
    ]

    @staticmethod
    def stdout_bytes(cmd, executable=None):
        proc = subprocess.run(cmd, executable=executable, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=60)
        return proc.returncode, proc.stdout

    def test_prints_the_bytes_sent(self):
        with tempfile.TemporaryDirectory(prefix="hail_ab_") as tmp:
            body = os.path.join(tmp, "body.txt")
            with open(body, "w") as f:
                f.write("abc")
            for extra in self.CASES + [["-k", "-p", body, "-T", "application/json"]]:
                with self.subTest(args=extra):
                    args = ["-v", "2"] + extra + ["-n", "1"]
                    with CaptureServer() as server:
                        url = "http://127.0.0.1:%d/x?y=1" % server.port
                        code, out = self.stdout_bytes([hail_bin(), "ab"] + args + [url])
                        self.assertEqual(code, 0, out)
                        if AB is not None:
                            real_code, real_out = self.stdout_bytes(["ab"] + args + [url], AB)
                            self.assertEqual(real_code, 0, real_out)
                    head = server.requests[0].split(b"\r\n\r\n", 1)[0] + b"\r\n\r\n"
                    info = b"INFO: %s header == \n---\n%s\n---\n" % (head.split(b" ", 1)[0], head)
                    self.assertIn(b"(be patient)..." + info, out)
                    if AB is not None:
                        self.assertEqual(server.requests[0], server.requests[1])
                        self.assertIn(b"(be patient)..." + info, real_out)


class AbCommandLineTest(unittest.TestCase):
    # Command lines ab refuses before connecting anywhere: stdout, stderr and the exit status
    # must be ab's exactly.
    BAD = [
        [],
        ["-h"],
        ["-n", "0", "http://127.0.0.1:1/"],
        ["-n", "abc", "http://127.0.0.1:1/"],
        ["-c", "5", "-n", "2", "http://127.0.0.1:1/"],
        ["-c", "-5", "http://127.0.0.1:1/"],
        ["http://127.0.0.1:1"],
        ["http://127.0.0.1:0/"],
        ["http://127.0.0.1:1/", "extra"],
        ["http://127.0.0.1:1/", "-n", "5"],
        ["-Q", "-n", "5", "http://127.0.0.1:1/"],
        ["-n"],
        ["-p", "/nonexistent/file", "http://127.0.0.1:1/"],
        ["-i", "-p", "/nonexistent/file", "http://127.0.0.1:1/"],
        ["-m", "PUT", "-i", "http://127.0.0.1:1/"],
        ["-V"],
        ["-V", "-n", "0"],
        ["-w", "-V"],
        ["-A", "a" * 800, "http://127.0.0.1:1/"],
        ["--foo", "-n", "3", "http://127.0.0.1:1/"],
        ["-n", "3", "-"],
    ]
    # Refused after the banner, the same way by both (no connection is tried).
    AFTER_BANNER = [
        ["-c", "0", "http://127.0.0.1:1/"],
        ["-X", "127.0.0.1", "-n", "2", "http://127.0.0.1:1/"],
    ]

    def test_usage_and_messages(self):
        for args in self.BAD + self.AFTER_BANNER:
            with self.subTest(args=args):
                run = hail_ab(args)
                self.assertIn(run.code, (0, 1, 22, 111), run.stderr)
                if AB is None:
                    continue
                real = run_ab(args)
                self.assertEqual((run.code, run.stdout, run.stderr),
                                 (real.code, real.stdout, real.stderr))

    def test_zero_timeout(self):
        # ab's first poll gets no time to wait and ends the test. (A response that is in before
        # ab polls lets it go on, so ab gets many requests to do: it cannot win every race.)
        with HailServer() as server:
            args = ["-q", "-s", "0", "-n", "1000", server.url + "/bytes/1"]
            run = hail_ab(args)
            self.assertEqual((run.code, run.stdout, run.stderr),
                             (119, COPYRIGHT + "Benchmarking 127.0.0.1 (be patient)...",
                              "apr_pollset_poll: The timeout specified has expired (70007)\n"))
            if AB is not None:
                # ab may finish a request or two before its poll gives up ("Total of 1 requests
                # completed" then follows the banner).
                real = run_ab(args)
                self.assertEqual((real.code, real.stderr), (run.code, run.stderr))
                self.assertTrue(real.stdout.startswith(run.stdout), real.stdout)

    def test_started_as_ab(self):
        """A link named ab makes hail behave as ab (./run install-aliases)."""
        with tempfile.TemporaryDirectory(prefix="hail_ab_") as tmp:
            link = os.path.join(tmp, "ab")
            os.symlink(os.path.abspath(hail_bin()), link)
            usage = subprocess.run([link], stdin=subprocess.DEVNULL, capture_output=True,
                                   text=True, timeout=10)
            self.assertEqual(usage.returncode, 22)
            self.assertTrue(usage.stderr.startswith(
                "%s: wrong number of arguments\nUsage: %s [options] [http[s]://]hostname[:port]/"
                "path\n" % (link, link)), usage.stderr)
            with HailServer() as server:
                url = server.url + "/bytes/10"
                run = subprocess.run([link, "-n", "3", url], stdin=subprocess.DEVNULL,
                                     capture_output=True, text=True, timeout=30)
                self.assertEqual(run.returncode, 0, run.stderr)
                self.assertTrue(run.stdout.startswith(COPYRIGHT), run.stdout)
                self.assertIn("\nComplete requests:      3\n", run.stdout)


if __name__ == "__main__":
    unittest.main()
