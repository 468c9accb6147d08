"""The command line: usage errors, --help, --version, the text report and --json FILE."""

import json
import os
import re
import shutil
import tempfile
import unittest

from support import HailServer, HostileServer, check_accounting, describe, run_hail

# Arguments that must be refused with exit 2 and a single "hail: ..." line on stderr.
BAD_INPUTS = [
    ("unknown long flag", ["--frobnicate", "http://127.0.0.1:1/"]),
    ("unknown short flag", ["-Z", "http://127.0.0.1:1/"]),
    ("bad duration unit", ["-d", "10x", "http://127.0.0.1:1/"]),
    ("zero connections", ["-c", "0", "http://127.0.0.1:1/"]),
    ("negative connections", ["-c", "-1", "http://127.0.0.1:1/"]),
    ("zero requests", ["-n", "0", "http://127.0.0.1:1/"]),
    ("zero threads", ["-t", "0", "http://127.0.0.1:1/"]),
    ("zero duration", ["-d", "0", "http://127.0.0.1:1/"]),
    ("zero timeout", ["--timeout", "0s", "http://127.0.0.1:1/"]),
    ("flag without value", ["http://127.0.0.1:1/", "-c"]),
    ("header without colon", ["-H", "NoColon", "http://127.0.0.1:1/"]),
    ("ftp scheme", ["ftp://x/"]),
    ("no host", ["http://"]),
    ("port 0", ["http://h:0/"]),
    ("port too large", ["http://h:70000/"]),
    ("missing body file", ["--body-file", "/nonexistent/hail-body", "http://127.0.0.1:1/"]),
    ("body file is a directory", ["--body-file", "/", "http://127.0.0.1:1/"]),
    ("CR LF in a header value", ["-H", "X: a\r\nInjected: 1", "http://127.0.0.1:1/"]),
    ("space in a header name", ["-H", "Bad Name: x", "http://127.0.0.1:1/"]),
    ("empty method", ["-m", "", "http://127.0.0.1:1/"]),
    ("space in URL", ["http://127.0.0.1:1/a b"]),
    ("too many connections", ["-c", "1000001", "http://127.0.0.1:1/"]),
    ("negative warm-up", ["--warmup", "-1s", "http://127.0.0.1:1/"]),
    ("body and body file", ["--body", "x", "--body-file", "/etc/hostname",
                            "http://127.0.0.1:1/"]),
    ("missing URL", []),
    ("missing URL with flags", ["-c", "2", "-d", "1s"]),
    ("two URLs", ["http://127.0.0.1:1/", "http://127.0.0.1:2/"]),
]

FLAGS = ["-c", "--connections", "-t", "--threads", "-d", "--duration", "-n", "--requests",
         "--timeout", "-m", "--method", "-H", "--header", "--body", "--body-file", "--http1.0",
         "--no-keepalive", "--warmup", "--json", "-q", "--quiet", "-h", "--help", "-V",
         "--version"]


class UsageErrorsTest(unittest.TestCase):
    def test_bad_inputs_exit_2_with_one_line(self):
        for name, args in BAD_INPUTS:
            with self.subTest(name, args=args):
                run = run_hail(args, timeout=10)
                self.assertEqual(run.code, 2, "%s: %s" % (args, describe(run)))
                lines = run.stderr.splitlines()
                self.assertEqual(len(lines), 1, "%s: stderr %r" % (args, run.stderr))
                self.assertTrue(lines[0].startswith("hail: "), "%s: %r" % (args, lines[0]))
                self.assertGreater(len(lines[0]), len("hail: ") + 5, lines[0])
                self.assertEqual(run.stdout, "", "%s: stdout %r" % (args, run.stdout))

    def test_serve_bad_port(self):
        for args in (["serve", "--port", "70000"], ["serve", "--port", "x"],
                     ["serve", "--bogus"]):
            with self.subTest(args=args):
                run = run_hail(args, timeout=10)
                self.assertEqual(run.code, 2, describe(run))
                lines = run.stderr.splitlines()
                self.assertEqual(len(lines), 1, run.stderr)
                self.assertTrue(lines[0].startswith("hail serve: "), lines[0])


class InfoTest(unittest.TestCase):
    def test_help(self):
        for flag in ("--help", "-h"):
            run = run_hail([flag], timeout=10)
            self.assertEqual(run.code, 0, describe(run))
            self.assertEqual(run.stderr, "")
            self.assertIn("Usage: hail", run.stdout)
            for f in FLAGS:
                self.assertRegex(run.stdout, r"(^|[\s,])%s([\s,=]|$)" % re.escape(f),
                                 "--help does not mention %s" % f)
            for line in run.stdout.splitlines():
                self.assertLessEqual(len(line), 100, line)

    def test_version(self):
        for flag in ("--version", "-V"):
            run = run_hail([flag], timeout=10)
            self.assertEqual(run.code, 0, describe(run))
            self.assertEqual(run.stdout, "hail 0.1.0\n")
            self.assertEqual(run.stderr, "")

    def test_serve_help(self):
        run = run_hail(["serve", "--help"], timeout=10)
        self.assertEqual(run.code, 0, describe(run))
        for f in ("--host", "--port", "--root", "--threads"):
            self.assertIn(f, run.stdout)


