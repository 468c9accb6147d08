"""hail against a hostile server: every behaviour a client meets in the wild (hostile.py serves each
at its own path), and for each exactly how hail counts every request, with the accounting
invariant holding, the exit status 0, and no hang (every run has a hard timeout).

Expected outcomes follow RFC 9112 and the README:
  completed   any full response, whatever its status (status errors are a part of it)
  read        the connection closed or was reset with the request in flight (truncated body,
              nothing at all, RST)
  parse       a malformed response (bad status line, framing, chunk sizes, limits); the connection
              is closed and requests pipelined behind it share its fate
  timeout     no full response within --timeout (silence, slow drip)
  write       requests pipelined behind one the server answered before it was fully written
A connection is reused only when the response allows it (HTTP/1.1 without "Connection: close",
HTTP/1.0 with "Connection: keep-alive", a body not delimited by the close) and the request did not
ask to close it (--no-keepalive, HTTP/1.0 without keep-alive).
"""

import os
import tempfile
import unittest

import hostile
from hostile import MALFORMED, HostileServer
from support import TIMEOUT_CLOSED, check_accounting, describe, run_hail, summary, wait_until

REQUEST_CLASSES = ("read", "write", "timeout", "parse", "stream")


def run_against(path, n, *extra, c=1, timeout="2s", hail_timeout=30, settle=5.0):
    """Runs `hail -n N -c C -t 1 --timeout T --json - -q EXTRA URL/PATH` against a fresh
    HostileServer; returns (run, server stats) once the server has seen every connection end."""
    with HostileServer() as srv:
        run = run_hail(["-n", n, "-c", c, "-t", "1", "--timeout", timeout, "--json", "-", "-q"]
                       + list(extra) + [srv.url + "/" + path], timeout=hail_timeout)
        # hail has exited, so every connection it opened is closed: once the server's threads
        # have seen that, its counts are final.
        wait_until(lambda: srv.active() == 0, settle, what="the hostile server to go idle")
        return run, srv.stats()


class HostileCase(unittest.TestCase):
    def check(self, run, stats, n, completed=0, codes=None, interim=0, reasons=None,
              connections=None, server_requests=None, bytes_read=None, max_seconds=20.0,
              retried=0, unsolicited=0, **errors):
        """Exit 0, accounting exact, every request of -n N has its one outcome: `completed`
        (status codes `codes`, `interim` 1xx responses), errors exactly `errors` (every other
        class 0, connect too), error_reasons exactly `reasons`, nothing in flight; `retried`
        sends made again on a new connection (each send is attempted), `unsolicited` protocol
        errors of connections with no request outstanding (part of the parse errors).
        connections: opened by hail and accepted by the server (both). server_requests: request
        heads the server read (default N plus the retried sends)."""
        msg = describe(run) + "\nserver: %s" % stats
        self.assertEqual(run.code, 0, msg)
        self.assertIsNotNone(run.json, msg)
        r = run.json
        check_accounting(r, msg)
        self.assertLess(run.seconds, max_seconds, msg)
        self.assertEqual(r["requests"]["attempted"], n + retried, msg)
        self.assertEqual(r["requests"]["retried"], retried, msg)
        self.assertEqual(r["requests"]["unsolicited"], unsolicited, msg)
        self.assertEqual(r["requests"]["target"], n, msg)
        self.assertEqual(r["requests"]["in_flight"], 0, msg)
        self.assertEqual(r["requests"]["completed"], completed, msg)
        self.assertEqual(r["requests"]["interim_responses"], interim, msg)
        codes = codes if codes is not None else ({"200": completed} if completed else {})
        self.assertEqual(r["status_codes"], codes, msg)
        want = {k: errors.get(k, 0) for k in ("connect",) + REQUEST_CLASSES}
        want["status"] = sum(v for k, v in codes.items() if not 200 <= int(k) < 400)
        self.assertEqual(r["errors"], want, msg)
        self.assertEqual(r["error_reasons"], reasons or {}, msg)
        if connections is not None:
            self.assertEqual(r["connections_opened"], connections, msg)
            self.assertEqual(stats["connections"], connections, msg)
        self.assertEqual(stats["rejected"], 0, msg)
        if server_requests is None:
            server_requests = n + retried
        if server_requests is not False:
            self.assertEqual(stats["requests"], server_requests, msg)
        if bytes_read is not None:
            self.assertEqual(r["throughput"]["bytes_read"], bytes_read, msg)


