"""The command line: usage errors, --help, --version, the text report and --json FILE."""

import json
import os
import platform
import re
import shutil
import socket
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


U = "http://127.0.0.1:1/"
S = "https://127.0.0.1:1/"

# Every native flag that takes a value, with bad values of each kind (zero, negative, huge, wrong
# unit, wrong type, empty): (args, text the single stderr line must contain). The text is the flag
# as spelled, so that the user sees which one is wrong; NATIVE_VALUE_ECHO lists cases whose line
# must also quote the bad value.
NATIVE_BAD_VALUES = [
    (["-c", "0", U], "-c"),
    (["-c", "-1", U], "-c"),
    (["-c", "1000001", U], "-c"),
    (["-c", "99999999999999999999999", U], "-c"),
    (["-c", "1.5", U], "-c"),
    (["-c", "ten", U], "-c"),
    (["-c", "10s", U], "-c"),
    (["-c", "", U], "-c"),
    (["--connections=0", U], "--connections"),
    (["-t", "0", U], "-t"),
    (["-t", "-2", U], "-t"),
    (["-t", "1025", U], "-t"),
    (["-t", "two", U], "-t"),
    (["-t", "2.5", U], "-t"),
    (["-d", "0", U], "-d"),
    (["-d", "-1s", U], "-d"),
    (["-d", "10x", U], "-d"),
    (["-d", "5 s", U], "-d"),
    (["-d", "1.5.5s", U], "-d"),
    (["-d", "1000000h", U], "-d"),
    (["-d", "99999999999999999999999s", U], "-d"),
    (["-d", "s", U], "-d"),
    (["--duration=", U], "--duration"),
    (["-n", "0", U], "-n"),
    (["-n", "-5", U], "-n"),
    (["-n", "1.5", U], "-n"),
    (["-n", "281474976710657", U], "-n"),
    (["-n", "1e3", U], "-n"),
    (["-n", "many", U], "-n"),
    (["--timeout", "0", U], "--timeout"),
    (["--timeout", "-1s", U], "--timeout"),
    (["--timeout", "5parsecs", U], "--timeout"),
    (["--timeout", "soon", U], "--timeout"),
    (["--warmup", "-1s", U], "--warmup"),
    (["--warmup", "x", U], "--warmup"),
    (["--warmup", "1q", U], "--warmup"),
    (["-m", "", U], "-m"),
    (["-m", "GE T", U], "-m"),
    (["-m", "GE(T", U], "-m"),
    (["-H", "NoColon", U], "-H"),
    (["-H", ": value", U], "-H"),
    (["-H", "Bad Name: x", U], "-H"),
    (["-H", "X: a\r\nInjected: 1", U], "-H"),
    (["--header", "X: a\x01b", U], "--header"),
    (["--body-file", "/nonexistent/hail-body", U], "--body-file"),
    (["--body-file", "/", U], "--body-file"),
    (["--body-file", "", U], "--body-file"),
    (["--json", "", U], "--json"),
    (["-R", "0", U], "-R"),
    (["-R", "-5", U], "-R"),
    (["-R", "fast", U], "-R"),
    (["-R", "2e3", U], "-R"),
    (["-R", "1000000001", U], "-R"),
    (["-R", ".5", U], "-R"),
    (["-R", "1.2.3", U], "-R"),
    (["--rate", "10x", U], "--rate"),
    (["-R", "10", "--arrival", "burst", U], "--arrival"),
    (["-R", "10", "--arrival", "", U], "--arrival"),
    (["-R", "10", "--max-connections", "0", U], "--max-connections"),
    (["-R", "10", "--max-connections", "x", U], "--max-connections"),
    (["-R", "10", "--max-connections", "1000001", U], "--max-connections"),
    (["--stages", "", U], "--stages"),
    (["--stages", "10s", U], "--stages"),
    (["--stages", "10s:", U], "--stages"),
    (["--stages", ":5", U], "--stages"),
    (["--stages", "10x:5", U], "--stages"),
    (["--stages", "10s:-1", U], "--stages"),
    (["--stages", "10s:abc", U], "--stages"),
    (["--stages", "0s:5", U], "--stages"),
    (["--stages", "1s:2000000", U], "--stages"),
    (["--stages", "1s:5", "--repeat", "0", U], "--repeat"),
    (["--stages", "1s:5", "--repeat", "-1", U], "--repeat"),
    (["--stages", "1s:5", "--repeat", "x", U], "--repeat"),
    (["--ladder", "1:1", "--step-duration", "1s", U], "--ladder"),
    (["--ladder", "5:1:1", "--step-duration", "1s", U], "--ladder"),
    (["--ladder", "1:0:5", "--step-duration", "1s", U], "--ladder"),
    (["--ladder", "a:b:c", "--step-duration", "1s", U], "--ladder"),
    (["--ladder", "1:1:5:7", "--step-duration", "1s", U], "--ladder"),
    (["--ladder", "1:1:100000", "--step-duration", "1s", U], "--ladder"),
    (["--ladder", "1:1:5", "--step-duration", "0", U], "--step-duration"),
    (["--ladder", "1:1:5", "--step-duration", "x", U], "--step-duration"),
    (["--ladder", "1:1:5", "--step-duration", "-1s", U], "--step-duration"),
    (["--think", "0", U], "--think"),
    (["--think", "-1ms", U], "--think"),
    (["--think", "x", U], "--think"),
    (["--interval", "0", U], "--interval"),
    (["--interval", "5ms", U], "--interval"),
    (["--interval", "x", U], "--interval"),
    (["--timeseries", "", U], "--timeseries"),
    (["--timeseries", "out.txt", U], "--timeseries"),
    (["--timeseries", "noextension", U], "--timeseries"),
    (["--hlog", "", U], "--hlog"),
    (["--hlog", "-", U], "--hlog"),
    (["--h2", "--streams", "0", U], "--streams"),
    (["--h2", "--streams", "1001", U], "--streams"),
    (["--h2", "--streams", "x", U], "--streams"),
    (["--h2", "--streams", "-1", U], "--streams"),
    (["--h2", "--window-bits", "15", U], "--window-bits"),
    (["--h2", "--window-bits", "31", U], "--window-bits"),
    (["--h2", "--window-bits", "x", U], "--window-bits"),
    (["--h2", "--window-bits", "-1", U], "--window-bits"),
    (["--pipeline", "0", U], "--pipeline"),
    (["--pipeline", "1025", U], "--pipeline"),
    (["--pipeline", "x", U], "--pipeline"),
    (["--unix-socket", "", U], "--unix-socket"),
    (["--unix-socket", "/tmp/" + "s" * 200, U], "--unix-socket"),
    (["--connect-to", "nohost", U], "--connect-to"),
    (["--connect-to", "h:0", U], "--connect-to"),
    (["--connect-to", "h:70000", U], "--connect-to"),
    (["--connect-to", "h:x", U], "--connect-to"),
    (["--connect-to", "[::1]", U], "--connect-to"),
    (["--connect-to", ":80", U], "--connect-to"),
    (["--connect-to", "", U], "--connect-to"),
    (["--sni", "", S], "--sni"),
    (["--sni", "a b", S], "--sni"),
    (["--sni", "a/b", S], "--sni"),
    (["--tls-min", "1.4", S], "--tls-min"),
    (["--tls-min", "ssl3", S], "--tls-min"),
    (["--tls-min", "", S], "--tls-min"),
    (["--tls-max", "2", S], "--tls-max"),
    (["--tls-min", "1.3", "--tls-max", "1.2", S], "--tls-m"),
    (["--ciphers", "", S], "--ciphers"),
    (["--ciphers", "NO-SUCH-CIPHER", S], "--ciphers"),
    (["--ciphers", "TLS_NO_SUCH_SUITE", S], "--ciphers"),
    (["--cacert", "", S], "--cacert"),
]

