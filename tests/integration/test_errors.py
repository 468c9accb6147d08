"""Every failure must land in exactly one error class, and the accounting must still add up."""

import unittest

import threading

from support import (HailServer, HostileServer, check_accounting, describe, free_port, run_hail,
                     wait_until)


class ErrorsTest(unittest.TestCase):
    def assert_only(self, run, **expected):
        """The error counters are exactly `expected` (all others 0)."""
        errors = run.json["errors"]
        want = {k: expected.get(k, 0) for k in errors}
        self.assertEqual(errors, want, describe(run))

    def test_connection_refused(self):
        port = free_port()  # bound, then closed: nothing listens there
        run = run_hail(["-c", "4", "-t", "1", "-d", "5s", "--json", "-", "-q",
                        "http://127.0.0.1:%d/" % port], timeout=30)
        self.assertEqual(run.code, 1, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        self.assertGreater(r["errors"]["connect"], 0, describe(run))
        self.assertEqual(r["requests"]["attempted"], 0, describe(run))
        self.assertEqual(r["requests"]["completed"], 0, describe(run))
        self.assertEqual(r["connections_opened"], 0, describe(run))
        self.assertEqual(list(r["error_reasons"]), ["connect: Connection refused"], describe(run))
        self.assertEqual(r["error_reasons"]["connect: Connection refused"], r["errors"]["connect"])
        self.assertIn("Connection refused", run.stderr)
        self.assertTrue(run.stderr.startswith("hail: "), run.stderr)
        # Nobody will ever answer: hail gives up early instead of retrying for the whole 5 s.
        self.assertLess(run.seconds, 4.0, describe(run))

    def test_connection_refused_text_report(self):
        port = free_port()
        run = run_hail(["-c", "1", "-d", "2s", "-q", "http://127.0.0.1:%d/" % port], timeout=30)
        self.assertEqual(run.code, 1, describe(run))
        self.assertIn("Connection refused", run.stdout + run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)

    def test_truncated_body_is_a_read_error(self):
        # --timeout 1s: a missed end of stream shows up as timeouts (not a 5 s hang per request).
        with HostileServer("truncated") as srv:
            run = run_hail(["-n", "20", "-c", "2", "-t", "1", "--timeout", "1s", "--json", "-",
                            "-q", srv.url + "/x"], timeout=90)
            accepted, requests = srv.counts()
        self.assertEqual(run.code, 0, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        self.assert_only(run, read=20)
        self.assertEqual(r["requests"]["attempted"], 20, describe(run))
        self.assertEqual(r["requests"]["completed"], 0, describe(run))
        self.assertEqual(r["requests"]["in_flight"], 0, describe(run))
        self.assertEqual(r["status_codes"], {}, describe(run))
        self.assertTrue(all(k.startswith("read: ") for k in r["error_reasons"]), describe(run))
        self.assertEqual(sum(r["error_reasons"].values()), 20, describe(run))
        # One connection per request: each one died with its truncated response.
        self.assertEqual(r["connections_opened"], 20, describe(run))
        self.assertEqual(requests, 20)
        self.assertEqual(accepted, 20)

    def test_close_delimited_body_completes(self):
        # Not an error at all: a body without Content-Length ends where the server closes.
        with HostileServer("close_delimited") as srv:
            run = run_hail(["-n", "20", "-c", "2", "-t", "1", "--timeout", "1s", "--json", "-",
                            "-q", srv.url + "/x"], timeout=90)
            accepted, requests = srv.counts()
        self.assertEqual(run.code, 0, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        self.assert_only(run)
        self.assertEqual(r["requests"]["completed"], 20, describe(run))
        self.assertEqual(r["status_codes"], {"200": 20}, describe(run))
        self.assertEqual(r["throughput"]["bytes_read"], 20 * len(HostileServer.CLOSE_DELIMITED),
                         describe(run))
        self.assertEqual(r["connections_opened"], 20, describe(run))
        self.assertEqual((accepted, requests), (20, 20))

    def test_chunked_keepalive_responses(self):
        # Chunk extensions and trailers included: complete, and the connection is reused.
        with HostileServer("chunked") as srv:
            run = run_hail(["-n", "200", "-c", "2", "-t", "1", "--timeout", "2s", "--json", "-",
                            "-q", srv.url + "/"], timeout=30)
            accepted, requests = srv.counts()
        self.assertEqual(run.code, 0, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        self.assert_only(run)
        self.assertEqual(r["requests"]["completed"], 200, describe(run))
        self.assertEqual(r["status_codes"], {"200": 200}, describe(run))
        self.assertEqual(r["throughput"]["bytes_read"], 200 * len(HostileServer.CHUNKED))
        self.assertEqual(r["connections_opened"], 2, describe(run))
        self.assertEqual((accepted, requests), (2, 200))

    def test_interim_responses_are_skipped(self):
        with HostileServer("interim") as srv:
            run = run_hail(["-n", "100", "-c", "1", "--timeout", "2s", "--json", "-", "-q",
                            srv.url + "/"], timeout=30)
            accepted, requests = srv.counts()
        self.assertEqual(run.code, 0, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        self.assert_only(run)
        self.assertEqual(r["requests"]["completed"], 100, describe(run))
        self.assertEqual(r["requests"]["interim_responses"], 100, describe(run))
        self.assertEqual(r["status_codes"], {"200": 100}, describe(run))
        self.assertEqual(r["connections_opened"], 1, describe(run))
        self.assertEqual((accepted, requests), (1, 100))

    def test_garbage_is_a_parse_error(self):
        with HostileServer("garbage") as srv:
            run = run_hail(["-n", "30", "-c", "3", "-t", "1", "--json", "-", "-q",
                            srv.url + "/"], timeout=30)
            accepted, requests = srv.counts()
        self.assertEqual(run.code, 0, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        self.assert_only(run, parse=30)
        self.assertEqual(r["requests"]["attempted"], 30, describe(run))
        self.assertEqual(r["requests"]["completed"], 0, describe(run))
        self.assertTrue(all(k.startswith("parse: ") for k in r["error_reasons"]), describe(run))
        self.assertEqual(sum(r["error_reasons"].values()), 30, describe(run))
        # A malformed response closes its connection.
        self.assertEqual(r["connections_opened"], 30, describe(run))
        self.assertEqual((accepted, requests), (30, 30))

    def test_silence_is_a_timeout_exact(self):
        with HostileServer("silent") as srv:
            run = run_hail(["-n", "3", "-c", "1", "--timeout", "300ms", "--json", "-", "-q",
                            srv.url + "/"], timeout=30)
            accepted, requests = srv.counts()
        self.assertEqual(run.code, 0, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        self.assert_only(run, timeout=3)
        self.assertEqual(r["requests"]["attempted"], 3, describe(run))
        self.assertEqual(r["requests"]["in_flight"], 0, describe(run))
        # Each timeout closed the connection; the next request went out on a new one.
        self.assertEqual(r["connections_opened"], 3, describe(run))
        self.assertEqual((accepted, requests), (3, 3))
        # Three timeouts of 300 ms, one after the other.
        self.assertGreaterEqual(run.seconds, 0.85, describe(run))
        self.assertLess(run.seconds, 5.0, describe(run))

    def test_silence_during_a_duration_run(self):
        with HostileServer("silent") as srv:
            run = run_hail(["-d", "1s", "-c", "2", "-t", "1", "--timeout", "300ms", "--json", "-",
                            "-q", srv.url + "/"], timeout=30)
            opened = run.json["connections_opened"]
            accepted = wait_until(lambda: srv.counts()[0] >= opened and srv.counts()[0], 5,
                                  what="the server to accept %d connections" % opened)
        self.assertEqual(run.code, 0, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        timeouts = r["errors"]["timeout"]
        self.assert_only(run, timeout=timeouts)
        # 2 connections x (1 s / 300 ms): about 6 timeouts, the last requests still in flight.
        self.assertGreaterEqual(timeouts, 4, describe(run))
        self.assertLessEqual(timeouts, 8, describe(run))
        self.assertEqual(r["requests"]["attempted"], timeouts + r["requests"]["in_flight"])
        self.assertLessEqual(r["requests"]["in_flight"], 2, describe(run))
        self.assertGreaterEqual(r["connections_opened"], timeouts, describe(run))
        self.assertGreaterEqual(accepted, r["connections_opened"], describe(run))


if __name__ == "__main__":
    unittest.main()


class ServerGoneTest(unittest.TestCase):
    def test_count_run_gives_up_when_the_server_is_gone(self):
        """-n without -d against a server that dies mid-run: once every connect has failed for
        longer than the request timeout with none open, the run ends, says how many requests
        were never sent, and exits 1 (it used to retry forever)."""
        srv = HailServer().__enter__()
        served = {}

        def stop_soon():
            wait_until(lambda: srv.stats()["requests"] > 200, 10, what="requests served")
            served["before"] = srv.stats()["requests"]
            srv.__exit__(None, None, None)

        stopper = threading.Thread(target=stop_soon)
        stopper.start()
        try:
            run = run_hail(["-q", "-c", "4", "-t", "1", "-n", "100000000", "--timeout", "1s",
                            "--json", "-", srv.url + "/delay/1"], timeout=30)
        finally:
            stopper.join()
        self.assertEqual(run.code, 1, describe(run))
        self.assertLess(run.seconds, 15, describe(run))
        check_accounting(run.json)
        self.assertGreater(run.json["errors"]["connect"], 0, describe(run))
        # The server counted requests it received; those caught by its death (one per
        # connection at most) were never answered.
        self.assertGreaterEqual(run.json["requests"]["completed"] + 4, served["before"])
        self.assertTrue(any("stopped accepting connections" in n and "were never sent" in n
                            for n in run.json["notes"]), run.json["notes"])
        # The backoff bounds the attempts: a few per connection per second, not a storm.
        self.assertLess(run.json["errors"]["connect"], 4 * 40, describe(run))


class EarlyResponseTest(unittest.TestCase):
    def test_response_before_the_request_is_written_closes_the_connection(self):
        """A server may answer before it has read the whole request (a 413 to an upload): the
        response counts, and since the rest of the request was never sent the connection cannot
        carry another one, so hail opens a new connection for each request."""
        import tempfile
        with tempfile.NamedTemporaryFile(prefix="hail-early-") as body, \
                HostileServer("early") as srv:
            body.write(b"x" * (32 << 20))  # more than loopback socket buffers hold
            body.flush()
            r = run_hail(["-n", "5", "-c", "1", "-t", "1", "--timeout", "3s", "--body-file",
                          body.name, "--json", "-", srv.url + "/upload"], timeout=60)
            self.assertEqual(r.code, 0, r.stderr)
            check_accounting(r.json)
            self.assertEqual(r.json["requests"]["completed"], 5, describe(r))
            self.assertEqual(r.json["errors"]["timeout"], 0, describe(r))
            self.assertEqual(r.json["connections_opened"], 5, describe(r))
            self.assertEqual(srv.counts()[0], 5)