# --------------------------------------------------------------------------------------------
# The table: one test per row. Columns: path, n, extra hail arguments, expected counts (see
# HostileCase.check). "nka" rows run with --no-keepalive, "p4" rows with --pipeline 4.

NKA = ("--no-keepalive",)
P4 = ("--pipeline", "4")

CASES = {
    # ---- framing that must complete --------------------------------------------------------
    # Chunk extensions (quoted, BWS), upper-case hex, leading zeros, trailers with obs-fold.
    "chunked_ext_trailers": ("chunked_ext_trailers", 20, (), dict(
        completed=20, connections=1, bytes_read=20 * len(hostile.CHUNKED_EXT_TRAILERS))),
    "chunked_ext_trailers_nka": ("chunked_ext_trailers", 10, NKA, dict(
        completed=10, connections=10)),
    "chunked_ext_trailers_p4": ("chunked_ext_trailers", 16, P4, dict(
        completed=16, connections=1, bytes_read=16 * len(hostile.CHUNKED_EXT_TRAILERS))),
    # No Content-Length, no chunked: the body is everything up to the close (RFC 9112 §6.3 r8).
    "until_close": ("until_close", 10, (), dict(
        completed=10, connections=10, bytes_read=10 * len(hostile.UNTIL_CLOSE))),
    "until_close_nka": ("until_close", 10, NKA, dict(completed=10, connections=10)),
    # HTTP/1.0 without keep-alive: complete, and hail closes even though the server does not.
    "http10": ("http10", 10, (), dict(
        completed=10, connections=10, bytes_read=10 * len(hostile.HTTP10))),
    "http10_keepalive": ("http10_keepalive", 10, (), dict(completed=10, connections=1)),
    "http10_until_close": ("http10_until_close", 10, (), dict(
        completed=10, connections=10, bytes_read=10 * len(hostile.HTTP10_UNTIL_CLOSE))),
    "http10_chunked": ("http10_chunked", 10, (), dict(
        completed=10, connections=10, bytes_read=10 * len(hostile.HTTP10_CHUNKED))),
    # Bare-LF line ends in the head and in chunked framing (RFC 9112 §2.2 lets a recipient take
    # them).
    "lf_only": ("lf_only", 20, (), dict(
        completed=20, connections=1, bytes_read=20 * len(hostile.LF_ONLY))),
    "lf_only_chunked": ("lf_only_chunked", 20, (), dict(
        completed=20, connections=1, bytes_read=20 * len(hostile.LF_ONLY_CHUNKED))),
    "lf_only_chunked_p4": ("lf_only_chunked", 16, P4, dict(completed=16, connections=1)),
    # obs-fold in an ordinary field (RFC 9112 §5.2: a user agent replaces it with SP).
    "obs_fold": ("obs_fold", 20, (), dict(completed=20, connections=1)),
    # 1xx before the final response: skipped and counted (RFC 9110 §15.2).
    "interim": ("interim", 20, (), dict(completed=20, interim=20, connections=1,
                                        bytes_read=20 * len(hostile.INTERIM))),
    "interim_many": ("interim_many", 10, (), dict(completed=10, interim=30, connections=1)),
    "interim_32": ("interim_32", 5, (), dict(completed=5, interim=160, connections=1)),
    "interim_p4": ("interim_many", 16, P4, dict(completed=16, interim=48, connections=1)),
    # 101 to a request that asked for no upgrade: the connection has left HTTP, a protocol error
    # of that request, and the connection closed.
    "switching": ("switching", 5, (), dict(
        parse=5, connections=5, bytes_read=5 * len(hostile.SWITCHING),
        reasons={"parse: 101 Switching Protocols to a request that asked for no upgrade": 5})),
    # Asked for (a script or -H sends Upgrade): completed with status 101, a status error, and
    # the connection is not reused (what follows is another protocol).
    "switching_asked": ("switching", 5, ("-H", "Upgrade: hostile"), dict(
        completed=5, codes={"101": 5}, connections=5, bytes_read=5 * len(hostile.SWITCHING))),
    # HEAD: Content-Length or chunked in the head, never a body (RFC 9112 §6.3 r1).
    "head_cl": ("head_cl", 20, ("-m", "HEAD"), dict(
        completed=20, connections=1, bytes_read=20 * len(hostile.HEAD_CL_HEAD))),
    "head_cl_get": ("head_cl", 20, (), dict(
        completed=20, connections=1,
        bytes_read=20 * (len(hostile.HEAD_CL_HEAD) + hostile.HEAD_LENGTH))),
    "head_cl_p4": ("head_cl", 16, ("-m", "HEAD") + P4, dict(
        completed=16, connections=1, bytes_read=16 * len(hostile.HEAD_CL_HEAD))),
    "head_chunked": ("head_chunked", 20, ("-m", "HEAD"), dict(
        completed=20, connections=1, bytes_read=20 * len(hostile.HEAD_CHUNKED_HEAD))),
    # 204 and 304 have no body whatever their framing fields say (RFC 9112 §6.3 r1).
    "no_content": ("no_content", 20, (), dict(completed=20, codes={"204": 20}, connections=1)),
    "no_content_te": ("no_content_te", 20, (), dict(
        completed=20, codes={"204": 20}, connections=1,
        bytes_read=20 * len(hostile.NO_CONTENT_TE))),
    "not_modified": ("not_modified", 20, (), dict(
        completed=20, codes={"304": 20}, connections=1,
        bytes_read=20 * len(hostile.NOT_MODIFIED))),
    # Status codes 600..999 are three digits but no HTTP status (RFC 9110 §15): malformed.
    "status_600": ("status_600", 10, (), dict(
        parse=10, connections=10, reasons={"parse: invalid status code": 10})),
    # HTTP/1.2: processed as HTTP/1.1 (RFC 9110 §2.5), keep-alive included.
    "version_12": ("version_12", 10, (), dict(completed=10, connections=1,
                                              bytes_read=10 * len(hostile.VERSION_12))),
    # ---- bytes with no request outstanding (RFC 9112 §6.3, §9.3.2) ---------------------------
    # They are no response: a protocol error of the connection (parse, "unsolicited data"), which
    # is closed; the request before them completed, and none after them is blamed. The last
    # connection's arrive when the run (-n) is over: not counted.
    "long_body": ("long_body", 5, (), dict(
        completed=5, connections=5, parse=4, unsolicited=4,
        reasons={"parse: unsolicited data: bytes with no request outstanding": 4})),
    "extra_response": ("extra_response", 5, (), dict(
        completed=5, connections=5, parse=4, unsolicited=4,
        reasons={"parse: unsolicited data: bytes with no request outstanding": 4})),
    "idle_408": ("idle_408", 3, ("--think", "300ms"), dict(
        completed=3, connections=3, parse=2, unsolicited=2,
        reasons={"parse: unsolicited data: bytes with no request outstanding": 2})),
    # Content-Encoding is not hail's business; Transfer-Encoding with chunked last is chunked,
    # without chunked last the body runs to the close (RFC 9112 §6.3 r4).
    "gzip": ("gzip", 10, (), dict(completed=10, connections=1,
                                  bytes_read=10 * len(hostile.GZIP))),
    "gzip_chunked": ("gzip_chunked", 10, (), dict(
        completed=10, connections=1, bytes_read=10 * len(hostile.GZIP_CHUNKED))),
    "te_gzip_until_close": ("te_gzip", 5, (), dict(
        completed=5, connections=5, bytes_read=5 * len(hostile.TE_GZIP))),
    # Very long header lines and very many header fields, still under hail's 64 KiB head limit.
    "long_header": ("long_header", 5, (), dict(
        completed=5, connections=1, bytes_read=5 * len(hostile.LONG_HEADER))),
    "many_headers": ("many_headers", 5, (), dict(
        completed=5, connections=1, bytes_read=5 * len(hostile.MANY_HEADERS))),
    # ---- one byte per segment, and pipelined responses cut anywhere -------------------------
    "dribble": ("dribble", 5, (), dict(completed=5, connections=1,
                                       bytes_read=5 * len(hostile.DRIBBLE))),
    "dribble_chunked": ("dribble_chunked", 3, (), dict(completed=3, connections=1)),
    "dribble_interim": ("dribble_interim", 3, (), dict(completed=3, interim=9, connections=1)),
    "dribble_p4": ("dribble", 8, P4, dict(completed=8, connections=1,
                                          bytes_read=8 * len(hostile.DRIBBLE))),
    "split7_p4": ("split7", 16, P4, dict(completed=16, connections=1,
                                         bytes_read=16 * len(hostile.OK))),
    # ---- the server ends keep-alive connections ---------------------------------------------
    # Every third response says Connection: close and the server closes: nothing lost.
    "close_every3": ("close_every3", 12, (), dict(completed=12, connections=4)),
    # Pipelined: the request written behind the closing response is never answered: it goes
    # again on the next connection (RFC 9112 §9.3.1).
    "close_every3_p4": ("close_every3", 8, P4, dict(completed=8, retried=2, connections=3)),
    "close_every3_p4_no_retry": ("close_every3", 8, P4 + ("--no-retry",), dict(
        completed=6, read=2, connections=2,
        reasons={"read: closed before response": 2})),
    # The server ignores the request's "Connection: close": hail must close anyway (RFC 9112
    # §9.6: no further request after one that said close).
    "close_every3_nka": ("close_every3", 12, NKA, dict(completed=12, connections=12)),
    "ignore_close": ("ignore_close", 10, (), dict(completed=10, connections=1)),
    "ignore_close_nka": ("ignore_close", 10, NKA, dict(completed=10, connections=10)),
    "ignore_close_header_close": ("ignore_close", 10, ("-H", "Connection: close"), dict(
        completed=10, connections=10)),
    "ignore_close_http10": ("ignore_close", 10, ("--http1.0",), dict(
        completed=10, connections=1)),
    "ignore_close_http10_nka": ("ignore_close", 10, ("--http1.0", "--no-keepalive"), dict(
        completed=10, connections=10)),
    # A keep-alive connection the server closes as the next request arrives: the server never saw
    # the request, which goes once more on a new connection (RFC 9112 §9.3.1), counted as retried.
    "close_after2": ("close_after2", 9, (), dict(completed=9, retried=4, connections=5)),
    # ... unless --no-retry: a read error.
    "close_after2_no_retry": ("close_after2", 9, ("--no-retry",), dict(
        completed=6, read=3, connections=3, reasons={"read: closed before response": 3})),
    # A POST may have had effects: never sent twice, a read error.
    "close_after2_post": ("close_after2", 9, ("-m", "POST", "--body", "x"), dict(
        completed=6, read=3, connections=3, reasons={"read: closed before response": 3})),
    "close_after2_nka": ("close_after2", 9, NKA, dict(completed=9, connections=9)),
    # The server closes connections idle for 100 ms: while hail thinks between requests, that is
    # no error, just a new connection; without pauses the connection stays.
    "idle_close_think": ("idle_close", 3, ("--think", "300ms"), dict(completed=3, connections=3)),
    "idle_close_busy": ("idle_close", 20, (), dict(completed=20, connections=1)),
    # ---- failures ---------------------------------------------------------------------------
    "truncated_body": ("truncated", 5, (), dict(
        read=5, connections=5, reasons={"read: truncated response": 5})),
    "truncated_body_p4": ("truncated", 8, P4, dict(
        read=8, connections=2, reasons={"read: truncated response": 8}, server_requests=False)),
    "truncated_head": ("truncated_head", 5, (), dict(
        read=5, connections=5, reasons={"read: truncated response": 5})),
    "truncated_chunked": ("truncated_chunked", 5, (), dict(
        read=5, connections=5, reasons={"read: truncated response": 5})),
    # A 1xx then the close: the request failed, so its interim response is not counted.
    "interim_then_close": ("interim_then_close", 5, (), dict(
        read=5, connections=5, reasons={"read: truncated response": 5})),
    "no_response": ("no_response", 5, (), dict(
        read=5, connections=5, reasons={"read: closed before response": 5})),
    "no_response_nka": ("no_response", 5, NKA, dict(
        read=5, connections=5, reasons={"read: closed before response": 5})),
    "rst_mid_body": ("rst_body", 5, (), dict(
        read=5, connections=5, reasons={"read: Connection reset by peer": 5})),
    "rst_before_response": ("rst_at_once", 5, (), dict(
        read=5, connections=5, reasons={"read: Connection reset by peer": 5})),
    # Accept, read, never answer: a timeout, and the connection is replaced.
    "silent": ("silent", 2, ("--timeout", "300ms"), dict(
        timeout=2, connections=2, reasons={TIMEOUT_CLOSED: 2})),
    # The head at once, then the body a byte every 100 ms: the whole response is late.
    "drip_past_timeout": ("drip", 2, ("--timeout", "500ms"), dict(
        timeout=2, connections=2, reasons={TIMEOUT_CLOSED: 2})),
    # A malformed response fails the requests pipelined behind it too.
    "garbage_p4": ("garbage", 8, P4, dict(
        parse=8, connections=2, reasons={"parse: malformed status line": 8},
        server_requests=False)),
}