# Cases whose line must also quote the bad value itself.
NATIVE_VALUE_ECHO = {"-c": ["1000001", "ten", "1.5"], "-d": ["10x", "-1s"], "-n": ["1.5"],
                     "--timeout": ["5parsecs"], "-R": ["fast"], "--arrival": ["burst"],
                     "--stages": ["10x:5"], "--ladder": ["5:1:1"], "--interval": ["5ms"],
                     "--connect-to": ["nohost"], "--tls-min": ["1.4"],
                     "--timeseries": ["out.txt"]}

# Flags without a value given one, or values where a flag belongs.
NATIVE_WRONG_SHAPE = [
    (["--quiet=yes", U], "--quiet"),
    (["--h2=1", U], "--h2"),
    (["--no-keepalive=true", U], "--no-keepalive"),
    (["--verify=no", S], "--verify"),
    (["-c"], "-c"),
    (["--rate"], "--rate"),
    ([U, "--", "-c", "5"], "-c"),
]

# URLs refused before anything runs (exit 2).
BAD_URLS = [
    "ftp://h/", "gopher://h/", "//h/", "h:80", "127.0.0.1:80", "http://", "https://",
    "http://:80/", "http://h:0/", "http://h:65536/", "http://h:-1/", "http://h:port/",
    "http://h:99999999999999999999/", "http://[::1/", "http://[zz]/", "http://::1/",
    "http://user:pw@h/", "http://h/a b", "http://h/\x7f", "http://h/\u00e9", "",
]

