"""TLS, HTTP/2, pipelining, HTTP/0.9, Unix sockets and --connect-to, checked against nginx's
access log (protocol, connection, TLS session reuse per request) and hail serve's /stats."""

import os
import unittest

from support import HailServer, Nginx, check_accounting, describe, require_nginx, run_hail


class ProtocolsNginxTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_nginx()
        cls.nginx = Nginx(tls=True).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.nginx.__exit__(None, None, None)

    def load(self, *args, timeout=60):
        """Runs hail, waits for nginx to log everything, returns (run, new log entries)."""
        mark = self.nginx.log_mark()
        r = run_hail(list(args) + ["-q", "--json", "-"], timeout=timeout)
        self.assertEqual(r.code, 0, describe(r))
        check_accounting(r.json)
        self.nginx.quiesce()
        return r, self.nginx.log_entries(mark)

    def test_http1_over_tls(self):
        r, entries = self.load("--h1", "-n", "600", "-c", "6", "-t", "2",
                               self.nginx.https_url + "/1k.bin")
        self.assertEqual(r.json["requests"]["completed"], 600, describe(r))
        self.assertEqual(len(entries), 600)
        self.assertEqual({e.protocol for e in entries}, {"HTTP/1.1"})
        self.assertEqual({e.status for e in entries}, {200})
        self.assertEqual(len({e.connection for e in entries}), 6)
        self.assertEqual(r.json["protocol"], "http/1.1")
        self.assertIn(r.json["tls"]["version"], ("TLSv1.2", "TLSv1.3"))
        self.assertEqual(r.json["tls"]["handshakes"], 6)
        self.assertEqual(r.json["tls_handshake_us"]["count"], 6)

    def test_http2_over_tls_with_streams(self):
        r, entries = self.load("-n", "2000", "-c", "4", "-t", "2", "--streams", "10",
                               self.nginx.https_url + "/1k.bin")
        self.assertEqual(r.json["requests"]["completed"], 2000, describe(r))
        self.assertEqual(len(entries), 2000)
        self.assertEqual({e.protocol for e in entries}, {"HTTP/2.0"})
        self.assertEqual(len({e.connection for e in entries}), 4)
        self.assertEqual(r.json["protocol"], "h2")
        self.assertEqual(r.json["connections_h2"], 4)
        self.assertEqual(r.json["streams"], 10)
        self.assertEqual(r.json["throughput"]["bytes_read"] >= 2000 * 1024, True)

    def test_h2c_prior_knowledge(self):
        r, entries = self.load("--h2", "-n", "500", "-c", "2", "-t", "1", "--streams", "5",
                               self.nginx.h2c_url + "/100.bin")
        self.assertEqual(r.json["requests"]["completed"], 500, describe(r))
        self.assertEqual(len(entries), 500)
        self.assertEqual({e.protocol for e in entries}, {"HTTP/2.0"})
        self.assertNotIn("tls", r.json)

    def test_alpn_falls_back_to_http1(self):
        """The server's ALPN offers only http/1.1: hail speaks HTTP/1.1 without being told."""
        r, entries = self.load("-n", "200", "-c", "2", "-t", "1",
                               self.nginx.https_h1_url + "/100.bin")
        self.assertEqual(len(entries), 200, describe(r))
        self.assertEqual({e.protocol for e in entries}, {"HTTP/1.1"})
        self.assertEqual(r.json["protocol"], "http/1.1")

    def test_no_keepalive_over_tls_is_one_connection_per_request(self):
        """An https:// URL whose server prefers h2: --no-keepalive speaks HTTP/1.1 (ALPN offers
        only http/1.1), one connection per request on nginx's side, and says so."""
        r, entries = self.load("--no-keepalive", "-n", "60", "-c", "3", "-t", "1",
                               self.nginx.https_url + "/100.bin")
        self.assertEqual(r.json["requests"]["completed"], 60, describe(r))
        self.assertEqual(len(entries), 60)
        self.assertEqual({e.protocol for e in entries}, {"HTTP/1.1"})
        self.assertEqual(len({e.connection for e in entries}), 60)
        self.assertFalse(r.json["keep_alive"])
        self.assertEqual(r.json["protocol"], "http/1.1")
        refused = run_hail(["--no-keepalive", "--h2", "-n", "1", self.nginx.https_url + "/"])
        self.assertEqual(refused.code, 2, describe(refused))
        self.assertIn("--no-keepalive and --h2", refused.stderr)

    def test_session_resumption_on_and_off(self):
        """One connection per request: every reconnect resumes the previous session (nginx logs
        $ssl_session_reused), unless --no-tls-resume asks for full handshakes."""
        r, entries = self.load("--h1", "--no-keepalive", "-n", "40", "-c", "1", "-t", "1",
                               self.nginx.https_url + "/100.bin")
        self.assertEqual(len(entries), 40, describe(r))
        self.assertEqual(sum(e.reused for e in entries), 39)
        self.assertEqual(r.json["tls"]["handshakes"], 40)
        self.assertEqual(r.json["tls"]["resumed"], 39)
        r, entries = self.load("--h1", "--no-keepalive", "--no-tls-resume", "-n", "40", "-c", "1",
                               "-t", "1", self.nginx.https_url + "/100.bin")
        self.assertEqual(len(entries), 40, describe(r))
        self.assertEqual(sum(e.reused for e in entries), 0)
        self.assertEqual(r.json["tls"]["resumed"], 0)

    def test_certificate_checking(self):
        # Self-signed: --verify refuses it, as a counted connect error, and exits 1.
        r = run_hail(["--verify", "-n", "5", "-c", "1", "-q", "--json", "-",
                      self.nginx.https_url + "/100.bin"], timeout=30)
        self.assertEqual(r.code, 1, describe(r))
        self.assertGreater(r.json["errors"]["connect"], 0)
        self.assertTrue(any("verify" in k for k in r.json["error_reasons"]), describe(r))
        # Trusted with --cacert (the certificate names 127.0.0.1).
        r, entries = self.load("--cacert", os.path.join(self.nginx.dir, "cert.pem"), "-n", "20",
                               "-c", "1", self.nginx.https_url + "/100.bin")
        self.assertEqual(len(entries), 20, describe(r))

    def test_tls_against_a_cleartext_port_is_a_connect_error(self):
        r = run_hail(["-n", "5", "-c", "1", "-q", "--json", "-",
                      "https://127.0.0.1:%d/100.bin" % self.nginx.port], timeout=30)
        self.assertEqual(r.code, 1, describe(r))
        self.assertGreater(r.json["errors"]["connect"], 0)
        check_accounting(r.json)

    def test_pipelining_counts_every_request(self):
        r, entries = self.load("--pipeline", "8", "-n", "4000", "-c", "4", "-t", "2",
                               self.nginx.url + "/100.bin")
        self.assertEqual(r.json["requests"]["completed"], 4000, describe(r))
        self.assertEqual(len(entries), 4000)
        self.assertEqual(len({e.connection for e in entries}), 4)
        self.assertEqual(r.json["pipeline"], 8)

    def test_rate_mode_with_http2_streams(self):
        r, entries = self.load("-R", "2000", "-d", "2s", "-c", "2", "-t", "1", "--streams", "20",
                               self.nginx.https_url + "/100.bin")
        self.assertAlmostEqual(r.json["rate"]["achieved_per_s"], 2000, delta=20, msg=describe(r))
        self.assertEqual(len(entries), r.json["requests"]["attempted"])
        self.assertEqual({e.protocol for e in entries}, {"HTTP/2.0"})

    def test_http09(self):
        r, entries = self.load("--http0.9", "-n", "20", "-c", "2", "-t", "1",
                               self.nginx.url + "/100.bin")
        self.assertEqual(r.json["requests"]["completed"], 20, describe(r))
        self.assertEqual(r.json["throughput"]["bytes_read"], 20 * 100)
        self.assertEqual(len(entries), 20)
        # nginx logs no protocol ("-") for an HTTP/0.9 request line.
        self.assertEqual({e.protocol for e in entries}, {"-"})
        self.assertEqual(r.json["protocol"], "http/0.9")

    def test_connect_to_overrides_the_address_not_the_host(self):
        r, entries = self.load("--connect-to", "127.0.0.1:%d" % self.nginx.port, "-n", "10",
                               "-c", "1", "http://hail.invalid:8080/100.bin")
        self.assertEqual(len(entries), 10, describe(r))
        self.assertEqual({e.host for e in entries}, {"hail.invalid:8080"})


