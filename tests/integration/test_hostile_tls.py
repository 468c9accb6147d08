"""hail against hostile TLS servers: a handshake that stalls, a certificate that fails --verify, a
close_notify in the middle of a response, renegotiation and key-update requests, a truncated
record, an ALPN answer hail did not offer. hostile_tls_server (C++, OpenSSL; $HAIL_HOSTILE_TLS,
built with the tests) produces what Python's ssl module cannot; it counts on its side the
connections, handshakes, requests and answers, which each test compares with hail's report.

Expected outcomes (README, "What the numbers mean"): failures before a connection can carry a
request are `connect` errors with a readable reason (and with every connection failing, exit 1);
a response cut short by close_notify or by a close in the middle of a record is a `read` error;
renegotiation is taken part in over HTTP/1.1 and refused over HTTP/2 (RFC 9113 §9.2.1); a TLS 1.3
key update is answered.
"""

import glob
import json
import os
import subprocess
import tempfile
import unittest

from hostile_h2 import make_certificate
from support import REPO, check_accounting, describe, run_hail

REQUEST_CLASSES = ("read", "write", "timeout", "parse", "stream")


def tool():
    env = os.environ.get("HAIL_HOSTILE_TLS")
    if env:
        return env
    found = glob.glob(os.path.join(REPO, "build", "*", "tests", "integration",
                                   "hostile_tls_server"))
    if not found:
        raise AssertionError("no hostile_tls_server: set HAIL_HOSTILE_TLS or build the tests")
    return max(found, key=os.path.getmtime)


