"""Stages, ladders, think time and the time series, checked against what the servers saw:
nginx's access log (each request stamped with $msec) and hail serve's /stats."""

import csv
import json
import os
import tempfile
import unittest

from support import HailServer, Nginx, check_accounting, describe, require_nginx, run_hail


def non_warmup_sum(rows, key):
    return sum(row[key] for row in rows if not row["warmup"])


class StagesNginxTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_nginx()
        cls.nginx = Nginx().__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.nginx.__exit__(None, None, None)

    def test_rate_ladder_rows_match_the_access_log_per_step(self):
        """Each ladder row's count equals the requests nginx logged in that step's time window
        (up to the few in flight at each boundary), and each step holds its rate within 1%."""
        mark = self.nginx.log_mark()
        r = run_hail(["-R", "1", "--ladder", "400:400:1200", "--step-duration", "2s", "-c", "20",
                      "-t", "1", "-q", "--json", "-", self.nginx.url + "/100.bin"], timeout=60)
        self.assertEqual(r.code, 0, describe(r))
        check_accounting(r.json)
        self.nginx.quiesce()
        entries = self.nginx.log_entries(mark)
        stages = r.json["stages"]
        self.assertEqual(stages["kind"], "ladder")
        self.assertEqual(stages["target_unit"], "req/s")
        steps = stages["steps"]
        self.assertEqual([s["target_end"] for s in steps], [400, 800, 1200])
        self.assertEqual(sum(s["completed"] for s in steps), r.json["requests"]["completed"])
        self.assertEqual(len(entries), r.json["requests"]["attempted"], describe(r))
        start = r.json["start_unix_s"]
        for s in steps:
            lo, hi = start + s["start_s"], start + s["end_s"]
            logged = sum(1 for e in entries if lo <= e.msec < hi)
            # Boundaries: nginx stamps to the millisecond, hail's start to the millisecond, and
            # requests in flight at a boundary complete in the next step.
            self.assertAlmostEqual(s["completed"], logged, delta=max(4, 0.005 * logged),
                                   msg="step %s: %s" % (s["index"], describe(r)))
            self.assertAlmostEqual(s["requests_per_s"], s["target_end"],
                                   delta=0.01 * s["target_end"], msg=describe(r))
            self.assertEqual(s["errors"], 0)

    def test_rate_within_one_percent_against_nginx(self):
        # A sanitizer build (RelWithDebInfo) runs several times slower: on 2 cores shared with
        # nginx it cannot hold 20000 req/s reliably (CI saw 19459 with the server queueing), so
        # its top rate is lower; the release build checks 20000.
        version = run_hail(["--version"]).stdout
        top = 20000 if "Release build" in version else 5000
        for rate in (100, 2000, top):
            mark = self.nginx.log_mark()
            r = run_hail(["-R", str(rate), "-d", "2s", "-c", "50", "-t", "1", "-q", "--json", "-",
                          self.nginx.url + "/100.bin"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            check_accounting(r.json)
            self.assertAlmostEqual(r.json["rate"]["achieved_per_s"], rate, delta=0.01 * rate,
                                   msg=describe(r))
            self.nginx.quiesce()
            logged = len(self.nginx.log_entries(mark))
            self.assertEqual(logged, r.json["requests"]["attempted"], describe(r))
            # Server side: the requests nginx logged over the measured duration.
            self.assertAlmostEqual(logged / r.json["duration_s"], rate, delta=0.01 * rate,
                                   msg=describe(r))

    def test_closed_loop_stages_open_and_close_connections(self):
        """3 connections, then 1, then 4: nginx sees 3 + 3 new connections (the one kept
        running across the drop keeps its connection), every request logged."""
        mark = self.nginx.log_mark()
        r = run_hail(["--stages", "0s:3,1s:3,0s:1,1s:1,0s:4,1s:4", "-t", "1", "-q", "--json", "-",
                      self.nginx.url + "/100.bin"], timeout=30)
        self.assertEqual(r.code, 0, describe(r))
        check_accounting(r.json)
        self.nginx.quiesce()
        entries = self.nginx.log_entries(mark)
        self.assertEqual(len(entries), r.json["requests"]["attempted"])
        self.assertEqual(len({e.connection for e in entries}), 6, describe(r))
        self.assertEqual(r.json["connections_opened"], 6)
        steps = r.json["stages"]["steps"]
        self.assertEqual([(s["target_start"], s["target_end"]) for s in steps],
                         [(3, 3), (1, 1), (4, 4)])


class StagesServeTest(unittest.TestCase):
    def test_time_series_totals_equal_the_summary(self):
        with HailServer() as srv, tempfile.TemporaryDirectory() as tmp:
            csv_path = os.path.join(tmp, "series.csv")
            before = srv.stats()["requests"]
            r = run_hail(["-c", "4", "-t", "2", "-d", "2s", "--warmup", "1s", "--interval",
                          "500ms", "--timeseries", csv_path, "-q", "--json", "-",
                          srv.url + "/bytes/100"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            check_accounting(r.json)
            series = r.json["timeseries"]
            self.assertEqual(r.json["interval_s"], 0.5)
            self.assertEqual([row["warmup"] for row in series], [True] * 2 + [False] * 4)
            self.assertEqual(non_warmup_sum(series, "completed"), r.json["requests"]["completed"])
            self.assertEqual(non_warmup_sum(series, "errors"), 0)
            served = srv.stats()["requests"] - before
            warm = sum(row["completed"] for row in series if row["warmup"])
            # Everything the server served was either a warm-up request, a measured one, or in
            # flight when a phase ended.
            self.assertLessEqual(warm + r.json["requests"]["completed"], served)
            self.assertLessEqual(served, warm + r.json["requests"]["attempted"] + 4)
            with open(csv_path, newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), len(series))
            self.assertEqual(sum(int(row["completed"]) for row in rows if row["warmup"] == "0"),
                             r.json["requests"]["completed"])
            for row in rows:
                self.assertEqual(int(row["open_connections"]), 4)

    def test_jsonl_series_with_a_connection_ramp(self):
        with HailServer() as srv, tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "series.jsonl")
            r = run_hail(["--stages", "2s:8", "-t", "2", "--interval", "250ms", "--timeseries",
                          path, "-q", "--json", "-", srv.url + "/bytes/10"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            with open(path) as f:
                rows = [json.loads(line) for line in f]
            self.assertEqual(len(rows), 8)
            # The target climbs one connection per 250 ms (a row shows the target in force at its
            # end); open connections follow it.
            self.assertEqual([row["target"] for row in rows], [0, 1, 2, 3, 4, 5, 6, 7])
            self.assertEqual(sum(row["completed"] for row in rows),
                             r.json["requests"]["completed"])
            self.assertLessEqual(rows[0]["open_connections"], 2)
            self.assertGreaterEqual(rows[-2]["open_connections"], 6)

    def test_think_time_spaces_requests(self):
        with HailServer() as srv:
            before = srv.stats()["requests"]
            r = run_hail(["-c", "2", "-t", "1", "-n", "20", "--think", "100ms", "-q", "--json", "-",
                          srv.url + "/bytes/10"], timeout=30)
            self.assertEqual(r.code, 0, describe(r))
            self.assertEqual(srv.stats()["requests"] - before, 20)
            # Two connections, ten requests each, nine pauses of 100 ms between them.
            self.assertGreaterEqual(r.json["duration_s"], 0.9)
            self.assertLess(r.json["latency_us"]["max"], 100_000)

    def test_burst_with_repeat_sends_exactly_the_plan(self):
        """--repeat: 200 req/s for 0.5 s, 1000 req/s for 0.5 s, twice: exactly 1200 requests,
        the server's count equal."""
        with HailServer() as srv:
            for attempt in range(3):
                before = srv.stats()["requests"]
                r = run_hail(["-R", "200", "--stages", "0s:200,500ms:200,0s:1000,500ms:1000",
                              "--repeat", "2", "-c", "10", "-t", "1", "-q", "--json", "-",
                              srv.url + "/bytes/10"], timeout=30)
                self.assertEqual(r.code, 0, describe(r))
                # The plan's last request goes 1 ms before the end: on a loaded machine its
                # response may come after the run's end, and it is then counted in flight.
                req = r.json["requests"]
                self.assertEqual(req["attempted"], 1200, describe(r))
                self.assertEqual(req["completed"] + req["in_flight"], 1200, describe(r))
                self.assertLessEqual(req["in_flight"], 3, describe(r))
                served = srv.stats()["requests"] - before
                self.assertGreaterEqual(served, req["completed"])
                self.assertLessEqual(served, 1200)
                # Steps count requests by completion time: one planned just before a boundary
                # may complete just after it, so each row is the plan give or take a few. A
                # machine that stalls hail for 10 ms moves 10 of the 1000 req/s across: such a
                # run says so (generator health: hail sent late) and is made again.
                steps = r.json["stages"]["steps"]
                self.assertEqual(len(steps), 4)
                got = [s["completed"] for s in steps]
                if all(abs(g - w) <= 3 for g, w in zip(got, [100, 500, 100, 500])):
                    return
                if not r.json["generator_health"]["limited_by_hail"]:
                    self.fail("steps %s, not 100/500/100/500, on time: %s" % (got, describe(r)))
            self.fail("hail was stalled in all 3 runs; last steps %s: %s" % (got, describe(r)))

if __name__ == "__main__":
    unittest.main()
