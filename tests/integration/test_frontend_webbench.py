"""`hail webbench ...` (and hail started through a link named webbench) against `hail serve` and a
small request-capturing server. webbench itself is not packaged in Debian 12, so the expected
output, messages, exit statuses and request bytes come from webbench 1.5's source (webbench.c by
Radim Kolar): the lines must have its structure; numbers differ from run to run and are checked
against the server's own counts instead."""

import os
import re
import struct
import subprocess
import tempfile
import time
import unittest

from capture_server import CaptureServer
from support import HailRun, HailServer, free_port, hail_bin, run_hail

COPYRIGHT = ("Webbench - Simple Web Benchmark 1.5\n"
             "Copyright (c) Radim Kolar 1997-2004, GPL Open Source Software.\n")
USAGE_FIRST = "webbench [option]... URL\n  -f|--force               Don't wait for reply from server.\n"
USAGE_LAST = "  -V|--version             Display program version.\n"
CONNECT_FAILED = "\nConnect to server failed. Aborting benchmark.\n"

# webbench's stdout after a run, line by line (its printf formats, "susceed" included).
REPORT = re.compile(
    r"\nBenchmarking: (?P<method>GET|HEAD|OPTIONS|TRACE) (?P<url>\S+)"
    r"(?P<proto> \(using HTTP/(?:0\.9|1\.1)\))?\n"
    r"(?P<clients>1 client|\d+ clients), running (?P<seconds>\d+) sec"
    r"(?P<extras>(?:, early socket close)?(?:, via proxy server \S+:\d+)?(?:, forcing reload)?)"
    r"\.\n"
    r"\nSpeed=(?P<pages>\d+) pages/min, (?P<bytes>\d+) bytes/sec\.\n"
    r"Requests: (?P<ok>\d+) susceed, (?P<failed>\d+) failed\.\n")


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def webbench_speed(requests, seconds):
    """webbench's (int)((speed + failed) / (benchtime / 60.0f)), in float as it computes it."""
    return int(f32(f32(requests) / f32(f32(seconds) / f32(60.0))))


def hail_webbench(args, timeout=30):
    return run_hail(["webbench"] + list(args), timeout=timeout)


def parse_report(test, run):
    test.assertEqual(run.code, 0, run.stderr)
    test.assertEqual(run.stderr, COPYRIGHT)
    m = REPORT.fullmatch(run.stdout)
    test.assertIsNotNone(m, run.stdout)
    return m