# Every malformed response: a parse error with its reason, and the connection closed.
for _name, (_data, _reason) in MALFORMED.items():
    CASES["malformed_" + _name] = (_name, 3, (), dict(
        parse=3, connections=3, reasons={"parse: " + _reason: 3}))
    if len(_data) < 16384:  # read whole in one go: hail saw every byte before it gave up
        CASES["malformed_" + _name][3]["bytes_read"] = 3 * len(_data)


class HostileTest(HostileCase):
    pass


def _make_test(path, n, extra, expected):
    def test(self):
        run, stats = run_against(path, n, *extra)
        self.check(run, stats, n, **expected)
    return test


for _case, (_path, _n, _extra, _expected) in CASES.items():
    setattr(HostileTest, "test_" + _case, _make_test(_path, _n, _extra, _expected))


class HugeBodyTest(HostileCase):
    def test_multi_gigabyte_body_is_discarded_in_the_kernel(self):
        """A body over 4 GiB (a 32-bit length anywhere would show), streamed by the server and
        dropped by hail with recv(MSG_TRUNC): seconds, and every byte counted."""
        run, stats = run_against("huge", 1, timeout="60s", hail_timeout=120)
        self.check(run, stats, 1, completed=1, connections=1, max_seconds=60,
                   bytes_read=len(hostile.HUGE_HEAD) + hostile.HUGE_BODY)