# hail serve: usage errors (exit 2, one "hail serve: ..." line naming the flag).
SERVE_BAD_FLAGS = [
    (["--port", "70000"], "--port"),
    (["--port", "65536"], "--port"),
    (["--port", "-1"], "--port"),
    (["--port", "x"], "--port"),
    (["--port", ""], "--port"),
    (["--port"], "--port"),
    (["--threads", "0"], "--threads"),
    (["--threads", "1025"], "--threads"),
    (["--threads", "two"], "--threads"),
    (["--header-timeout", "x"], "--header-timeout"),
    (["--header-timeout", "-1s"], "--header-timeout"),
    (["--header-timeout", "10x"], "--header-timeout"),
    (["--idle-timeout", "soon"], "--idle-timeout"),
    (["--max-connections", "0"], "--max-connections"),
    (["--max-connections", "x"], "--max-connections"),
    (["--max-connections", "5000000000"], "--max-connections"),
    (["--h2-max-streams", "0"], "--h2-max-streams"),
    (["--h2-max-streams", "3000000000"], "--h2-max-streams"),
    (["--h2-max-requests", "-3"], "--h2-max-requests"),
    (["--h2-max-requests", "x"], "--h2-max-requests"),
    (["--root", ""], "--root"),
    (["--host", ""], "--host"),
    (["--unix-socket", ""], "--unix-socket"),
    (["--unix-socket", "/tmp/s", "--port", "80"], "--unix-socket"),
    (["--tls-cert", "c.pem"], "--tls-"),
    (["--tls-key", "k.pem"], "--tls-"),
    (["--tls-self-signed", "--tls-cert", "c", "--tls-key", "k"], "--tls-self-signed"),
    (["--tls-self-signed=yes"], "--tls-self-signed"),
    (["--no-h2=1"], "--no-h2"),
    (["--bogus"], "--bogus"),
    (["-p", "80"], "-p"),
    (["extra"], "extra"),
    (["--", "extra"], "extra"),
]


def assert_one_line(test, run, code, prefix, contains=None, ctx=None):
    """Exit status `code`, nothing on stdout, exactly one stderr line starting with `prefix` and
    containing each of `contains`."""
    ctx = ctx if ctx is not None else ""
    test.assertEqual(run.code, code, "%s: %s" % (ctx, describe(run)))
    test.assertEqual(run.stdout, "", "%s: stdout %r" % (ctx, run.stdout))
    lines = run.stderr.splitlines()
    test.assertEqual(len(lines), 1, "%s: stderr %r" % (ctx, run.stderr))
    test.assertTrue(run.stderr.endswith("\n"), "%s: %r" % (ctx, run.stderr))
    test.assertTrue(lines[0].startswith(prefix), "%s: %r" % (ctx, lines[0]))
    test.assertGreater(len(lines[0]), len(prefix) + 5, lines[0])
    for text in contains or ():
        test.assertIn(text, lines[0], "%s: the message does not name %r" % (ctx, text))
    return lines[0]


class FlagValueTableTest(unittest.TestCase):
    """Table-driven bad input for every native flag, URL and `hail serve` flag, through the real
    binary: usage errors exit 2 with exactly one stderr line and nothing on stdout."""

    def test_every_native_flag_rejects_bad_values(self):
        for args, flag in NATIVE_BAD_VALUES:
            with self.subTest(args=args):
                run = run_hail(args, timeout=10)
                line = assert_one_line(self, run, 2, "hail: ", [flag], args)
                value = args[args.index(flag) + 1] if flag in args else None
                if value is not None and value in NATIVE_VALUE_ECHO.get(flag, []):
                    self.assertIn(value, line, "%s: the message does not quote the value" % args)

    def test_flags_of_the_wrong_shape(self):
        for args, flag in NATIVE_WRONG_SHAPE:
            with self.subTest(args=args):
                run = run_hail(args, timeout=10)
                assert_one_line(self, run, 2, "hail: ", [flag] if flag else [], args)

    def test_bad_urls(self):
        for url in BAD_URLS:
            with self.subTest(url=url):
                run = run_hail(["-d", "1s", url], timeout=10)
                assert_one_line(self, run, 2, "hail: ", [], url)

    def test_serve_bad_flags(self):
        for args, flag in SERVE_BAD_FLAGS:
            with self.subTest(args=args):
                run = run_hail(["serve"] + args, timeout=10)
                assert_one_line(self, run, 2, "hail serve: ", [flag], args)

    def test_demo_bad_argument(self):
        run = run_hail(["demo", "--bogus"], timeout=10)
        assert_one_line(self, run, 2, "hail demo: ", ["--bogus"])


