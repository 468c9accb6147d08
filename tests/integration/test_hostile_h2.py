"""hail --h2 against a hostile HTTP/2 server (hostile_h2.py writes raw frames): for each
misbehaviour, how hail counts every request, checked against what the server counted on its side,
with the accounting invariant holding and no hang (every run has a hard timeout).

Expected outcomes follow RFC 9113 and the README ("What the numbers mean"):
  retried     a stream the server refused unprocessed (RST_STREAM REFUSED_STREAM, or above a
              GOAWAY's last stream id) is sent once more; refused again, it is a `stream` error
  stream      RST_STREAM with any other code; a stream nghttp2 resets (stream-level violations)
  parse       a connection error (flow-control overflow, HPACK error, floods); the connection is
              closed and its requests in flight share the error
  timeout     a request with no response within --timeout (a window that never opens, silence)
  connect     no valid server preface (SETTINGS) within the connect deadline
"""

import unittest

import hostile_h2_behaviours
from hostile_h2 import HostileH2Server
from support import TIMEOUT_CLOSED, check_accounting, describe, run_hail, wait_until

REQUEST_CLASSES = ("read", "write", "timeout", "parse", "stream")


def run_against(behaviour, n, *extra, c=1, streams=1, timeout="2s", hail_timeout=30, tls=False):
    """`hail -n N -c C -t 1 --streams S --timeout T --json - -q [--h2] EXTRA URL` against a fresh
    HostileH2Server; returns (run, server stats) once the server has seen every connection end."""
    with HostileH2Server(behaviour, tls=tls) as srv:
        args = ["-n", n, "-c", c, "-t", "1", "--streams", streams, "--timeout", timeout,
                "--json", "-", "-q"] + ([] if tls else ["--h2"]) + list(extra) + [srv.url + "/"]
        run = run_hail(args, timeout=hail_timeout)
        wait_until(lambda: srv.active() == 0, 5.0, what="the hostile server to go idle")
        return run, srv.stats()


class HostileH2Case(unittest.TestCase):
    def check(self, run, stats, n, completed=0, reasons=None, connections=None, retried=0,
              code=0, max_seconds=15.0, server_requests=None, **errors):
        """Exit `code`, accounting exact, every request of -n N has its one outcome: `completed`
        (all 200), errors exactly `errors` (every other class 0), error_reasons exactly
        `reasons`, nothing in flight, `retried` sends made again. connections: opened by hail
        and accepted by the server. server_requests: streams the server saw opened (default:
        every attempt; False: not checked)."""
        msg = describe(run) + "\nserver: %s" % stats
        self.assertEqual(run.code, code, msg)
        self.assertIsNotNone(run.json, msg)
        r = run.json
        check_accounting(r, msg)
        self.assertLess(run.seconds, max_seconds, msg)
        self.assertEqual(r["requests"]["retried"], retried, msg)
        self.assertEqual(r["requests"]["in_flight"], 0, msg)
        self.assertEqual(r["requests"]["completed"], completed, msg)
        self.assertEqual(r["status_codes"], {"200": completed} if completed else {}, msg)
        want = {k: errors.get(k, 0) for k in ("connect",) + REQUEST_CLASSES}
        want["status"] = 0
        self.assertEqual(r["errors"], want, msg)
        self.assertEqual(r["error_reasons"], reasons or {}, msg)
        if code == 0:
            self.assertEqual(r["requests"]["attempted"], n + retried, msg)
        if connections is not None:
            self.assertEqual(r["connections_opened"], connections, msg)
            self.assertEqual(stats.get("connections", 0), connections, msg)
        self.assertEqual(stats.get("rejected", 0), 0, msg)
        if server_requests is None:
            server_requests = r["requests"]["attempted"]
        if server_requests is not False:
            self.assertEqual(stats.get("requests", 0), server_requests, msg)
        return r