class WebbenchRunTest(unittest.TestCase):
    def test_summary_and_server_counts(self):
        # Every request on a connection of its own: the server sees as many connections as
        # requests, plus webbench's check connection and the connects still in progress when the
        # run stopped (at most one per client); the requests it read are the ones hail completed
        # plus those in flight at the end (again at most one per client).
        clients, seconds = 4, 2
        with HailServer(threads=2) as server:
            url = server.url + "/bytes/100"
            before = server.stats()
            run = hail_webbench(["-c", clients, "-t", seconds, url])
            time.sleep(0.2)  # let the server finish with the last connections
            delta = HailServer.stats_delta(before, server.stats())
            _, response = server.get("/bytes/100")
        m = parse_report(self, run)
        self.assertEqual(m.group("url"), url)
        self.assertEqual(m.group("method"), "GET")
        self.assertIsNone(m.group("proto"))  # HTTP/1.0 is not named
        self.assertEqual(m.group("clients"), "4 clients")
        self.assertEqual(m.group("seconds"), "2")
        self.assertEqual(m.group("extras"), "")
        ok, failed = int(m.group("ok")), int(m.group("failed"))
        self.assertGreater(ok, 0, run.stdout)
        self.assertEqual(failed, 0, run.stdout)
        self.assertEqual(int(m.group("pages")), webbench_speed(ok + failed, seconds))
        where = (delta, run.stdout)
        self.assertLessEqual(ok, delta["requests"], where)
        self.assertLessEqual(delta["requests"], ok + clients, where)
        idle = delta["connections"] - 1 - delta["requests"]  # connections without a request
        self.assertGreaterEqual(idle, 0, where)
        self.assertLessEqual(idle, clients, where)
        # bytes/sec: every response read in full (head + 100 bytes), and at most a few partial.
        self.assertEqual(len(response), 100)
        per_response_min = 100 + len("HTTP/1.1 200 OK\r\n\r\n")
        self.assertGreaterEqual(int(m.group("bytes")) * seconds, ok * per_response_min - seconds,
                                where)

    def test_non_2xx_responses_count_as_succeeded(self):
        # webbench never looks at the status: a response read to its end is a success.
        with HailServer() as server:
            run = hail_webbench(["-t", "1", server.url + "/status/503"])
        m = parse_report(self, run)
        self.assertGreater(int(m.group("ok")), 0)
        self.assertEqual(m.group("failed"), "0")

    def test_protocol_variants_send_webbenchs_requests(self):
        """The bytes on the wire for -1 (default), -2, -9, --head, --options, --trace, and -r
        without a proxy: exactly webbench's request (line, fields, order)."""
        ua = "User-Agent: WebBench 1.5"
        cases = [
            # args, expected banner tail, request line, webbench's fields (in order)
            ([], "", "GET /x HTTP/1.0", [ua, "Host: 127.0.0.1"]),
            (["-1"], "", "GET /x HTTP/1.0", [ua, "Host: 127.0.0.1"]),
            (["-2"], " (using HTTP/1.1)", "GET /x HTTP/1.1",
             [ua, "Host: 127.0.0.1", "Connection: close"]),
            (["-9"], " (using HTTP/0.9)", None, None),
            (["-9", "--head"], "", "HEAD /x HTTP/1.0", [ua, "Host: 127.0.0.1"]),
            (["--options"], " (using HTTP/1.1)", "OPTIONS /x HTTP/1.1",
             [ua, "Host: 127.0.0.1", "Connection: close"]),
            (["--trace"], " (using HTTP/1.1)", "TRACE /x HTTP/1.1",
             [ua, "Host: 127.0.0.1", "Connection: close"]),
            (["-r"], "", "GET /x HTTP/1.0", [ua, "Host: 127.0.0.1"]),
        ]
        for args, proto, line, webbench_fields in cases:
            with self.subTest(args=args), CaptureServer() as capture:
                url = "http://127.0.0.1:%d/x" % capture.port
                run = hail_webbench(args + ["-t", "1", url])
                m = parse_report(self, run)
                self.assertEqual(m.group("proto") or "", proto)
                self.assertEqual(m.group("extras"), ", forcing reload" if "-r" in args else "")
                time.sleep(0.1)
                with capture.lock:
                    requests, empty = list(capture.requests), capture.empty
                self.assertGreater(len(requests), 0)
                # the check connection, and at most one connect in progress at the end
                self.assertIn(empty, (1, 2))
                ok = int(m.group("ok"))
                self.assertIn(len(requests), (ok, ok + 1), run.stdout)
                self.assertEqual(m.group("failed"), "0")
                for r in requests:
                    if line is None:
                        self.assertEqual(r, b"GET /x\r\n")  # HTTP/0.9: the line alone
                    else:
                        want = line + "\r\n" + "".join(f + "\r\n" for f in webbench_fields) + "\r\n"
                        self.assertEqual(r, want.encode())

    def test_proxy_gets_the_absolute_url(self):
        with CaptureServer() as proxy:
            target = "http://example.invalid:8080/page?q=1"
            run = hail_webbench(["-p", "127.0.0.1:%d" % proxy.port, "-r", "-t", "1", target])
            m = parse_report(self, run)
            self.assertEqual(m.group("url"), target)
            self.assertEqual(m.group("extras"),
                             ", via proxy server 127.0.0.1:%d, forcing reload" % proxy.port)
            time.sleep(0.1)
            with proxy.lock:
                requests = list(proxy.requests)
        self.assertGreater(len(requests), 0)
        # webbench sends no Host through a proxy.
        self.assertEqual(requests[0], ("GET %s HTTP/1.0\r\nUser-Agent: WebBench 1.5\r\n"
                                       "Pragma: no-cache\r\n\r\n" % target).encode())

    def test_force_is_accepted(self):
        with HailServer() as server:
            run = hail_webbench(["-f", "-t", "1", server.url + "/bytes/10"])
        m = parse_report(self, run)
        self.assertEqual(m.group("extras"), ", early socket close")

    def test_unreachable_target(self):
        url = "http://127.0.0.1:%d/" % free_port()
        run = hail_webbench(["-t", "1", url])
        self.assertEqual(run.code, 1)
        self.assertEqual(run.stdout, "\nBenchmarking: GET %s\n1 client, running 1 sec.\n" % url)
        self.assertEqual(run.stderr, COPYRIGHT + CONNECT_FAILED)