class CouldNotRunTest(unittest.TestCase):
    """Problems found only when acting on valid-looking input: exit 1, one line, and before the
    run starts (each case points at a live server with a 30 s duration, so a run that started
    anyway would blow the 10 s limit)."""

    @classmethod
    def setUpClass(cls):
        cls.server = HailServer()
        cls.server.__enter__()
        cls.tmp = tempfile.mkdtemp(prefix="hail-cli-")

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def check(self, args, contains, code=1):
        run = run_hail(["-d", "30s", "-c", "1", "-q"] + args, timeout=10)
        line = assert_one_line(self, run, code, "hail: ", contains, args)
        self.assertLess(run.seconds, 5.0, "%s: took %.1fs" % (args, run.seconds))
        return line

    def test_unresolvable_host(self):
        self.check(["http://nonexistent.invalid/"], ["nonexistent.invalid"])

    def test_output_files_in_missing_directories(self):
        missing = os.path.join(self.tmp, "no", "such", "dir")
        url = self.server.url + "/bytes/1"
        self.check(["--timeseries", os.path.join(missing, "s.csv"), url], ["--timeseries"])
        self.check(["--json", os.path.join(missing, "r.json"), url], ["--json"])
        self.check(["--json", self.tmp, url], ["--json"])  # a directory
        self.assertEqual(os.listdir(self.tmp), [], "nothing may be left behind")

    def test_hlog_in_a_missing_directory(self):
        missing = os.path.join(self.tmp, "no", "such", "dir")
        self.check(["--hlog", os.path.join(missing, "r.hlog"), self.server.url + "/bytes/1"],
                   ["--hlog"])
        self.assertEqual(os.listdir(self.tmp), [], "nothing may be left behind")

    def test_a_run_that_never_started_leaves_output_files_alone(self):
        # An earlier report survives a run that fails before starting, and no empty file is made.
        old_report = os.path.join(self.tmp, "old.json")
        old_series = os.path.join(self.tmp, "old.csv")
        for path in (old_report, old_series):
            with open(path, "w") as f:
                f.write("earlier\n")
        new_report = os.path.join(self.tmp, "new.json")
        try:
            for json_path, series_path in ((old_report, old_series), (new_report, old_series)):
                self.check(["--json", json_path, "--timeseries", series_path,
                            "http://nonexistent.invalid/"], ["nonexistent.invalid"])
                for path in (old_report, old_series):
                    with open(path) as f:
                        self.assertEqual(f.read(), "earlier\n", path)
                self.assertFalse(os.path.exists(new_report))
        finally:
            for path in (old_report, old_series):
                os.unlink(path)

    def test_missing_ca_file(self):
        missing = os.path.join(self.tmp, "missing-ca.pem")
        line = self.check(["--cacert", missing, "https://127.0.0.1:%d/" % self.server.port],
                          [missing])
        self.assertNotIn("connect", line)

    def test_serve_cannot_start(self):
        regular = os.path.join(self.tmp, "not-a-socket")
        with open(regular, "w") as f:
            f.write("x")
        try:
            cases = [
                (["--root", "/nonexistent/hail-root"], "/nonexistent/hail-root"),
                (["--root", "/etc/hostname"], "/etc/hostname"),
                (["--port", str(self.server.port)], str(self.server.port)),
                (["--host", "nonexistent.invalid"], "nonexistent.invalid"),
                (["--tls-cert", "/nonexistent/c.pem", "--tls-key", "/nonexistent/k.pem"],
                 "/nonexistent/"),
                (["--unix-socket", regular], regular),
            ]
            for args, text in cases:
                with self.subTest(args=args):
                    run = run_hail(["serve"] + args, timeout=10)
                    assert_one_line(self, run, 1, "hail serve: ", [text], args)
        finally:
            os.unlink(regular)


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
            lines = run.stdout.splitlines()
            # The version, the commit and build type, then the libraries compiled in.
            self.assertRegex(lines[0], r"^hail 0\.1\.0 \(commit ([0-9a-f]{12}(-dirty)?|unknown), "
                                       r"\w+ build\)$")
            self.assertRegex(run.stdout, r"TLS: +OpenSSL \d")
            self.assertRegex(run.stdout, r"HTTP/2: +nghttp2 \d")
            self.assertRegex(run.stdout, r"LuaJIT \d")
            self.assertRegex(run.stdout, r"zlib \d")
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
            self.assertEqual(report["schema"], "hail/2")
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
        # The machine the load came from (README: JSON report).
        machine = run.json["machine"]
        self.assertEqual(machine["hostname"], socket.gethostname())
        self.assertEqual(machine["cpus"], os.cpu_count())
        self.assertEqual(machine["kernel"].split(" ")[:2], [platform.system(), platform.release()])
        self.assertNotEqual(machine["cpu_model"], "")
        self.assertNotIn("machines", run.json)  # one run, one machine


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