class GoawayTest(HostileH2Case):
    """GOAWAY with a last stream id below streams in flight: those streams were never processed
    (RFC 9113 §6.8), so each is sent once more on a new connection; one refused a second time is
    a stream error. Nothing is lost: the server's answers are hail's completions, and its
    refusals are hail's retries plus those stream errors."""

    def check_goaway(self, behaviour, n, read=0):
        run, stats = run_against(behaviour, n, streams=4)
        r = run.json
        msg = describe(run) + "\nserver: %s" % stats
        self.assertEqual(run.code, 0, msg)
        check_accounting(r, msg)
        refused = stats.get("refused", 0)
        self.assertGreater(refused, 0, msg)
        stream = r["errors"]["stream"]
        self.assertEqual(r["requests"]["retried"] + stream, refused, msg)
        self.assertEqual(r["requests"]["completed"], stats.get("answered", 0), msg)
        self.assertEqual(r["requests"]["completed"] + stream + r["errors"]["read"], n, msg)
        self.assertEqual(r["errors"]["read"], read, msg)
        self.assertEqual(r["requests"]["attempted"], stats["requests"], msg)
        self.assertEqual(r["connections_opened"], stats["connections"], msg)
        reasons = {"stream: refused by GOAWAY": stream} if stream else {}
        if read:
            reasons["read: connection closed"] = read
        self.assertEqual(r["error_reasons"], reasons, msg)
        self.assertEqual({k for k, v in r["errors"].items() if v} - {"stream", "read"}, set(), msg)
        return r, stats

    def test_goaway_below_streams_in_flight_retries_them(self):
        # Each connection: 4 streams, the two lowest answered, the two above refused.
        r, stats = self.check_goaway("goaway_low", 8)
        self.assertEqual(r["requests"]["completed"], 8)
        self.assertEqual(r["errors"]["stream"], 0)
        self.assertGreaterEqual(r["requests"]["retried"], 4)

    def test_goaway_then_close(self):
        # The lowest stream answered, the rest refused, then the server closes at once.
        self.check_goaway("goaway_close", 8)

    def test_goaway_then_close_without_answering_the_accepted_stream(self):
        # The stream the GOAWAY accepted may have been processed: when the close comes without
        # its response, it is a read error, never sent again (it is its connection's first).
        run, stats = run_against("goaway_close_unanswered", 8, streams=4)
        r = run.json
        msg = describe(run) + "\nserver: %s" % stats
        check_accounting(r, msg)
        self.assertEqual(r["requests"]["completed"], 0, msg)
        self.assertEqual(r["errors"]["read"], stats["connections"], msg)
        self.assertEqual(r["requests"]["retried"] + r["errors"]["stream"], stats["refused"], msg)
        self.assertEqual(r["errors"]["read"] + r["errors"]["stream"], 8, msg)
        self.assertEqual(r["requests"]["attempted"], stats["requests"], msg)


class StreamResetTest(HostileH2Case):
    def test_refused_stream_is_sent_again(self):
        # The first request of the connection is refused, sent again on it, and answered.
        run, stats = run_against("refuse_first", 5)
        self.check(run, stats, 5, completed=5, retried=1, connections=1)
        self.assertEqual(stats["reset_REFUSED_STREAM"], 1)
        self.assertEqual(stats["answered"], 5)

    def test_refused_twice_is_a_stream_error(self):
        run, stats = run_against("refuse_all", 3)
        self.check(run, stats, 3, retried=3, stream=3, connections=1,
                   reasons={"stream: stream reset: REFUSED_STREAM": 3})
        self.assertEqual(stats["reset_REFUSED_STREAM"], 6)

    def test_refused_stream_with_no_retry(self):
        run, stats = run_against("refuse_all", 3, "--no-retry")
        self.check(run, stats, 3, stream=3, connections=1,
                   reasons={"stream: stream reset: REFUSED_STREAM": 3})

    def test_other_reset_codes_are_stream_errors(self):
        run, stats = run_against("rst_internal", 5, streams=2)
        self.check(run, stats, 5, stream=5, connections=1,
                   reasons={"stream: stream reset: INTERNAL_ERROR": 5})


