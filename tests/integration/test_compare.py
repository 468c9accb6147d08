"""`hail compare` against `hail serve`'s /delay/MS (a server whose latency we set): runs of one
setup compared with each other are never called improved or regressed (bar a rare false alarm),
a 10 % slower server (/delay/50 against /delay/55) is called regressed, single runs by the block
bootstrap and repeated runs by Mann-Whitney; different loads and too few windows are refused with
one line. Short open-loop runs (-R, fixed arrivals): the whole suite stays under a minute."""

import json
import os
import shutil
import tempfile
import unittest

from support import HailServer, describe, run_hail

RATE = "200"
DURATION_S = 2
DURATION = "%ds" % DURATION_S
INTERVAL = "100ms"
RUNS = 4
# The server's delays (ms). Long enough that a shared machine's stalls (a few ms of steal, seen in
# CI) are a few per cent of a latency, inside the 5 % margins, not a fifth of it as with 10 ms.
FAST_MS, SLOW_MS = 50, 55
CONNECTIONS = "24"  # 200/s x 55 ms = 11 in flight, with room for late responses
# Metrics that must never be called improved or regressed between runs of one setup. The
# extremes (p99.9, max, lag) are left out of the strict check: a single scheduling hiccup on a
# shared machine moves them, which is what their wide margins and "inconclusive" are for.
STEADY = ("p50", "p90", "mean", "rps", "error_rate", "service.p50", "service.mean")


def verdicts(run):
    return {m["name"]: m["verdict"] for m in run.json["comparison"]["metrics"]
            if "tag" not in m}


class CompareTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="hail-compare-")
        cls.fast, cls.slow = [], []
        cls.rerecorded = 0
        with HailServer(threads=2) as srv:
            for i in range(RUNS):
                for delay, runs in ((FAST_MS, cls.fast), (SLOW_MS, cls.slow)):
                    runs.append(cls.record(srv, delay, "d%d-%d.json" % (delay, i)))
            cls.server_url = srv.url

    @classmethod
    def record(cls, srv, delay, name):
        """One run; recorded again (up to twice) when the machine stalled it. These tests judge the
        statistics on the runs they are given; a run in which the shared machine stalled hail or
        the server for tens of milliseconds really measured something else (bench/RESULTS.md:
        every false alarm of the study came from such runs), which no statistic of two runs can
        tell from a slower server."""
        path = os.path.join(cls.dir, name)
        for _ in range(3):
            run = run_hail(["-q", "-R", RATE, "-c", CONNECTIONS, "-d", DURATION, "--interval",
                            INTERVAL, "--json", path, srv.url + "/delay/%d" % delay], timeout=60)
            assert run.code == 0, describe(run)
            with open(path) as f:
                doc = json.load(f)
            stalled = (doc["lag_us"]["p99"] > 5000
                       or doc["latency_us"]["p90"] > delay * 1050
                       or doc["requests"]["completed"] < 0.97 * float(RATE) * DURATION_S)
            if not stalled:
                break
            cls.rerecorded += 1
        return path

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def compare(self, *args, expect=None):
        run = run_hail(["compare", "--json", "-"] + list(args), timeout=60)
        if expect is not None:
            self.assertEqual(run.code, expect, describe(run))
        return run

    def test_identical_setups_are_never_improved_or_regressed(self):
        pairs = [(a, b) for a in range(RUNS) for b in range(a + 1, RUNS)]
        alarms = []
        for a, b in pairs:
            run = self.compare(self.fast[a], self.fast[b])
            self.assertIn(run.code, (0, 3), describe(run))
            for name, verdict in verdicts(run).items():
                if verdict in ("improved", "regressed"):
                    alarms.append("%d vs %d: %s %s" % (a, b, name, verdict))
                    self.assertNotIn(name, STEADY, run.stdout)
        # Every metric of 6 comparisons: at most one false alarm, and only on an extreme.
        self.assertLessEqual(len(alarms), 1, alarms)

    def test_ten_percent_slower_server_regresses(self):
        for i in range(2):
            run = self.compare("--force", self.fast[i], self.slow[i], expect=3)
            v = verdicts(run)
            for name in ("p50", "mean"):
                self.assertEqual(v[name], "regressed", run.stdout)
            p50 = [m for m in run.json["comparison"]["metrics"] if m["name"] == "p50"][0]
            self.assertGreater(p50["ci_low"], 0.05, p50)
            self.assertLess(p50["ci_high"], 0.2, p50)
            self.assertTrue(run.json["comparison"]["regressed"])
            # And the other way round: improved. Exit 0 unless the faster server's run was the
            # more disturbed one: its scheduler lag (the generator's own health, not the server's)
            # or an extreme may then be called regressed, as in the identical-setups test (CI saw
            # lag.p90 and lag.mean regressed, lag p99 2.7 ms, with the base binary too).
            back = self.compare("--force", self.slow[i], self.fast[i])
            self.assertIn(back.code, (0, 3), describe(back))
            back_verdicts = verdicts(back)
            self.assertEqual(back_verdicts["p50"], "improved", back.stdout)
            self.assertEqual(back_verdicts["mean"], "improved", back.stdout)
            regressed = sorted(n for n, v in back_verdicts.items() if v == "regressed")
            self.assertEqual(back.code == 3, bool(regressed), regressed)
            self.assertFalse(set(regressed) & set(STEADY), regressed)

    def test_repeated_runs(self):
        run = self.compare("--force", "--base", *self.fast, "--candidate", *self.slow, expect=3)
        comparison = run.json["comparison"]
        self.assertEqual(comparison["method"], "mann-whitney")
        p50 = [m for m in comparison["metrics"] if m["name"] == "p50"][0]
        self.assertEqual(p50["verdict"], "regressed", run.stdout)
        self.assertAlmostEqual(p50["p_value"], 2 / 70)
        same = self.compare("--base", *self.fast[:2], "--candidate", *self.fast[2:], expect=0)
        for name in STEADY:
            self.assertIn(verdicts(same)[name], ("same", "inconclusive"), same.stdout)
        self.assertTrue(same.json["comparison"]["notes"], same.stdout)  # 2 vs 2 cannot decide

    def test_text_table_and_reproducible_output(self):
        first = run_hail(["compare", "--force", self.fast[0], self.slow[0]])
        again = run_hail(["compare", "--force", self.fast[0], self.slow[0]])
        self.assertEqual(first.code, 3, describe(first))
        self.assertEqual(first.stdout, again.stdout)  # seeded bootstrap
        header = [line for line in first.stdout.splitlines() if line.startswith("metric")]
        self.assertEqual(header[0].split()[:5], ["metric", "base", "candidate", "change", "95%"])
        self.assertRegex(first.stdout, r"\np50 .*regressed\n")
        other_seed = run_hail(["compare", "--force", "--seed", "7", self.fast[0], self.slow[0]])
        self.assertNotEqual(first.stdout, other_seed.stdout)

    def test_different_loads_are_refused(self):
        run = run_hail(["compare", self.fast[0], self.slow[0]])
        self.assertEqual(run.code, 2, describe(run))
        self.assertEqual(run.stdout, "")
        lines = run.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, run.stderr)
        self.assertIn("offered different loads: URL", lines[0])
        self.assertIn("--force", lines[0])

    def test_too_few_windows_are_refused(self):
        path = os.path.join(self.dir, "short.json")
        with HailServer() as srv:
            run = run_hail(["-q", "-R", RATE, "-d", "1s", "--interval", "250ms", "--json", path,
                            srv.url + "/delay/10"], timeout=30)
            self.assertEqual(run.code, 0, describe(run))
        run = run_hail(["compare", "--force", path, self.fast[0]])
        self.assertEqual(run.code, 2, describe(run))
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn("--interval", run.stderr)

    def test_single_runs_compare_each_tag(self):
        # Two tags per run, alternating: "steady" always /delay/40, "slow" /delay/50 in the base
        # and /delay/65 in the candidate. The tag lines come from each window's per-tag share.
        script = """
local n = 0
function request()
  n = n + 1
  if n %% 2 == 0 then return hail.tag("steady", wrk.format(nil, "/delay/40")) end
  return hail.tag("slow", wrk.format(nil, "/delay/%s"))
end
"""
        paths = {}
        with HailServer(threads=2) as srv:
            for delay in ("50", "65"):
                lua = os.path.join(self.dir, "tags-%s.lua" % delay)
                with open(lua, "w") as f:
                    f.write(script % delay)
                paths[delay] = os.path.join(self.dir, "tags-%s.json" % delay)
                run = run_hail(["-q", "-R", RATE, "-c", CONNECTIONS, "-d", DURATION, "--interval",
                                INTERVAL, "-s", lua, "--json", paths[delay], srv.url],
                               timeout=60)
                self.assertEqual(run.code, 0, describe(run))
        with open(paths["50"]) as f:
            doc = json.load(f)
        window_tags = [t["name"] for w in doc["windows"]["intervals"] for t in w.get("tags", [])]
        self.assertIn("slow", window_tags)
        # Every window's tag shares add up to the window.
        for w in doc["windows"]["intervals"]:
            self.assertEqual(sum(t["completed"] for t in w.get("tags", [])), w["completed"], w)
        run = self.compare(paths["50"], paths["65"], expect=3)
        by_tag = {}
        for m in run.json["comparison"]["metrics"]:
            by_tag.setdefault(m.get("tag", ""), {})[m["name"]] = m["verdict"]
        self.assertEqual(by_tag["slow"]["p50"], "regressed", run.stdout)
        self.assertIn(by_tag["steady"]["p50"], ("same", "inconclusive"), run.stdout)
        self.assertNotIn("service.p50", by_tag["slow"])
        self.assertFalse([n for n in run.json["comparison"]["notes"] if "per-tag" in n], run.stdout)
        text = run_hail(["compare", paths["50"], paths["65"]])
        self.assertRegex(text.stdout, r"slow\s+p50 .*regressed")

    def test_usage_errors(self):
        for args, word in ((["--tolerance", "p98=5%", self.fast[0], self.fast[1]], "p98"),
                           (["--tolerance", "p99=x", self.fast[0], self.fast[1]], "bad margin \"x\" for p99"),
                           ([self.fast[0]], "missing"),
                           (["--base", self.fast[0]], "--candidate"),
                           ([self.fast[0], os.path.join(self.dir, "nope.json")], "nope.json"),
                           (["--resamples", "5", self.fast[0], self.fast[1]], "--resamples")):
            run = run_hail(["compare"] + args)
            self.assertEqual(run.code, 2, describe(run))
            self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
            self.assertIn(word, run.stderr)
        help_run = run_hail(["compare", "--help"])
        self.assertEqual(help_run.code, 0)
        self.assertIn("--tolerance", help_run.stdout)


if __name__ == "__main__":
    unittest.main()
