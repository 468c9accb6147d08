"""--urls request mixes: weights honoured (random within 2 points over 10,000 requests,
round-robin exactly), per-line breakdowns equal to what nginx logged per path, methods and
bodies per line, several hosts splitting the connections by weight, and bad files refused."""

import collections
import os
import shutil
import tempfile
import unittest

from support import HailServer, NginxTestCase, check_accounting, describe, run_hail


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class MixesNginxTest(NginxTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.dir = tempfile.mkdtemp(prefix="hail-mix-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)
        super().tearDownClass()

    def test_weighted_random_mix(self):
        urls = write(self.dir, "random.txt", "# a comment\n1 /100.bin\n\n3 GET /1k.bin  # mostly\n")
        r, entries = self.load(["--urls", urls, "-n", "10000", "-c", "8", "-t", "2",
                                self.nginx.url])
        logged = collections.Counter(e.uri for e in entries)
        self.assertEqual(sum(logged.values()), 10000)
        self.assertAlmostEqual(logged["/100.bin"] / 10000, 0.25, delta=0.02, msg=logged)
        self.assertAlmostEqual(logged["/1k.bin"] / 10000, 0.75, delta=0.02, msg=logged)
        # One row per line, with nginx's counts.
        tags = {t["name"]: t for t in r.json["tags"]}
        self.assertEqual(len(tags), 2, tags.keys())
        by_path = {name.split()[-1]: t for name, t in tags.items()}
        self.assertEqual(by_path["/100.bin"]["completed"], logged["/100.bin"])
        self.assertEqual(by_path["/1k.bin"]["completed"], logged["/1k.bin"])
        self.assertEqual(by_path["/1k.bin"]["status"], {"200": logged["/1k.bin"]})
        self.assertIn("p99", by_path["/1k.bin"]["latency_us"])

    def test_round_robin_is_exact(self):
        urls = write(self.dir, "rr.txt", "1 /100.bin\n3 /1k.bin\n")
        r, entries = self.load(["--urls", urls, "--mix", "round-robin", "-n", "10000", "-c", "8",
                                "-t", "2", self.nginx.url])
        logged = collections.Counter(e.uri for e in entries)
        self.assertEqual(logged, {"/100.bin": 2500, "/1k.bin": 7500})

    def test_methods_and_absolute_urls_without_url_argument(self):
        urls = write(self.dir, "methods.txt",
                     "%s/1k.bin\nPOST %s/16k.bin\nHEAD %s/100.bin\n" % ((self.nginx.url,) * 3))
        r, entries = self.load(["--urls", urls, "--mix", "round-robin", "-n", "300", "-c", "3",
                                "-t", "1"])
        got = collections.Counter((e.method, e.uri, e.status) for e in entries)
        self.assertEqual(got, {("GET", "/1k.bin", 200): 100, ("POST", "/16k.bin", 405): 100,
                               ("HEAD", "/100.bin", 200): 100})
        self.assertEqual(r.json["requests"]["completed"], 300)

    def test_text_report_has_a_row_per_line(self):
        urls = write(self.dir, "text.txt", "/100.bin\n/nothing\n")
        r = run_hail(["--urls", urls, "--mix", "round-robin", "-n", "200", "-c", "2", "-t", "1",
                      self.nginx.url])
        self.assertEqual(r.code, 0, describe(r))
        self.assertIn("GET /100.bin", r.stdout)
        self.assertIn("GET /nothing", r.stdout)
        self.assertIn("404:100", r.stdout)


class MixesServeTest(unittest.TestCase):
    def test_bodies_from_files(self):
        with tempfile.TemporaryDirectory() as d, HailServer() as srv:
            write(d, "body.json", '{"hello": "hail"}')
            urls = write(d, "post.txt", "POST /echo @body.json\nGET /bytes/5\n")
            before = srv.stats()
            r = run_hail(["--urls", urls, "--mix", "round-robin", "-n", "100", "-c", "2", "-t",
                          "1", "-q", "--json", "-", srv.url], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertEqual(srv.stats_delta(before, srv.stats())["requests"], 100)
            tags = {t["name"]: t for t in r.json["tags"]}
            self.assertEqual(tags["POST /echo"]["status"], {"200": 50})
            # The echoed bodies come back: 50 x 17 bytes of body on top of 50 x 5.
            self.assertGreater(r.json["throughput"]["bytes_read"], 50 * 17 + 50 * 5)

    def test_two_hosts_split_connections_by_weight(self):
        with HailServer() as a, HailServer() as b:
            with tempfile.TemporaryDirectory() as d:
                urls = write(d, "hosts.txt", "1 %s/bytes/10\n3 %s/bytes/10\n" % (a.url, b.url))
                before_a, before_b = a.stats(), b.stats()
                r = run_hail(["--urls", urls, "-n", "4000", "-c", "8", "-t", "2", "-q", "--json",
                              "-"], timeout=30)
                self.assertEqual(r.code, 0, describe(r))
                check_accounting(r.json)
                da = a.stats_delta(before_a, a.stats())
                db = b.stats_delta(before_b, b.stats())
                self.assertEqual(da["connections"], 2, da)
                self.assertEqual(db["connections"], 6, db)
                self.assertEqual(da["requests"] + db["requests"], 4000)
                # Each host's share of requests is its connections' pace (closed loop): both
                # servers answered, the split of work follows the servers, not the weights.
                self.assertGreater(da["requests"], 0)
                self.assertGreater(db["requests"], 0)


class MixesErrorsTest(unittest.TestCase):
    def test_bad_files_are_usage_errors(self):
        with tempfile.TemporaryDirectory() as d:
            base = "http://127.0.0.1:9/"
            cases = [
                ("zero.txt", "0 /a\n", "zero.txt:1", [base]),
                ("scheme.txt", "ftp://x/a\n", "scheme.txt:1", [base]),
                ("nobase.txt", "/a\n", "nobase.txt:1", []),
                ("body.txt", "/a\nPOST /b @missing.bin\n", "body.txt:2", [base]),
                ("empty.txt", "# nothing\n", "empty.txt", [base]),
            ]
            for name, text, where, url in cases:
                with self.subTest(name):
                    path = write(d, name, text)
                    r = run_hail(["--urls", path, "-n", "1"] + url)
                    self.assertEqual(r.code, 2, describe(r))
                    lines = r.stderr.strip().splitlines()
                    self.assertEqual(len(lines), 1, r.stderr)
                    self.assertIn(where, lines[0])
            r = run_hail(["--urls", "/nonexistent/urls.txt", "http://127.0.0.1:9/"])
            self.assertEqual(r.code, 2, describe(r))
            self.assertIn("/nonexistent/urls.txt", r.stderr)
            r = run_hail(["--mix", "round-robin", "http://127.0.0.1:9/"])
            self.assertEqual(r.code, 2, describe(r))
            self.assertIn("--mix needs --urls", r.stderr)


if __name__ == "__main__":
    unittest.main()
