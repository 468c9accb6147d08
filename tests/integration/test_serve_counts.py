"""hail against `hail serve`: what hail reports must match what the server counted (/stats)."""

import os
import tempfile
import unittest

from support import HailServer, check_accounting, describe, run_hail, wait_until


class ServeCountsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = HailServer(threads=1)
        cls.server.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def load(self, *args, timeout=30):
        """Runs hail with --json - between two /stats snapshots. Returns (report, server delta)."""
        before = self.server.stats()
        run = run_hail(list(args) + ["--json", "-", "-q"], timeout=timeout)
        self.assertEqual(run.code, 0, describe(run))
        self.assertEqual(run.stderr, "", describe(run))
        check_accounting(run.json, describe(run))
        after = self.server.stats()
        return run, HailServer.stats_delta(before, after)

    def assert_no_errors(self, run):
        errors = run.json["errors"]
        self.assertEqual({k: v for k, v in errors.items() if v}, {}, describe(run))
        self.assertEqual(run.json["error_reasons"], {}, describe(run))

    def test_duration_run_matches_server_count(self):
        run, delta = self.load("-c", "10", "-t", "1", "-d", "1s", self.server.url + "/bytes/100")
        r = run.json
        req = r["requests"]
        self.assert_no_errors(run)
        self.assertGreater(req["completed"], 100, describe(run))
        self.assertEqual(req["attempted"], req["completed"] + req["in_flight"], describe(run))
        self.assertLessEqual(req["in_flight"], 10, describe(run))
        self.assertGreaterEqual(delta["requests"], req["completed"], (delta, describe(run)))
        self.assertLessEqual(delta["requests"], req["completed"] + req["in_flight"],
                             (delta, describe(run)))
        self.assertEqual(r["status_codes"], {"200": req["completed"]}, describe(run))
        self.assertEqual(r["connections_opened"], 10, describe(run))
        self.assertEqual(delta["connections"], 10, (delta, describe(run)))
        self.assertAlmostEqual(r["duration_s"], 1.0, delta=0.3, msg=describe(run))
        self.assertFalse(r["interrupted"], describe(run))
        self.assertEqual(r["schema"], "hail/2")
        self.assertEqual(r["url"], self.server.url + "/bytes/100")
        self.assertEqual((r["method"], r["http_version"], r["keep_alive"]), ("GET", "1.1", True))
        self.assertEqual((r["connections"], r["threads"]), (10, 1))
        # Every response is the same: a 100-byte body plus an identical head.
        self.assertEqual(r["throughput"]["bytes_read"] % req["completed"], 0, describe(run))
        self.assertGreater(r["throughput"]["bytes_read"], 100 * req["completed"], describe(run))

    def test_exact_request_count(self):
        run, delta = self.load("-n", "1000", "-c", "10", "-t", "2", self.server.url + "/bytes/64")
        r = run.json
        self.assert_no_errors(run)
        self.assertEqual(r["requests"]["attempted"], 1000, describe(run))
        self.assertEqual(r["requests"]["completed"], 1000, describe(run))
        self.assertEqual(r["requests"]["in_flight"], 0, describe(run))
        self.assertEqual(r["requests"].get("target"), 1000, describe(run))
        self.assertEqual(delta["requests"], 1000, delta)
        self.assertEqual(r["connections_opened"], 10, describe(run))
        self.assertEqual(delta["connections"], 10, delta)
        self.assertEqual(r["status_codes"], {"200": 1000})
        self.assertEqual(r["latency_us"]["count"], 1000)
        # Nothing in flight at the end: hail read exactly what the server sent.
        self.assertEqual(r["throughput"]["bytes_read"], delta["bytes_sent"], (delta, describe(run)))

    def test_streams_the_server_allows_are_reported(self):
        """--streams 10 against a server whose SETTINGS_MAX_CONCURRENT_STREAMS is 4: the report
        names both, and never more than 4 streams were open on the server (h2_streams counts
        them all; the answer to each is counted once)."""
        with HailServer("--h2-max-streams", "4") as server:
            before = server.stats()
            run = run_hail(["--h2", "-n", "400", "-c", "2", "-t", "1", "--streams", "10", "--json",
                            "-", "-q", server.url + "/delay/1"], timeout=30)
            delta = HailServer.stats_delta(before, server.stats())
            self.assertEqual(run.code, 0, describe(run))
            self.assertEqual(run.json["requests"]["completed"], 400, describe(run))
            self.assertEqual(delta["h2_streams"], 400, delta)
            self.assertEqual(run.json["streams"], 10)
            self.assertEqual(run.json["streams_effective"], {"min": 4, "max": 4}, describe(run))
            text = run_hail(["--h2", "-n", "40", "-c", "1", "--streams", "10", server.url + "/"],
                            timeout=30)
            self.assertIn("HTTP/2 10 streams (server allowed 4)", text.stdout, describe(text))
        # A server that allows more: the report says what was asked, and nothing else.
        run, _ = self.load("--h2", "-n", "100", "-c", "1", "--streams", "5", self.server.url + "/")
        self.assertEqual(run.json["streams_effective"], {"min": 5, "max": 5}, describe(run))

    def test_fewer_requests_than_threads(self):
        # The -n budget is split between the threads; a thread whose share is 0 must send nothing
        # (not run unbounded). -n alone has no time limit, so the hard timeout catches a hang.
        for n, c, t in ((1, 2, 2), (3, 8, 4)):
            with self.subTest(n=n, c=c, t=t):
                before = self.server.stats()
                run = run_hail(["-n", n, "-c", c, "-t", t, "--json", "-", "-q",
                                self.server.url + "/bytes/10"], timeout=10)
                self.assertEqual(run.code, 0, describe(run))
                check_accounting(run.json, describe(run))
                delta = HailServer.stats_delta(before, self.server.stats())
                self.assertEqual(run.json["requests"]["attempted"], n, describe(run))
                self.assertEqual(run.json["requests"]["completed"], n, describe(run))
                self.assertEqual(delta["requests"], n, delta)

    def test_large_bodies(self):
        run, delta = self.load("-n", "20", "-c", "2", self.server.url + "/bytes/10000000")
        r = run.json
        self.assert_no_errors(run)
        self.assertEqual(r["requests"]["completed"], 20, describe(run))
        self.assertEqual(delta["requests"], 20, delta)
        self.assertGreater(r["throughput"]["bytes_read"], 20 * 10000000, describe(run))
        self.assertEqual(r["throughput"]["bytes_read"], delta["bytes_sent"], (delta, describe(run)))
        self.assertEqual(r["connections_opened"], 2, describe(run))

    def test_no_keepalive_one_connection_per_request(self):
        run, delta = self.load("--no-keepalive", "-n", "200", "-c", "5",
                               self.server.url + "/bytes/10")
        r = run.json
        self.assert_no_errors(run)
        self.assertFalse(r["keep_alive"])
        self.assertEqual(r["requests"]["completed"], 200, describe(run))
        self.assertEqual(r["requests"]["attempted"], 200, describe(run))
        self.assertEqual(delta["requests"], 200, delta)
        self.assertEqual(r["connections_opened"], 200, describe(run))
        self.assertEqual(delta["connections"], 200, delta)
        self.assertEqual(r["connect_us"]["count"], 200, describe(run))

    def test_status_500_counts_as_status_error(self):
        run, delta = self.load("-n", "100", "-c", "4", self.server.url + "/status/500")
        r = run.json
        self.assertEqual(r["requests"]["completed"], 100, describe(run))
        self.assertEqual(r["errors"]["status"], 100, describe(run))
        self.assertEqual(r["status_codes"], {"500": 100}, describe(run))
        for k in ("connect", "read", "write", "timeout", "parse"):
            self.assertEqual(r["errors"][k], 0, describe(run))
        self.assertEqual(delta["requests"], 100, delta)
        # A 500 with keep-alive does not cost the connection.
        self.assertEqual(r["connections_opened"], 4, describe(run))

    def test_other_statuses_are_reported_as_such(self):
        run, _ = self.load("-n", "20", "-c", "1", self.server.url + "/status/404")
        self.assertEqual(run.json["status_codes"], {"404": 20}, describe(run))
        self.assertEqual(run.json["errors"]["status"], 20, describe(run))
        run, _ = self.load("-n", "20", "-c", "1", self.server.url + "/status/204")
        self.assertEqual(run.json["status_codes"], {"204": 20}, describe(run))
        self.assertEqual(run.json["errors"]["status"], 0, describe(run))

    def test_timeouts_reopen_connections(self):
        before = self.server.stats()
        run = run_hail(["-c", "4", "-t", "1", "-d", "1s", "--timeout", "200ms", "-q", "--json", "-",
                        self.server.url + "/delay/1000"], timeout=30)
        self.assertEqual(run.code, 0, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        timeouts = r["errors"]["timeout"]
        self.assertGreaterEqual(timeouts, 4, describe(run))
        self.assertEqual(r["requests"]["completed"], 0, describe(run))
        for k in ("connect", "read", "write", "parse", "status"):
            self.assertEqual(r["errors"][k], 0, describe(run))
        self.assertEqual(r["timeout_s"], 0.2)
        # Each timeout closes its connection and opens a new one.
        self.assertGreaterEqual(r["connections_opened"], timeouts, describe(run))
        self.assertLessEqual(r["connections_opened"], timeouts + 4, describe(run))
        # The server saw every one of them (it may also have accepted a reconnect that hail gave
        # up on when the run ended).
        opened = r["connections_opened"]
        delta = wait_until(
            lambda: (lambda d: d if d["connections"] >= opened else None)(
                HailServer.stats_delta(before, self.server.stats())),
            5, interval=0.05, what="the server to accept %d connections" % opened)
        self.assertLessEqual(delta["connections"], opened + 4, (delta, describe(run)))

    def test_http10_keepalive(self):
        run, delta = self.load("--http1.0", "-n", "100", "-c", "2", self.server.url + "/bytes/50")
        r = run.json
        self.assert_no_errors(run)
        self.assertEqual(r["http_version"], "1.0")
        self.assertEqual(r["requests"]["completed"], 100, describe(run))
        self.assertEqual(delta["requests"], 100, delta)
        # HTTP/1.0 with "Connection: keep-alive": the server keeps the connections open.
        self.assertEqual(r["connections_opened"], 2, describe(run))
        self.assertEqual(delta["connections"], 2, delta)

    def test_head_has_no_body(self):
        url = self.server.url + "/bytes/100"
        head, delta = self.load("-m", "HEAD", "-n", "50", "-c", "1", url)
        self.assert_no_errors(head)
        self.assertEqual(head.json["method"], "HEAD")
        self.assertEqual(head.json["requests"]["completed"], 50, describe(head))
        self.assertEqual(head.json["status_codes"], {"200": 50})
        self.assertEqual(delta["requests"], 50, delta)
        self.assertEqual(head.json["connections_opened"], 1, describe(head))
        get, _ = self.load("-n", "50", "-c", "1", url)
        self.assertEqual(get.json["requests"]["completed"], 50, describe(get))
        # Same heads, no bodies: GET reads exactly 50 x 100 body bytes more.
        self.assertEqual(get.json["throughput"]["bytes_read"] - head.json["throughput"]["bytes_read"],
                         50 * 100, (describe(head), describe(get)))

    def test_post_body_is_echoed(self):
        url = self.server.url + "/echo"
        small, delta = self.load("--body", "a" * 1000, "-n", "40", "-c", "2", url)
        self.assert_no_errors(small)
        self.assertEqual(small.json["method"], "POST")
        self.assertEqual(small.json["requests"]["completed"], 40, describe(small))
        self.assertEqual(delta["requests"], 40, delta)
        big, _ = self.load("--body", "b" * 3000, "-n", "40", "-c", "2", url)
        self.assert_no_errors(big)
        self.assertEqual(big.json["requests"]["completed"], 40, describe(big))
        # Content-Length has four digits both times: only the bodies differ, both ways.
        self.assertEqual(big.json["throughput"]["bytes_written"]
                         - small.json["throughput"]["bytes_written"], 40 * 2000)
        self.assertEqual(big.json["throughput"]["bytes_read"]
                         - small.json["throughput"]["bytes_read"], 40 * 2000)
        self.assertGreater(small.json["throughput"]["bytes_read"], 40 * 1000)

    def test_body_file_is_sent(self):
        fd, path = tempfile.mkstemp(prefix="hail-body-")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(bytes(range(256)) * 8)  # 2048 bytes, every byte value
            url = self.server.url + "/echo"
            from_file, _ = self.load("--body-file", path, "-n", "20", "-c", "1", url)
            inline, _ = self.load("--body", "z" * 1024, "-n", "20", "-c", "1", url)
        finally:
            os.unlink(path)
        self.assert_no_errors(from_file)
        self.assertEqual(from_file.json["method"], "POST")
        self.assertEqual(from_file.json["requests"]["completed"], 20, describe(from_file))
        self.assertEqual(from_file.json["throughput"]["bytes_written"]
                         - inline.json["throughput"]["bytes_written"], 20 * 1024)
        self.assertEqual(from_file.json["throughput"]["bytes_read"]
                         - inline.json["throughput"]["bytes_read"], 20 * 1024)

    def test_warmup_is_excluded(self):
        run, delta = self.load("--warmup", "1s", "-d", "1s", "-c", "4", "-t", "1",
                               self.server.url + "/bytes/10", timeout=30)
        r = run.json
        req = r["requests"]
        self.assert_no_errors(run)
        self.assertEqual(r["warmup_s"], 1.0)
        self.assertAlmostEqual(r["duration_s"], 1.0, delta=0.3, msg=describe(run))
        self.assertGreater(req["completed"], 0, describe(run))
        self.assertEqual(req["attempted"], req["completed"] + req["in_flight"], describe(run))
        # The warm-up second was loaded too, just not counted: the server answered clearly more.
        self.assertGreater(delta["requests"], req["completed"] + req["in_flight"],
                           (delta, describe(run)))
        self.assertGreaterEqual(run.seconds, 2.0, describe(run))
        # Connections opened during the warm-up are kept and reported.
        self.assertEqual(r["connections_opened"], 4, describe(run))
        self.assertEqual(delta["connections"], 4, delta)

    def test_wakeups_are_coalesced_only_when_many_responses_are_due(self):
        # 400 requests in flight of ~2 ms each: a response is due every ~5 us, so a worker with
        # nothing to read naps 50 us (1/32 of the latency, capped) before it blocks in epoll (and
        # would as long as the latency stays under 10 ms: 400 x 50 us = 2 x 10 ms).
        url = self.server.url + "/delay/2"
        runs = {}
        for name, extra in (("coalesced", []), ("off", ["--no-coalesce"])):
            run, delta = self.load("-n", "8000", "-c", "400", "-t", "1", *extra, url)
            self.assert_no_errors(run)
            self.assertEqual(run.json["requests"]["completed"], 8000, describe(run))
            self.assertEqual(delta["requests"], 8000, delta)
            # The server delays each response 2 ms: no response can be read sooner.
            self.assertGreaterEqual(run.json["latency_us"]["min"], 2000, describe(run))
            runs[name] = run
        on = runs["coalesced"].json["client"]
        self.assertGreater(on["naps"], 0, describe(runs["coalesced"]))
        self.assertEqual(on["max_nap_us"], 50.0, describe(runs["coalesced"]))
        self.assertIn("naps of <= 50us", run_hail(["-n", "8000", "-c", "400", "-t", "1", url],
                                                  timeout=30).stdout)
        off = runs["off"].json["client"]
        self.assertEqual((off["naps"], off["max_nap_us"]), (0, 0.0), describe(runs["off"]))
        # One request in flight: a nap could only delay it.
        run, delta = self.load("-n", "300", "-c", "1", url)
        self.assertEqual(delta["requests"], 300, delta)
        self.assertEqual(run.json["client"]["naps"], 0, describe(run))


if __name__ == "__main__":
    unittest.main()
