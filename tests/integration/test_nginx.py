"""hail against Debian's nginx: what hail reports must match nginx's access log and stub_status.

nginx is required: without it these tests fail (./run test installs it), they never skip."""

import collections
import resource
import unittest

from support import Nginx, check_accounting, describe, require_nginx, run_hail


class NginxTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_nginx()
        cls.nginx = Nginx()
        cls.nginx.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.nginx.__exit__(None, None, None)

    def load(self, *args, timeout=30):
        """Runs hail (--json -) and waits until nginx has closed every client connection.
        Returns (run, access-log entries of the run, stub_status delta)."""
        mark = self.nginx.log_mark()
        before = self.nginx.quiesce()
        run = run_hail(list(args) + ["--json", "-", "-q"], timeout=timeout)
        self.assertEqual(run.code, 0, describe(run))
        check_accounting(run.json, describe(run))
        after = self.nginx.quiesce()
        entries = self.nginx.log_entries(mark)
        return run, entries, Nginx.stub_delta(before, after)

    def assert_clean(self, run, entries, path):
        errors = {k: v for k, v in run.json["errors"].items() if v}
        self.assertEqual(errors, {}, describe(run))
        self.assertEqual(run.json["error_reasons"], {}, describe(run))
        bad = [e for e in entries if (e.status, e.method, e.uri) != (200, "GET", path)]
        self.assertEqual(bad[:5], [], "unexpected access-log entries")

    def test_exact_count_in_access_log(self):
        run, entries, delta = self.load("-n", "1000", "-c", "10", "-t", "2",
                                        self.nginx.url + "/1k.bin")
        self.assert_clean(run, entries, "/1k.bin")
        self.assertEqual(run.json["requests"]["completed"], 1000, describe(run))
        self.assertEqual(run.json["requests"]["attempted"], 1000, describe(run))
        self.assertEqual(len(entries), 1000)
        self.assertEqual(delta["requests"], 1000, delta)
        self.assertEqual(delta["accepts"], 10, delta)
        self.assertEqual(len({e.connection for e in entries}), 10)
        # 1 KiB bodies plus nginx's heads.
        self.assertGreater(run.json["throughput"]["bytes_read"], 1000 * 1024)

    def test_keepalive_connections(self):
        run, entries, delta = self.load("-n", "2000", "-c", "20", "-t", "2",
                                        self.nginx.url + "/100.bin")
        self.assert_clean(run, entries, "/100.bin")
        self.assertEqual(len(entries), 2000)
        per_conn = collections.Counter(e.connection for e in entries)
        self.assertEqual(len(per_conn), 20, per_conn)
        self.assertEqual(run.json["connections_opened"], 20, describe(run))
        self.assertEqual(delta["accepts"], 20, delta)
        # $connection_requests climbs 1..k on each connection: no connection was reopened.
        for conn, count in per_conn.items():
            seq = sorted(e.connection_requests for e in entries if e.connection == conn)
            self.assertEqual(seq, list(range(1, count + 1)), "connection %d" % conn)

    def test_no_keepalive_connections(self):
        run, entries, delta = self.load("--no-keepalive", "-n", "300", "-c", "10",
                                        self.nginx.url + "/100.bin")
        self.assert_clean(run, entries, "/100.bin")
        self.assertEqual(run.json["requests"]["completed"], 300, describe(run))
        self.assertEqual(len(entries), 300)
        self.assertEqual(len({e.connection for e in entries}), 300)
        self.assertEqual({e.connection_requests for e in entries}, {1})
        self.assertEqual(run.json["connections_opened"], 300, describe(run))
        self.assertEqual(delta["accepts"], 300, delta)

    def test_duration_run_matches_log(self):
        run, entries, delta = self.load("-d", "1s", "-c", "10", "-t", "2",
                                        self.nginx.url + "/16k.bin")
        self.assert_clean(run, entries, "/16k.bin")
        req = run.json["requests"]
        self.assertGreater(req["completed"], 100, describe(run))
        self.assertEqual(req["attempted"], req["completed"] + req["in_flight"], describe(run))
        self.assertGreaterEqual(len(entries), req["completed"], describe(run))
        self.assertLessEqual(len(entries), req["completed"] + req["in_flight"], describe(run))
        self.assertEqual(delta["requests"], len(entries), delta)
        self.assertEqual(run.json["connections_opened"], 10, describe(run))
        self.assertEqual(delta["accepts"], 10, delta)
        self.assertGreater(run.json["throughput"]["bytes_read"], req["completed"] * 16 * 1024)

    def test_host_header_override_and_custom_header(self):
        run, entries, _ = self.load("-H", "Host: example.test", "-H", "X-Hail-Test: yes-42",
                                    "-n", "10", "-c", "1", self.nginx.url + "/100.bin")
        # A second Host header would make nginx answer 400: the default must be replaced.
        self.assert_clean(run, entries, "/100.bin")
        self.assertEqual(len(entries), 10)
        self.assertEqual({e.host for e in entries}, {"example.test"})
        self.assertEqual({e.x_hail_test for e in entries}, {"yes-42"})
        # Without -H, Host is the URL's authority and there is no custom header.
        run, entries, _ = self.load("-n", "5", "-c", "1", self.nginx.url + "/100.bin")
        self.assert_clean(run, entries, "/100.bin")
        self.assertEqual({e.host for e in entries}, {"127.0.0.1:%d" % self.nginx.port})
        self.assertEqual({e.x_hail_test for e in entries}, {"-"})
        self.assertEqual({e.protocol for e in entries}, {"HTTP/1.1"})

    def test_http10_keepalive(self):
        run, entries, delta = self.load("--http1.0", "-n", "100", "-c", "2",
                                        self.nginx.url + "/100.bin")
        self.assert_clean(run, entries, "/100.bin")
        self.assertEqual(len(entries), 100)
        self.assertEqual({e.protocol for e in entries}, {"HTTP/1.0"})
        self.assertEqual(len({e.connection for e in entries}), 2)
        self.assertEqual(run.json["connections_opened"], 2, describe(run))
        self.assertEqual(delta["accepts"], 2, delta)

    def test_head_and_missing_file(self):
        run, entries, _ = self.load("-m", "HEAD", "-n", "20", "-c", "1", self.nginx.url + "/1k.bin")
        self.assertEqual(run.json["requests"]["completed"], 20, describe(run))
        self.assertEqual([(e.status, e.method) for e in entries], [(200, "HEAD")] * 20)
        # Heads only: far less than the 20 KiB of bodies.
        self.assertLess(run.json["throughput"]["bytes_read"], 20 * 1024, describe(run))
        run, entries, _ = self.load("-n", "20", "-c", "2", self.nginx.url + "/nope.bin")
        self.assertEqual(run.json["status_codes"], {"404": 20}, describe(run))
        self.assertEqual(run.json["errors"]["status"], 20, describe(run))
        self.assertEqual([e.status for e in entries], [404] * 20)

    def test_ten_thousand_connections(self):
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard != resource.RLIM_INFINITY and hard < 20000:
            msg = ("RLIMIT_NOFILE hard limit is %d (< 20000): 10,000 connections need 10,000 "
                   "descriptors in hail and 10,000 in nginx" % hard)
            print("skipping: " + msg)
            self.skipTest(msg)
        before = self.nginx.quiesce()
        mark = self.nginx.log_mark()
        run = run_hail(["-c", "10000", "-t", "2", "-d", "3s", "--json", "-", "-q",
                        self.nginx.url + "/100.bin"], timeout=60)
        self.assertEqual(run.code, 0, describe(run))
        r = run.json
        check_accounting(r, describe(run))
        self.assertEqual(r["errors"]["connect"], 0, describe(run))
        self.assertEqual(r["connections_opened"], 10000, describe(run))
        self.assertGreater(r["requests"]["completed"], 0, describe(run))
        self.assertEqual(r["errors"]["status"], 0, describe(run))
        after = self.nginx.quiesce(timeout=20)
        delta = Nginx.stub_delta(before, after)
        self.assertGreaterEqual(delta["accepts"], 10000, delta)
        entries = self.nginx.log_entries(mark)
        req = r["requests"]
        self.assertGreaterEqual(len(entries), req["completed"], describe(run))
        self.assertLessEqual(len(entries), req["completed"] + req["in_flight"]
                             + r["errors"]["read"] + r["errors"]["timeout"], describe(run))


if __name__ == "__main__":
    unittest.main()