class ReportTest(unittest.TestCase):
    def check_text_report(self, text):
        self.assertIn("Requests/sec:", text)
        self.assertIn("Accounting", text)
        for line in text.splitlines():
            self.assertLessEqual(len(line), 80, "line wider than 80 columns: %r" % line)
            self.assertNotIn("\033", line)

    def test_text_report(self):
        with HailServer() as srv:
            run = run_hail(["-n", "200", "-c", "4", "-q", srv.url + "/bytes/1000"], timeout=30)
        self.assertEqual(run.code, 0, describe(run))
        self.check_text_report(run.stdout)
        self.assertRegex(run.stdout, r"\b200 requests in ")
        self.assertRegex(run.stdout, r"Status codes\s+200: 200")
        self.assertRegex(run.stdout, r"Accounting\s+200 attempted = 200 completed \+ 0 failed "
                                     r"\+ 0 in flight\n")
        self.assertNotIn("MISMATCH", run.stdout)
        self.assertEqual(run.stderr, "")

    def test_text_report_with_errors_fits_80_columns(self):
        with HostileServer("garbage") as srv:
            run = run_hail(["-n", "10", "-c", "1", "-q", srv.url + "/"], timeout=30)
        self.assertEqual(run.code, 0, describe(run))
        self.check_text_report(run.stdout)
        self.assertRegex(run.stdout, r"parse 10\b")
        self.assertRegex(run.stdout, r"\n\s+parse: .*\(10\)\n")

    def test_json_file_and_text(self):
        tmp = tempfile.mkdtemp(prefix="hail-json-")
        try:
            path = os.path.join(tmp, "report.json")
            with HailServer() as srv:
                run = run_hail(["-n", "100", "-c", "2", "-q", "--json", path,
                                srv.url + "/bytes/10"], timeout=30)
            self.assertEqual(run.code, 0, describe(run))
            self.check_text_report(run.stdout)
            with open(path) as f:
                report = json.load(f)
            check_accounting(report)
            self.assertEqual(report["schema"], "hail/1")
            self.assertEqual(report["requests"]["completed"], 100)
            self.assertRegex(run.stdout, r"\b100 requests in ")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_json_stdout_only(self):
        with HailServer() as srv:
            run = run_hail(["-n", "10", "-c", "1", "--json", "-", srv.url + "/bytes/10"],
                           timeout=30)
        self.assertEqual(run.code, 0, describe(run))
        check_accounting(run.json)
        self.assertNotIn("Requests/sec:", run.stdout)
        for key in ("schema", "url", "method", "http_version", "keep_alive", "duration_s",
                    "warmup_s", "timeout_s", "connections", "threads", "connections_opened",
                    "interrupted", "requests", "errors", "error_reasons", "status_codes",
                    "throughput", "latency_us", "connect_us", "ttfb_us", "accounting_ok",
                    "client", "notes"):
            self.assertIn(key, run.json)
        for key in ("count", "min", "mean", "stdev", "max", "p50", "p75", "p90", "p99", "p99.9",
                    "p99.99"):
            self.assertIn(key, run.json["latency_us"])
        lat = run.json["latency_us"]
        self.assertLessEqual(lat["min"], lat["p50"])
        self.assertLessEqual(lat["p50"], lat["p99"])
        self.assertLessEqual(lat["p99"], lat["max"])


if __name__ == "__main__":
    unittest.main()


class ResourceLimitTest(unittest.TestCase):
    """-c beyond what RLIMIT_NOFILE allows (and cannot be raised to): refused before starting."""

    def test_fd_limit_refusal(self):
        import resource
        import subprocess
        from support import hail_bin

        def lower_limit():
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

        proc = subprocess.run([hail_bin(), "-c", "5000", "-d", "1s", "-q", "http://127.0.0.1:1/"],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=30, preexec_fn=lower_limit)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("RLIMIT_NOFILE", lines[0])
        self.assertIn("ulimit -n", lines[0])
        self.assertEqual(proc.stdout, "", "nothing was run, so no report")


class DemoTest(unittest.TestCase):
    """`hail demo` (what `./run demo` runs): a real benchmark of the built-in server."""

    def test_demo_reports_matching_server_count(self):
        r = run_hail(["demo"], timeout=60)
        self.assertEqual(r.code, 0, r.stderr)
        self.assertIn("Requests/sec:", r.stdout)
        completed = int(re.search(r"^\s+(\d+) requests in", r.stdout, re.M).group(1))
        attempted = int(re.search(r"Accounting\s+(\d+) attempted", r.stdout).group(1))
        served = int(re.search(r"Server side: (\d+) requests answered", r.stdout).group(1))
        self.assertGreater(completed, 1000)
        self.assertGreaterEqual(served, completed)
        self.assertLessEqual(served, attempted)