class EarlyResponseTest(HostileCase):
    """A response before the request is fully written (a server rejecting an upload): completed,
    and the connection closed since the rest of the request was never sent. Requests pipelined
    behind it were never sent at all: write errors."""

    @classmethod
    def setUpClass(cls):
        cls.body = tempfile.NamedTemporaryFile(prefix="hail-hostile-")
        cls.body.write(b"x" * (32 << 20))  # more than loopback socket buffers hold
        cls.body.flush()

    @classmethod
    def tearDownClass(cls):
        cls.body.close()

    def run_early(self, path, n, *extra):
        return run_against(path, n, "--body-file", self.body.name, *extra, timeout="3s",
                           hail_timeout=60)

    def test_early_response_completes(self):
        run, stats = self.run_early("early", 3)
        self.check(run, stats, 3, completed=3, connections=3,
                   bytes_read=3 * len(hostile.EARLY))

    def test_early_response_with_a_large_body_completes(self):
        run, stats = self.run_early("early_big", 3)
        self.check(run, stats, 3, completed=3, connections=3,
                   bytes_read=3 * len(hostile.EARLY_BIG))

    def test_early_response_pipelined(self):
        run, stats = self.run_early("early", 4, "--pipeline", "2")
        self.check(run, stats, 4, completed=2, write=2, connections=2, server_requests=2,
                   reasons={"write: server answered before the request was sent": 2})

    def test_early_response_with_a_large_body_pipelined(self):
        # The body is dropped in the kernel (the skip path), which must end the same way.
        run, stats = self.run_early("early_big", 4, "--pipeline", "2")
        self.check(run, stats, 4, completed=2, write=2, connections=2, server_requests=2,
                   reasons={"write: server answered before the request was sent": 2},
                   max_seconds=2.5)