class StreamLimitTest(HostileH2Case):
    def test_max_concurrent_streams_lowered_mid_run(self):
        # 8 allowed, then 1: once hail acknowledged that, it never has two streams open.
        run, stats = run_against("streams_lowered", 40, streams=8)
        self.check(run, stats, 40, completed=40, connections=1)
        self.assertEqual(stats["max_open"], 8)
        self.assertEqual(stats.get("over_limit", 0), 0, stats)
        # The report says what the server allowed: 8 when the connection opened, 1 by its end.
        self.assertEqual(run.json["streams_effective"], {"min": 1, "max": 8}, describe(run))

    def test_max_concurrent_streams_zero_reopens_after_the_timeout(self):
        # After the first batch the server allows no streams: the connection is given up a timeout
        # later and a new one carries the rest; no request waits forever, none is an error.
        run, stats = run_against("streams_zero", 16, streams=8, timeout="500ms")
        self.check(run, stats, 16, completed=16, connections=2)
        self.assertGreaterEqual(run.seconds, 0.45, describe(run))


class FlowControlTest(HostileH2Case):
    def test_window_zero_is_a_timeout(self):
        # The request body can never be sent: a timeout, never a hang, and the connection (on
        # which nothing more arrives) is replaced.
        run, stats = run_against("window_zero", 2, "-m", "POST", "--body", "xyz",
                                 timeout="400ms")
        self.check(run, stats, 2, timeout=2, connections=2, reasons={TIMEOUT_CLOSED: 2})
        self.assertEqual(stats.get("data_bytes", 0), 0)

    def test_tiny_window_is_a_timeout(self):
        run, stats = run_against("window_tiny", 2, "-m", "POST", "--body", "x" * 1000,
                                 timeout="400ms")
        self.check(run, stats, 2, timeout=2, connections=2, reasons={TIMEOUT_CLOSED: 2})
        self.assertEqual(stats["data_bytes"], 20)  # 10 bytes per stream, never more

    def test_window_update_overflow_on_the_connection(self):
        run, stats = run_against("window_overflow_connection", 3)
        self.check(run, stats, 3, parse=3, connections=3,
                   reasons={"parse: connection error: FLOW_CONTROL_ERROR": 3})
        # hail told the server why (its GOAWAY) on every connection it saw before it closed.
        self.assertGreaterEqual(stats.get("client_goaway_FLOW_CONTROL_ERROR", 0), 1, stats)

    def test_window_update_overflow_on_a_stream(self):
        run, stats = run_against("window_overflow_stream", 3)
        self.check(run, stats, 3, stream=3, connections=1,
                   reasons={"stream: stream error: FLOW_CONTROL_ERROR": 3})


class FloodTest(HostileH2Case):
    def test_ping_flood_read_by_the_server_completes(self):
        run, stats = run_against("ping_flood", 3)
        self.check(run, stats, 3, completed=3, connections=1)
        # Every PING but those of the last answer (the run ended) was acknowledged.
        self.assertGreaterEqual(stats["pings_acked"], 2 * hostile_h2_behaviours.PING_FLOOD, stats)

    def test_settings_flood_is_a_connection_error(self):
        run, stats = run_against("settings_flood", 3)
        self.check(run, stats, 3, parse=3, connections=3, reasons={
            "parse: Flooding was detected in this HTTP/2 session, and it must be closed": 3})

    def test_ping_flood_never_read_is_a_connection_error(self):
        run, stats = run_against("ping_flood_unread", 2)
        self.check(run, stats, 2, parse=2, connections=2, reasons={
            "parse: Flooding was detected in this HTTP/2 session, and it must be closed": 2})


