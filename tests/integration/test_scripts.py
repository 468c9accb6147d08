"""wrk-compatible Lua scripts (-s) against hail serve and nginx: each API element's effect is
checked on the server side (paths, methods, headers and bodies the server saw, request counts)
and in what the script's done() printed. The scripts live in scripts/."""

import collections
import os
import re
import unittest

from support import HailServer, NginxTestCase, check_accounting, describe, run_hail

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")


def script(name):
    return os.path.join(SCRIPTS, name)


class ScriptsServeTest(unittest.TestCase):
    def test_post_body_is_echoed(self):
        """wrk.method/wrk.body/wrk.headers: every request is a POST with the body, /echo sends it
        back, response() sees it; done() sums per-thread counters read with thread:get()."""
        with HailServer(threads=2) as srv:
            before = srv.stats()
            r = run_hail(["-s", script("post_echo.lua"), "-n", "400", "-c", "4", "-t", "2",
                          srv.url + "/echo"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertIn("echoed 400 mismatched 0 requests 400", r.stdout)
            delta = srv.stats_delta(before, srv.stats())
            self.assertEqual(delta["requests"], 400)

    def test_thread_state_with_setup_get_and_set(self):
        """setup() gives each thread an id and a table (thread:set), init() prints them, done()
        reads each thread's counters (thread:get): responses add up to the completed requests;
        requests() ran once more on thread 1 than it answered (wrk's verification call)."""
        with HailServer() as srv:
            r = run_hail(["-s", script("thread_counters.lua"), "-d", "1s", "-c", "4", "-t", "2",
                          srv.url + "/bytes/10"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertIn("thread 1 created (t1, true)", r.stdout)
            self.assertIn("thread 2 created (t2, true)", r.stdout)
            rows = re.findall(r"thread (\d) made (\d+) requests and got (\d+) responses", r.stdout)
            self.assertEqual([row[0] for row in rows], ["1", "2"], r.stdout)
            completed = int(re.search(r"(\d+) requests in", r.stdout).group(1))
            responses = sum(int(row[2]) for row in rows)
            # Warm-up-free run: every response counted by the script is a completed request, plus
            # the ones in flight when the run stopped are neither.
            self.assertGreaterEqual(responses, completed)
            self.assertLessEqual(responses - completed, 4, r.stdout)
            for tid, made, got in rows:
                self.assertGreaterEqual(int(made), int(got))
                self.assertLessEqual(int(made) - int(got), 3, r.stdout)

    def test_script_output_goes_to_stderr_with_json_on_stdout(self):
        """--json -: stdout is one JSON document; what init() and done() print goes to stderr."""
        with HailServer() as srv:
            r = run_hail(["-s", script("thread_counters.lua"), "-n", "100", "-c", "2", "-t", "2",
                          "--json", "-", "-q", srv.url + "/bytes/10"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertEqual(r.json["requests"]["completed"], 100)
            self.assertIn("thread 1 created", r.stderr)
            self.assertIn("thread 2 made", r.stderr)

    def test_stop_ends_the_thread(self):
        """wrk.thread:stop() in response() after 100 responses: the run ends early with 100."""
        with HailServer() as srv:
            before = srv.stats()
            r = run_hail(["-s", script("stop_after.lua"), "-d", "20s", "-c", "1", "-t", "1",
                          "--json", "-", "-q", srv.url + "/bytes/10"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertLess(r.seconds, 10, describe(r))
            check_accounting(r.json)
            self.assertEqual(r.json["requests"]["completed"], 100, describe(r))
            delta = srv.stats_delta(before, srv.stats())
            self.assertEqual(delta["requests"], 100)

    def test_script_args_after_dashes(self):
        """Words after -- reach init(args) from args[1] on (args[0] is the URL, as in wrk)."""
        with HailServer() as srv:
            r = run_hail(["-s", script("stop_after.lua"), "-d", "20s", "-c", "1", "-t", "1",
                          "--json", "-", "-q", srv.url + "/bytes/10", "--", "25"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertEqual(r.json["requests"]["completed"], 25, describe(r))

    def test_delay_paces_requests(self):
        """delay() returning 50 ms: one connection makes about 20 requests a second."""
        with HailServer() as srv:
            r = run_hail(["-s", script("delay_fixed.lua"), "-d", "2s", "-c", "1", "-t", "1",
                          "--json", "-", "-q", srv.url + "/bytes/10"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertGreaterEqual(r.json["requests"]["completed"], 30, describe(r))
            self.assertLessEqual(r.json["requests"]["completed"], 41, describe(r))

    def test_delay_is_ignored_in_rate_mode_with_a_note(self):
        with HailServer() as srv:
            r = run_hail(["-s", script("delay_fixed.lua"), "-R", "200", "-n", "100", "-c", "2",
                          "-t", "1", "--json", "-", "-q", srv.url + "/bytes/1"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertEqual(r.json["requests"]["completed"], 100)
            self.assertLess(r.seconds, 5)  # 50 ms per request would take 2.5 s per connection
            self.assertTrue(any("delay() was ignored" in n for n in r.json["notes"]), r.json)

    def test_done_reports_percentiles_and_summary(self):
        with HailServer() as srv:
            r = run_hail(["-s", script("percentiles.lua"), "-n", "2000", "-c", "4", "-t", "2",
                          srv.url + "/bytes/100"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            out = r.stdout.split("------------------------------\n", 1)[1]
            values = dict(line.split(",", 1) for line in out.strip().splitlines())
            p = [int(values[k]) for k in ("50%", "90%", "99%", "99.999%")]
            self.assertEqual(p, sorted(p), out)
            self.assertGreater(p[0], 0)
            self.assertLessEqual(int(values["min"]), p[0])
            self.assertGreaterEqual(int(values["max"]), p[3])
            self.assertEqual(values["requests"], "2000")
            self.assertEqual(values["errors"], "0,0,0,0,0")
            self.assertGreater(int(values["bytes"]), 2000 * 100)

    def test_addr_lookup_and_connect(self):
        with HailServer() as srv:
            r = run_hail(["-s", script("addr_lookup.lua"), "-n", "50", "-c", "2", "-t", "2",
                          srv.url + "/bytes/1"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertEqual(r.stdout.count("thread addr: 127.0.0.1:%d" % srv.port), 2, r.stdout)

    def test_syntax_error_names_file_and_line(self):
        with HailServer() as srv:
            r = run_hail(["-s", script("broken_syntax.lua"), "-n", "5", srv.url + "/"])
            self.assertEqual(r.code, 1, describe(r))
            self.assertEqual(r.stdout, "")
            lines = r.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, r.stderr)
            self.assertRegex(lines[0], r"^hail: .*broken_syntax\.lua:3: ")

    def test_runtime_error_in_response_stops_the_run(self):
        with HailServer() as srv:
            r = run_hail(["-s", script("broken_response.lua"), "-d", "10s", "-c", "1", "-t", "1",
                          srv.url + "/bytes/1"], timeout=30)
            self.assertEqual(r.code, 1, describe(r))
            self.assertLess(r.seconds, 8)
            self.assertIn("requests in", r.stdout)  # the partial run is still reported
            self.assertRegex(r.stderr, r"hail: script error: .*broken_response\.lua:7: ")

    def test_missing_script_file(self):
        r = run_hail(["-s", "/nonexistent/x.lua", "-n", "1", "http://127.0.0.1:9/"])
        self.assertEqual(r.code, 1, describe(r))
        self.assertIn("/nonexistent/x.lua", r.stderr)


class ScriptsNginxTest(NginxTestCase):
    NGINX_TLS = True

    def test_dynamic_paths_and_headers(self):
        """request() makes a new path and header per request: nginx logs each path once, with
        the header that went with it; thread 1's first path (/c0) went to wrk's verification call
        and is never sent."""
        r, entries = self.load(["-s", script("counter_paths.lua"), "-n", "300", "-c", "3", "-t",
                                "1", self.nginx.url + "/"])
        self.assertEqual(r.json["requests"]["completed"], 300, describe(r))
        self.assertEqual(len(entries), 300)
        uris = [e.uri for e in entries]
        self.assertEqual(len(set(uris)), 300)
        self.assertEqual(set(uris), {"/c%d" % i for i in range(1, 301)})
        for e in entries:
            self.assertEqual(e.uri, "/c" + e.x_hail_test)
            self.assertEqual(e.status, 404)

    def test_pipelined_requests(self):
        """Three requests per request() go out pipelined: equal counts of the three paths, and
        the same connection carries many requests."""
        r, entries = self.load(["-s", script("pipeline3.lua"), "-n", "600", "-c", "2", "-t", "1",
                                self.nginx.url + "/"])
        self.assertEqual(r.json["requests"]["completed"], 600, describe(r))
        counts = collections.Counter(e.uri for e in entries)
        self.assertEqual(set(counts), {"/100.bin", "/1k.bin", "/16k.bin"})
        # -n counts requests, not request() calls: a connection's last group may be cut short.
        for n in counts.values():
            self.assertAlmostEqual(n, 200, delta=2, msg=counts)
        self.assertEqual(r.json["pipeline"], 3)
        per_connection = collections.Counter(e.connection for e in entries)
        self.assertEqual(len(per_connection), 2)
        self.assertGreater(max(e.connection_requests for e in entries), 100)

    def test_response_headers_feed_later_requests(self):
        """response() reads a header of the first answer and changes path and headers after it."""
        r, entries = self.load(["-s", script("token_auth.lua"), "-n", "50", "-c", "1", "-t", "1",
                                self.nginx.url + "/"])
        self.assertEqual(r.json["requests"]["completed"], 50, describe(r))
        self.assertEqual(entries[0].uri, "/100.bin")
        self.assertEqual({(e.uri, e.x_hail_test) for e in entries[1:]}, {("/1k.bin", "100")})

    def test_tags_break_the_report_down(self):
        r, entries = self.load(["-s", script("tagged.lua"), "-n", "900", "-c", "3", "-t", "1",
                                self.nginx.url + "/"])
        tags = {t["name"]: t for t in r.json["tags"]}
        self.assertEqual(set(tags), {"file", "missing"})
        self.assertEqual(tags["file"]["completed"] + tags["missing"]["completed"], 900)
        logged = collections.Counter(e.uri for e in entries)
        self.assertEqual(tags["file"]["completed"], logged["/1k.bin"])
        self.assertEqual(tags["missing"]["completed"], logged["/nothing-here"])
        self.assertEqual(tags["missing"]["status"], {"404": logged["/nothing-here"]})
        self.assertEqual(tags["file"]["status"], {"200": logged["/1k.bin"]})

    def test_script_in_rate_mode(self):
        """Scripts drive every load model: -R with -n sends exactly N dynamic requests."""
        r, entries = self.load(["-s", script("counter_paths.lua"), "-R", "400", "-n", "200",
                                "-c", "4", "-t", "1", self.nginx.url + "/"])
        self.assertEqual(r.json["requests"]["completed"], 200, describe(r))
        self.assertEqual(len({e.uri for e in entries}), 200)
        self.assertAlmostEqual(r.json["rate"]["achieved_per_s"], 400, delta=8)

    def test_script_with_stages_and_warmup(self):
        """Closed-loop stages (connections added and retired) with a warm-up: every request is
        the script's (one thread: one counter, so each path exactly once), warm-up included."""
        r, entries = self.load(["-s", script("counter_paths.lua"), "--stages",
                                "300ms:4,300ms:4,300ms:1",
                                "--warmup", "300ms", "-c", "2", "-t", "1",
                                self.nginx.url + "/"])
        self.assertGreater(r.json["requests"]["completed"], 50, describe(r))
        uris = [e.uri for e in entries]
        self.assertEqual(len(set(uris)), len(uris))
        self.assertGreater(len(uris), r.json["requests"]["attempted"])  # the warm-up's too
        self.assertEqual(set(uris), {"/c%d" % i for i in range(1, len(uris) + 1)})
        self.assertEqual([st["index"] for st in r.json["stages"]["steps"]], [0, 1, 2])
        self.assertEqual(len({e.connection for e in entries}), 4)

    def test_script_over_http2_and_tls(self):
        for url, protocol in ((self.nginx.https_url, "HTTP/2.0"),
                              (self.nginx.https_h1_url, "HTTP/1.1")):
            with self.subTest(url=url):
                r, entries = self.load(["-s", script("counter_paths.lua"), "-n", "200", "-c", "2",
                                        "-t", "1", url + "/"])
                self.assertEqual(r.json["requests"]["completed"], 200, describe(r))
                self.assertEqual({e.protocol for e in entries}, {protocol})
                self.assertEqual(len({e.uri for e in entries}), 200)


if __name__ == "__main__":
    unittest.main()