class DurationRunTest(HostileCase):
    def test_server_closing_keepalive_connections_during_a_duration_run(self):
        """-d instead of -n: every third request on a connection meets a close (with --no-retry:
        a read error each); the run still adds up, with at most one request per connection in
        flight at the end."""
        with HostileServer() as srv:
            run = run_hail(["-d", "1s", "-c", "2", "-t", "1", "--timeout", "1s", "--json", "-",
                            "-q", "--no-retry", srv.url + "/close_after2"], timeout=30)
            wait_until(lambda: srv.active() == 0, 5, what="the hostile server to go idle")
            stats = srv.stats()
        msg = describe(run) + "\nserver: %s" % stats
        self.assertEqual(run.code, 0, msg)
        r = run.json
        check_accounting(r, msg)
        read = r["errors"]["read"]
        completed = r["requests"]["completed"]
        self.assertGreater(read, 10, msg)
        self.assertEqual({k: v for k, v in r["errors"].items() if v}, {"read": read}, msg)
        self.assertEqual(r["error_reasons"], {"read: closed before response": read}, msg)
        self.assertLessEqual(r["requests"]["in_flight"], 2, msg)
        # Two answered, then one refused, on each connection.
        self.assertLessEqual(abs(completed - 2 * read), 4, msg)
        self.assertGreaterEqual(r["connections_opened"], read, msg)
        self.assertLessEqual(r["connections_opened"], read + 2, msg)
        self.assertGreaterEqual(stats["requests"], r["requests"]["attempted"] - 2, msg)

    def test_retries_during_a_duration_run(self):
        """The same with retries: no read error, every refused request sent again once, and the
        server saw every send."""
        with HostileServer() as srv:
            run = run_hail(["-d", "1s", "-c", "2", "-t", "1", "--timeout", "1s", "--json", "-",
                            "-q", srv.url + "/close_after2"], timeout=30)
            wait_until(lambda: srv.active() == 0, 5, what="the hostile server to go idle")
            stats = srv.stats()
        msg = describe(run) + "\nserver: %s" % stats
        self.assertEqual(run.code, 0, msg)
        r = run.json
        check_accounting(r, msg)
        retried = r["requests"]["retried"]
        completed = r["requests"]["completed"]
        self.assertGreater(retried, 10, msg)
        self.assertEqual({k: v for k, v in r["errors"].items() if v}, {}, msg)
        # Two answered per connection, the third refused and sent again on the next one.
        self.assertLessEqual(abs(completed - 2 * retried), 6, msg)
        self.assertGreaterEqual(stats["requests"], r["requests"]["attempted"] - 2, msg)


if __name__ == "__main__":
    unittest.main()
