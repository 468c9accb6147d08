"""hail against Debian's Apache httpd (event MPM, mod_http2, mod_ssl): the second real server
beside nginx. Every run is checked twice: hail's JSON report, and Apache's access log (one line
per request: method, path, protocol, status, client port, bytes received, what the CGI read).

Skipped, saying so, when apache2 is not installed (`./run test` installs it)."""

import collections
import unittest

from apache_server import Apache, apache_missing
from support import check_accounting, describe, run_hail

BODY = "".join(chr(ord("a") + i % 26) for i in range(1234))


class ApacheTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = apache_missing()
        if why:
            print("skipping: " + why)
            raise unittest.SkipTest(why)
        cls.apache = Apache().__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.apache.__exit__(None, None, None)

    def load(self, *args, timeout=30, code=0):
        """Runs hail (--json -), then waits until Apache has logged every request hail
        completed and gone idle. Returns (run, access-log entries of the run, the requests
        mod_status counted meanwhile: exact for HTTP/1.1, but Apache's scoreboard misses some
        HTTP/2 streams that its log has, so the HTTP/2 tests count the log alone)."""
        mark = self.apache.log_mark()
        before = self.apache.idle_status()
        run = run_hail(list(args) + ["--json", "-", "-q"], timeout=timeout)
        self.assertEqual(run.code, code, describe(run))
        check_accounting(run.json, describe(run))
        entries = self.apache.settle(mark, run.json["requests"]["completed"])
        return run, entries, Apache.accesses_delta(before, self.apache.idle_status())

    def assert_clean(self, run, entries, method, path, protocol):
        errors = {k: v for k, v in run.json["errors"].items() if v}
        self.assertEqual(errors, {}, describe(run))
        self.assertEqual(run.json["error_reasons"], {}, describe(run))
        bad = [e for e in entries if (e.status, e.method, e.path, e.protocol)
               != (200, method, path, protocol)]
        self.assertEqual(bad[:5], [], "unexpected access-log entries")

    def assert_exact(self, run, entries, n):
        req = run.json["requests"]
        self.assertEqual((req["attempted"], req["completed"]), (n, n), describe(run))
        self.assertEqual(len(entries), n, describe(run))

    def assert_http1_connections(self, run, entries, connections):
        """HTTP/1.1: each client port's %k runs 0, 1, ..., k-1 (so a port is one connection,
        never reopened or reused), and there are as many ports as hail opened connections."""
        per_port = collections.defaultdict(list)
        for e in entries:
            per_port[e.port].append(e.keepalives)
        for port, seq in per_port.items():
            self.assertEqual(sorted(seq), list(range(len(seq))), "client port %d" % port)
        self.assertEqual(len(per_port), connections, describe(run))
        self.assertEqual(run.json["connections_opened"], connections, describe(run))

    def assert_cleartext_bytes(self, run, entries):
        """HTTP/1.1 in the clear: what hail read is what Apache sent (%O), byte for byte, and
        Apache received each request whole (all of them the same size here). %I also counts
        bytes Apache peeked at before reading them for real: the 24 of an HTTP/2 preface on a
        connection's first request (H2Direct looks for one), and 1 on a later request that was
        already there when Apache checked for pipelined requests after the previous answer."""
        tp = run.json["throughput"]
        self.assertEqual(sum(e.bytes_out for e in entries), tp["bytes_read"], describe(run))
        size, rest = divmod(tp["bytes_written"], len(entries))
        self.assertEqual(rest, 0, describe(run))
        first = collections.Counter(e.bytes_in - size for e in entries if e.keepalives == 0)
        later = collections.Counter(e.bytes_in - size for e in entries if e.keepalives > 0)
        self.assertEqual(set(first), {24}, "bytes received beyond the request: %s" % first)
        self.assertLessEqual(set(later), {0, 1}, "bytes received beyond the request: %s" % later)

    # -- HTTP/1.1

    def test_keepalive_http1(self):
        run, entries, accesses = self.load("-n", "600", "-c", "6", "-t", "2",
                                           self.apache.url + "/100.bin")
        self.assert_clean(run, entries, "GET", "/100.bin", "HTTP/1.1")
        self.assert_exact(run, entries, 600)
        self.assertEqual(accesses, 600)
        self.assert_http1_connections(run, entries, 6)
        # Apache kept every connection open after every answer (%X "+").
        self.assertEqual({e.conn_status for e in entries}, {"+"})
        self.assertEqual({e.tls for e in entries}, {"-"})
        self.assertTrue(run.json["keep_alive"], describe(run))
        self.assertEqual(run.json["protocol"], "http/1.1", describe(run))
        self.assert_cleartext_bytes(run, entries)

    def test_exact_count_threads_and_connections(self):
        run, entries, accesses = self.load("-n", "1000", "-c", "8", "-t", "2",
                                           self.apache.url + "/1k.bin")
        self.assert_clean(run, entries, "GET", "/1k.bin", "HTTP/1.1")
        self.assert_exact(run, entries, 1000)
        self.assertEqual(accesses, 1000)
        self.assert_http1_connections(run, entries, 8)
        self.assertGreater(run.json["throughput"]["bytes_read"], 1000 * 1024, describe(run))
        self.assert_cleartext_bytes(run, entries)

    def test_no_keepalive_http1(self):
        run, entries, accesses = self.load("--no-keepalive", "-n", "200", "-c", "4", "-t", "2",
                                           self.apache.url + "/100.bin")
        self.assert_clean(run, entries, "GET", "/100.bin", "HTTP/1.1")
        self.assert_exact(run, entries, 200)
        self.assertEqual(accesses, 200)
        self.assert_http1_connections(run, entries, 200)
        # Apache closed each connection after its one answer (%X "-"): hail asked it to.
        self.assertEqual({e.conn_status for e in entries}, {"-"})
        self.assertFalse(run.json["keep_alive"], describe(run))
        self.assert_cleartext_bytes(run, entries)

    def test_no_keepalive_over_tls_speaks_http1(self):
        """The TLS port prefers h2: with --no-keepalive hail offers only http/1.1 in ALPN and
        gets it, one connection and one handshake per request, later ones resumed."""
        run, entries, accesses = self.load("--no-keepalive", "-n", "60", "-c", "3", "-t", "1",
                                           self.apache.https_url + "/100.bin")
        self.assert_clean(run, entries, "GET", "/100.bin", "HTTP/1.1")
        self.assert_exact(run, entries, 60)
        self.assertEqual(accesses, 60)
        self.assert_http1_connections(run, entries, 60)
        self.assertEqual({e.conn_status for e in entries}, {"-"})
        self.assertFalse(run.json["keep_alive"], describe(run))
        self.assertEqual(run.json["protocol"], "http/1.1", describe(run))
        self.assertEqual({e.tls for e in entries}, {run.json["tls"]["version"]})
        self.assertEqual(run.json["tls"]["handshakes"], 60, describe(run))
        # Both sides agree on which handshakes resumed a session (the first per connection
        # slot cannot).
        resumed = sum(e.resumed == "Resumed" for e in entries)
        self.assertEqual(run.json["tls"]["resumed"], resumed, describe(run))
        self.assertGreaterEqual(resumed, 60 - 3, describe(run))

    # -- HTTP/2

    def assert_h2(self, run, entries, connections, streams):
        """HTTP/2: every request was a stream on one of `connections` connections (client
        ports; %k means nothing per stream), and hail says so."""
        self.assertEqual(len({e.port for e in entries}), connections, describe(run))
        self.assertEqual(run.json["protocol"], "h2", describe(run))
        self.assertEqual(run.json["connections_h2"], connections, describe(run))
        self.assertEqual(run.json["connections_opened"], connections, describe(run))
        self.assertEqual(run.json["streams"], streams, describe(run))

    def test_h2_over_tls_by_alpn(self):
        run, entries, _ = self.load("-n", "2000", "-c", "4", "-t", "2", "--streams", "10",
                                    self.apache.https_url + "/1k.bin")
        self.assert_clean(run, entries, "GET", "/1k.bin", "HTTP/2.0")
        self.assert_exact(run, entries, 2000)
        self.assert_h2(run, entries, 4, 10)
        self.assertEqual({e.tls for e in entries}, {run.json["tls"]["version"]})
        self.assertGreater(run.json["throughput"]["bytes_read"], 2000 * 1024, describe(run))

    def test_h2_forced_over_tls(self):
        run, entries, _ = self.load("--h2", "-n", "300", "-c", "2", "-t", "1", "--streams", "4",
                                    self.apache.https_url + "/100.bin")
        self.assert_clean(run, entries, "GET", "/100.bin", "HTTP/2.0")
        self.assert_exact(run, entries, 300)
        self.assert_h2(run, entries, 2, 4)

    def test_h2c_prior_knowledge(self):
        run, entries, _ = self.load("--h2", "-n", "500", "-c", "2", "-t", "1", "--streams", "5",
                                    self.apache.url + "/100.bin")
        self.assert_clean(run, entries, "GET", "/100.bin", "HTTP/2.0")
        self.assert_exact(run, entries, 500)
        self.assert_h2(run, entries, 2, 5)
        self.assertEqual({e.tls for e in entries}, {"-"})
        self.assertNotIn("tls", run.json)

    # -- POST

    def assert_post(self, run, entries):
        """Every POST reached the CGI with its whole body: Content-Length as sent, the body
        bytes read by the script (X-Received), and at least that much received (%I)."""
        self.assertEqual(run.json["method"], "POST", describe(run))
        self.assertEqual({e.content_length for e in entries}, {len(BODY)})
        self.assertEqual({e.received for e in entries}, {len(BODY)})
        self.assertEqual([e for e in entries if e.bytes_in <= len(BODY)][:3], [])
        self.assertGreater(run.json["throughput"]["bytes_written"], len(entries) * len(BODY),
                           describe(run))

    def test_post_http1(self):
        run, entries, accesses = self.load("-m", "POST", "--body", BODY, "-n", "40", "-c", "2",
                                           "-t", "1", self.apache.url + "/cgi/count")
        self.assert_clean(run, entries, "POST", "/cgi/count", "HTTP/1.1")
        self.assert_exact(run, entries, 40)
        self.assertEqual(accesses, 40)
        self.assert_http1_connections(run, entries, 2)
        self.assert_post(run, entries)
        self.assert_cleartext_bytes(run, entries)

    def test_post_http2(self):
        run, entries, _ = self.load("--body", BODY, "-n", "40", "-c", "2", "-t", "1",
                                    "--streams", "4", self.apache.https_url + "/cgi/count")
        self.assert_clean(run, entries, "POST", "/cgi/count", "HTTP/2.0")
        self.assert_exact(run, entries, 40)
        self.assert_h2(run, entries, 2, 4)
        self.assert_post(run, entries)

    # -- duration

    def test_duration_run_matches_log(self):
        run, entries, accesses = self.load("-d", "1s", "-c", "4", "-t", "2",
                                           self.apache.url + "/16k.bin")
        self.assert_clean(run, entries, "GET", "/16k.bin", "HTTP/1.1")
        req = run.json["requests"]
        self.assertGreater(req["completed"], 50, describe(run))
        self.assertEqual(req["attempted"], req["completed"] + req["in_flight"], describe(run))
        # Apache logged every completed request, and may also have answered some still in flight
        # when hail stopped (answered after hail stopped reading: not hail's completions).
        self.assertGreaterEqual(len(entries), req["completed"], describe(run))
        self.assertLessEqual(len(entries), req["completed"] + req["in_flight"], describe(run))
        self.assertEqual(accesses, len(entries))
        self.assertEqual(len({e.port for e in entries}), 4, describe(run))
        self.assertEqual(run.json["connections_opened"], 4, describe(run))
        self.assertGreater(run.json["throughput"]["bytes_read"], req["completed"] * 16 * 1024)


if __name__ == "__main__":
    unittest.main()