class ProtocolsServeTest(unittest.TestCase):
    def test_unix_socket(self):
        with HailServer(unix_socket=True) as srv:
            before = srv.stats()["requests"]
            r = run_hail(["--unix-socket", srv.unix_socket, "-n", "3000", "-c", "8", "-t", "2",
                          "-q", "--json", "-", "http://localhost/bytes/4096"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertEqual(r.json["requests"]["completed"], 3000, describe(r))
            self.assertEqual(srv.stats()["requests"] - before, 3000)
            self.assertEqual(r.json["throughput"]["bytes_read"] > 3000 * 4096, True)

    def test_goaway_finishes_accepted_streams_and_reconnects(self):
        """The server sends GOAWAY after 100 streams per connection: hail finishes what the
        server accepted, sends what it refused once more on the next connection (retried, first
        there, so never refused twice), and every request is accounted for on both sides."""
        with HailServer("--h2-max-requests", "100") as srv:
            before = srv.stats()
            r = run_hail(["--h2", "-n", "2000", "-c", "2", "-t", "1", "--streams", "10", "-q",
                          "--json", "-", srv.url + "/bytes/10"], timeout=60)
            self.assertEqual(r.code, 0, describe(r))
            check_accounting(r.json)
            after = srv.stats()
            done = r.json["requests"]["completed"]
            self.assertEqual(done, 2000, describe(r))
            self.assertEqual(r.json["errors"]["stream"], 0, describe(r))
            self.assertEqual(r.json["requests"]["attempted"], 2000 + r.json["requests"]["retried"],
                             describe(r))
            self.assertEqual(after["requests"] - before["requests"], done)
            self.assertGreaterEqual(r.json["connections_opened"], 2000 // 100)
            self.assertGreaterEqual(after["h2_connections"] - before["h2_connections"], 20)

    def check_reconnects_resume(self, srv, n):
        """n requests, one connection each: every reconnect after the first resumes, as the server
        counts it and as hail reports it. Returns the server's /stats afterwards."""
        before = srv.stats()
        r = run_hail(["--no-keepalive", "--h1", "-n", str(n), "-c", "1", "-t", "1", "-q",
                      "--json", "-", srv.url + "/bytes/10"], timeout=30)
        self.assertEqual(r.code, 0, describe(r))
        after = srv.stats()
        self.assertEqual(after["tls_handshakes"] - before["tls_handshakes"], n)
        self.assertEqual(after["tls_resumed"] - before["tls_resumed"], n - 1)
        self.assertEqual(r.json["tls"]["resumed"], n - 1)
        return after

    def test_tls_h2_and_resumption_counted_by_the_server(self):
        with HailServer("--tls-self-signed", tls=True) as srv:
            after = self.check_reconnects_resume(srv, 30)
            r = run_hail(["-n", "1000", "-c", "2", "-t", "1", "--streams", "8", "-q", "--json",
                          "-", srv.url + "/bytes/100"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertEqual(r.json["protocol"], "h2")
            self.assertEqual(srv.stats()["h2_streams"] - after["h2_streams"], 1000)

    def test_resumption_across_the_servers_reactors(self):
        """hail serve with two reactors: each reconnect lands on either (SO_REUSEPORT), and still
        resumes, because the reactors share their session-ticket keys."""
        with HailServer("--tls-self-signed", tls=True, threads=2) as srv:
            self.check_reconnects_resume(srv, 40)


if __name__ == "__main__":
    unittest.main()