class HostileTlsServer:
    """hostile_tls_server MODE as a context manager; .url, stats() (the server's counters)."""

    def __init__(self, mode, cert, key):
        self.args = [tool(), mode, cert, key]
        self.proc = None

    def __enter__(self):
        self.proc = subprocess.Popen(self.args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline().split()
        if len(line) != 2 or line[0] != "port":
            self.proc.kill()
            raise AssertionError("hostile_tls_server did not start: %r" % line)
        self.url = "https://127.0.0.1:%s/" % line[1]
        return self

    def stats(self):
        self.proc.stdin.write("stats\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def __exit__(self, *exc):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()
        return False


class HostileTlsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="hail-hostile-tls-")
        cls.cert, cls.key = make_certificate(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_against(self, mode, n, *extra, timeout="2s"):
        with HostileTlsServer(mode, self.cert, self.key) as srv:
            run = run_hail(["-n", n, "-c", "1", "-t", "1", "--timeout", timeout, "--json", "-",
                            "-q"] + list(extra) + [srv.url], timeout=30)
            # hail has exited: the server's threads see the close at once, but give them a moment
            # to count it.
            stats = srv.stats()
            for _ in range(50):
                if stats == srv.stats():
                    break
                stats = srv.stats()
        return run, stats

    def check(self, run, stats, n, completed=0, connections=None, reasons=None, code=0,
              retried=0, **errors):
        msg = describe(run) + "\nserver: %s" % stats
        self.assertEqual(run.code, code, msg)
        r = run.json
        self.assertIsNotNone(r, msg)
        check_accounting(r, msg)
        self.assertLess(run.seconds, 15, msg)
        self.assertEqual(r["requests"]["completed"], completed, msg)
        self.assertEqual(r["requests"]["retried"], retried, msg)
        self.assertEqual(r["requests"]["in_flight"], 0, msg)
        want = {k: errors.get(k, 0) for k in ("connect",) + REQUEST_CLASSES}
        want["status"] = 0
        self.assertEqual(r["errors"], want, msg)
        self.assertEqual(r["error_reasons"], reasons or {}, msg)
        if code == 0:
            self.assertEqual(r["requests"]["attempted"], n + retried, msg)
            # Every request hail sent reached the server, every answer it sent was counted.
            self.assertEqual(stats["requests"], r["requests"]["attempted"], msg)
        if connections is not None:
            self.assertEqual(r["connections_opened"], connections, msg)
            self.assertEqual(stats["handshakes"], connections, msg)
        return r

    def test_baseline(self):
        run, stats = self.run_against("ok", 5)
        self.check(run, stats, 5, completed=5, connections=1)
        self.assertEqual(stats["answered"], 5)

    def test_handshake_that_stalls_is_a_connect_timeout(self):
        run, stats = self.run_against("stall", 2, timeout="400ms")
        self.check(run, stats, 2, connect=1, code=1, connections=0,
                   reasons={"connect: TLS handshake timed out": 1})
        self.assertEqual(stats["connections"], 1)
        self.assertGreaterEqual(run.seconds, 0.35, describe(run))

    def test_certificate_that_fails_verification(self):
        run, stats = self.run_against("ok", 5, "--verify")
        self.check(run, stats, 5, connect=1, code=1, connections=0, reasons={
            "connect: certificate verify failed: self-signed certificate": 1})
        self.assertIn("certificate verify failed", run.stderr)
        self.assertEqual(stats["handshake_failures"], 1)
        self.assertEqual(stats["requests"], 0)

    def test_certificate_trusted_with_cacert(self):
        run, stats = self.run_against("ok", 5, "--cacert", self.cert)
        self.check(run, stats, 5, completed=5, connections=1)

    def test_close_notify_mid_response(self):
        run, stats = self.run_against("close_notify", 3)
        self.check(run, stats, 3, read=3, connections=3,
                   reasons={"read: truncated response": 3})

    def test_truncated_record(self):
        run, stats = self.run_against("truncated", 3)
        self.check(run, stats, 3, read=3, connections=3,
                   reasons={"read: TLS record truncated by the close": 3})

    def test_renegotiation_over_http1(self):
        # TLS 1.2: the server asks to renegotiate before every answer; hail takes part, on one
        # connection (the last request's renegotiation completes only with a next request).
        run, stats = self.run_against("renegotiate", 4)
        self.check(run, stats, 4, completed=4, connections=1)
        self.assertEqual(stats["renegotiations"], 4)
        self.assertEqual(stats["renegotiated"], 3)

    def test_renegotiation_over_http2_is_refused(self):
        # HTTP/2 forbids renegotiation: hail refuses (the response that came with the request
        # still counts), the server ends the connection, and the next request goes on a new one.
        # A request hail sends before the server's fatal alert arrives dies with that connection
        # unanswered (the server never reads it): it goes once more on the next one (retried).
        run, stats = self.run_against("h2_renegotiate", 3)
        r = run.json
        msg = describe(run) + "\nserver: %s" % stats
        self.assertEqual(run.code, 0, msg)
        check_accounting(r, msg)
        self.assertEqual(r["http_version"], "2", msg)
        self.assertEqual(r["requests"]["completed"], 3, msg)
        self.assertEqual({k: v for k, v in r["errors"].items() if v}, {}, msg)
        retried = r["requests"]["retried"]
        self.assertLessEqual(retried, 2, msg)
        self.assertEqual(r["requests"]["attempted"], 3 + retried, msg)
        # One answer per connection: each ended after its renegotiation was refused.
        self.assertEqual(r["connections_opened"], 3, msg)
        self.assertEqual(stats["handshakes"], 3, msg)
        self.assertEqual(stats["requests"], 3, msg)
        self.assertEqual(stats["renegotiations"], 3, msg)
        self.assertEqual(stats["answered"], 3, msg)

    def test_key_update(self):
        run, stats = self.run_against("key_update", 5)
        self.check(run, stats, 5, completed=5, connections=1)
        self.assertEqual(stats["key_updates"], 5)

    def test_alpn_not_offered(self):
        for extra in ((), ("--h2",), ("--h1",)):
            run, stats = self.run_against("alpn_bogus", 3, *extra)
            self.check(run, stats, 3, connect=1, code=1, connections=0, reasons={
                "connect: ALPN: the server selected a protocol hail did not offer": 1})
            self.assertEqual(stats["handshake_failures"], 1)

    def test_h2_forced_but_no_alpn_selected(self):
        # The server selects no ALPN protocol: --h2 counts the connection as failed with the
        # reason, sends nothing, and a -n run ends at once (exit 1: nothing could be opened);
        # without --h2, ALPN's silence means HTTP/1.1.
        # Each of the 5 connections fails once; none ever opened, so the run stops there.
        run, stats = self.run_against("ok", 100, "--h2", "-c", "5")
        self.check(run, stats, 100, connect=5, code=1, reasons={
            "connect: ALPN: the server did not select h2 (--h2 over TLS needs it)": 5})
        self.assertEqual(run.json["connections_opened"], 0)
        self.assertEqual(stats.get("requests", 0), 0, stats)
        self.assertEqual(stats["handshakes"], 5, stats)
        self.assertLess(run.seconds, 5)
        run, stats = self.run_against("ok", 5)
        self.check(run, stats, 5, completed=5, connections=1)


if __name__ == "__main__":
    unittest.main()