class WebbenchCommandLineTest(unittest.TestCase):
    def check_usage(self, run, message=""):
        self.assertEqual(run.code, 2, run.stderr)
        self.assertEqual(run.stdout, "")
        self.assertTrue(run.stderr.startswith(message + USAGE_FIRST), run.stderr)
        self.assertTrue(run.stderr.endswith(USAGE_LAST), run.stderr)

    def test_usage_and_messages(self):
        url = "http://127.0.0.1:1/"
        self.check_usage(hail_webbench([]))
        for args in (["-h"], ["-?"], ["--help", url], ["--hel"]):
            with self.subTest(args=args):
                self.check_usage(hail_webbench(args))
        self.check_usage(hail_webbench(["-c", "5"]), "webbench: Missing URL!\n")
        self.check_usage(hail_webbench(["-x", url]), "webbench: invalid option -- 'x'\n")
        self.check_usage(hail_webbench([url, "-t"]),
                         "webbench: option requires an argument -- 't'\n")
        self.check_usage(hail_webbench(["--http1", url]),
                         "webbench: option '--http1' is ambiguous; possibilities: '--http10' "
                         "'--http11'\n")

    def test_url_errors_follow_the_copyright(self):
        cases = [
            (["127.0.0.1/"], "\n127.0.0.1/: is not a valid URL.\n"),
            (["https://127.0.0.1/"],
             "\nOnly HTTP protocol is directly supported, set --proxy for others.\n"),
            (["http://127.0.0.1:8080"], "\nInvalid URL syntax - hostname don't ends with '/'.\n"),
            (["http://127.0.0.1/" + "a" * 1490], "URL is too long.\n"),
        ]
        for args, message in cases:
            with self.subTest(args=args[0][:40]):
                run = hail_webbench(args)
                self.assertEqual((run.code, run.stdout, run.stderr), (2, "", COPYRIGHT + message))

    def test_proxy_errors(self):
        url = "http://127.0.0.1:1/"
        run = hail_webbench(["-p", ":3128", url])
        self.assertEqual((run.code, run.stdout, run.stderr),
                         (2, "", "Error in option --proxy :3128: Missing hostname.\n"))
        run = hail_webbench(["-p", "h:", url])
        self.assertEqual((run.code, run.stdout, run.stderr),
                         (2, "", "Error in option --proxy h: Port number is missing.\n"))

    def test_hail_refusals(self):
        run = hail_webbench(["-c", "-3", "http://127.0.0.1:1/"])
        self.assertEqual((run.code, run.stdout), (2, ""))
        self.assertEqual(run.stderr, "hail: -c -3: must be 1 to 1000000 clients\n")

    def test_version(self):
        run = hail_webbench(["-V", "-x"])
        self.assertEqual((run.code, run.stderr), (0, ""))
        self.assertRegex(run.stdout, r"^1\.5 \(hail \S+\)\n$")

    def test_started_as_webbench(self):
        """A link named webbench makes hail behave as webbench (./run install-aliases)."""
        with tempfile.TemporaryDirectory(prefix="hail_webbench_") as tmp:
            link = os.path.join(tmp, "webbench")
            os.symlink(os.path.abspath(hail_bin()), link)
            usage = subprocess.run([link], stdin=subprocess.DEVNULL, capture_output=True,
                                   text=True, timeout=10)
            self.assertEqual((usage.returncode, usage.stdout), (2, ""))
            self.assertTrue(usage.stderr.startswith(USAGE_FIRST), usage.stderr)
            with HailServer() as server:
                url = server.url + "/bytes/10"
                run = subprocess.run([link, "-c", "2", "-t", "1", "-2", url],
                                     stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                     timeout=30)
            m = parse_report(self, HailRun(run.returncode, run.stdout, run.stderr, None, 0))
            self.assertEqual(m.group("url"), url)
            self.assertEqual(m.group("proto"), " (using HTTP/1.1)")
            self.assertEqual(m.group("clients"), "2 clients")


if __name__ == "__main__":
    unittest.main()