class HeaderBlockTest(HostileH2Case):
    def test_huge_header_field_is_a_compression_error(self):
        run, stats = run_against("huge_header", 2)
        self.check(run, stats, 2, parse=2, connections=2,
                   reasons={"parse: connection error: COMPRESSION_ERROR": 2})
        self.assertEqual(stats.get("client_goaway_COMPRESSION_ERROR", 0), 2, stats)

    def test_many_header_fields_complete(self):
        # About 100 KiB of fields over 7 CONTINUATION frames: within nghttp2's limits.
        run, stats = run_against("many_headers", 2)
        self.check(run, stats, 2, completed=2, connections=1)

    def test_malformed_hpack_is_a_compression_error(self):
        run, stats = run_against("bad_hpack", 2)
        self.check(run, stats, 2, parse=2, connections=2,
                   reasons={"parse: connection error: COMPRESSION_ERROR": 2})
        self.assertEqual(stats.get("client_goaway_COMPRESSION_ERROR", 0), 2, stats)

    def test_continuation_flood_is_a_connection_error(self):
        run, stats = run_against("continuation_flood", 2)
        self.check(run, stats, 2, parse=2, connections=2, reasons={
            "parse: Too many CONTINUATION frames following a HEADER frame": 2})


class ConnectionTest(HostileH2Case):
    def test_data_on_a_closed_stream_is_ignored(self):
        # RFC 9113 §5.1 lets an endpoint ignore frames on a stream it closed: the responses
        # complete and the connection carries on.
        run, stats = run_against("data_closed", 5)
        self.check(run, stats, 5, completed=5, connections=1)

    def test_no_server_preface_is_a_connect_error(self):
        # Nothing ever comes back: the connect deadline (--timeout) ends it, and as no connection
        # ever opened, the run stops with exit status 1.
        run, stats = run_against("no_preface", 2, timeout="400ms")
        r = self.check(run, stats, 0, connect=1, code=1, server_requests=0,
                       reasons={"connect: HTTP/2: no server preface (SETTINGS) in time": 1})
        self.assertEqual(r["connections_opened"], 0)
        self.assertEqual(stats["connections"], 1)
        self.assertGreaterEqual(run.seconds, 0.35, describe(run))

    def test_http1_answer_instead_of_a_preface_is_a_connect_error(self):
        run, stats = run_against("http1_preface", 2)
        r = self.check(run, stats, 0, connect=1, code=1, server_requests=0,
                       reasons={"connect: HTTP/2: no valid server preface (SETTINGS)": 1})
        self.assertEqual(r["connections_opened"], 0)
        self.assertEqual(stats["connections"], 1)

    def test_goaway_with_the_preface_is_a_connect_error(self):
        run, stats = run_against("goaway_at_preface", 2)
        r = self.check(run, stats, 0, connect=1, code=1, server_requests=0,
                       reasons={"connect: HTTP/2: GOAWAY before any request": 1})
        self.assertEqual(r["connections_opened"], 0)
        self.assertEqual(stats["connections"], 1)

    def test_silently_dropped_connection_is_replaced(self):
        # Two answers, then silence: the overdue request is a timeout and the connection, on which
        # nothing arrives any more, is closed and reopened instead of being fed more streams.
        run, stats = run_against("silent_after2", 6, timeout="400ms")
        self.check(run, stats, 6, completed=4, timeout=2, connections=2,
                   reasons={TIMEOUT_CLOSED: 2})
        self.assertEqual(stats["answered"], 4)


class TlsH2Test(HostileH2Case):
    """A few of the same over TLS with ALPN h2: the transport changes nothing in the counts."""

    def test_ok_over_tls(self):
        run, stats = run_against("ok", 20, streams=4, tls=True)
        self.check(run, stats, 20, completed=20, connections=1)

    def test_refused_stream_over_tls(self):
        run, stats = run_against("refuse_first", 5, tls=True)
        self.check(run, stats, 5, completed=5, retried=1, connections=1)

    def test_close_notify_mid_response_over_tls(self):
        run, stats = run_against("close_notify_mid", 3, tls=True)
        self.check(run, stats, 3, read=3, connections=3, reasons={"read: connection closed": 3})


if __name__ == "__main__":
    unittest.main()
