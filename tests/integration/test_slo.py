"""SLO thresholds (--slo) on real runs against `hail serve`: the verdict table, the JSON "slo"
section, exit statuses 0 / 99 (and 2 for a bad expression), --slo-abort stopping a run early,
--junit, windowed thresholds, per-step verdicts on a ladder, and `hail report` judging a saved
run again."""

import os
import unittest
import xml.etree.ElementTree as ET

from support import HailServer, ServerTestCase, describe, run_hail


def check(report, expr):
    for c in report["slo"]["checks"]:
        if c["expr"] == expr:
            return c
    raise AssertionError("no check %r in %r" % (expr, report["slo"]))


class SloTest(ServerTestCase):

    def run_slo(self, *args, timeout=60):
        # /delay/5: every response takes 5 ms, so the thresholds below are far from the values
        # and hail's own CPU stays low (a closed loop: no scheduler lag to judge).
        return run_hail(["-q", "-c", "4", "--json", "-"] + list(args), timeout=timeout)

    def test_passing_thresholds_exit_0(self):
        before = self.server.stats()
        r = self.run_slo("-d", "2s", "--slo", "p(99)<500ms", "--slo", "p50>=4ms",
                         "--slo", "error_rate<1%", "--slo", "timeouts==0",
                         "--slo", "max<2s over 1s", self.server.url + "/delay/5")
        served = HailServer.stats_delta(before, self.server.stats())["requests"]
        self.assertEqual(r.code, 0, describe(r))
        slo = r.json["slo"]
        self.assertTrue(slo["ok"])
        self.assertEqual([c["expr"] for c in slo["checks"]],
                         ["p(99)<500ms", "p50>=4ms", "error_rate<1%", "timeouts==0",
                          "max<2s over 1s"])
        p50 = check(r.json, "p50>=4ms")
        self.assertEqual(p50["unit"], "ns")
        self.assertGreaterEqual(p50["value"], 4e6)
        self.assertIsNone(p50["first_breach_s"])
        # The rate threshold's denominator is what the server answered.
        self.assertEqual(check(r.json, "error_rate<1%")["value"], 0)
        self.assertGreater(served, 100)
        self.assertFalse(r.json["generator_health"]["limited_by_hail"], describe(r))

    def test_failing_threshold_exit_99_with_first_breach(self):
        r = self.run_slo("-d", "2s", "--slo", "p(99)<1ms", "--slo", "error_rate<1%",
                         self.server.url + "/delay/5")
        self.assertEqual(r.code, 99, describe(r))
        self.assertFalse(r.json["slo"]["ok"])
        failed = check(r.json, "p(99)<1ms")
        self.assertFalse(failed["ok"])
        self.assertGreater(failed["value"], 4e6)
        self.assertIsNotNone(failed["first_breach_s"])
        self.assertLessEqual(failed["first_breach_s"], 2.5)
        self.assertTrue(check(r.json, "error_rate<1%")["ok"])

    def test_text_table_and_junit(self):
        junit = os.path.join(self.dir, "slo.xml")
        r = run_hail(["-q", "-c", "2", "-d", "1s", "--slo", "p99<1ms", "--slo", "rps>1",
                      "--junit", junit, self.server.url + "/delay/5"], timeout=60)
        self.assertEqual(r.code, 99, describe(r))
        self.assertRegex(r.stdout, r"\n  Thresholds \(--slo\)\n  FAIL p99<1ms +\S+ms  first "
                                   r"breach at [0-9.]+s\n  ok   rps>1 +[0-9.]+ req/s\n  Verdict: "
                                   r"FAIL \(1 of 2 thresholds failed\)\n")
        suite = ET.parse(junit).getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "1")
        cases = {c.get("name"): c for c in suite.findall("testcase")}
        self.assertEqual(set(cases), {"p99<1ms", "rps>1", "generator health"})
        self.assertIsNotNone(cases["p99<1ms"].find("failure"))
        self.assertIsNone(cases["rps>1"].find("failure"))

    def test_missing_metric_fails_unless_optional(self):
        # A closed loop has no service-time distribution: a threshold on it cannot pass...
        r = self.run_slo("-d", "1s", "--slo", "service.p(99)<1s", self.server.url + "/delay/5")
        self.assertEqual(r.code, 99, describe(r))
        self.assertIsNone(check(r.json, "service.p(99)<1s")["value"])
        # ... unless written with "?".
        r = self.run_slo("-d", "1s", "--slo", "service.p(99)?<1s", self.server.url + "/delay/5")
        self.assertEqual(r.code, 0, describe(r))

    def test_slo_abort_stops_the_run_early(self):
        r = self.run_slo("-d", "20s", "--slo", "max<2ms", "--slo-abort",
                         self.server.url + "/delay/5")
        self.assertEqual(r.code, 99, describe(r))
        self.assertLess(r.seconds, 6, describe(r))
        self.assertTrue(r.json["slo"]["aborted"])
        self.assertIn("max<2ms", r.json["slo"]["abort_reason"])
        self.assertLess(r.json["duration_s"], 6)

    def test_ladder_steps_and_the_highest_passing_step(self):
        # One server thread answering /delay/5 for 1, 3 and 5 connections: latency stays about
        # 5 ms at every step; a threshold between them all passes, so the highest step passes.
        r = self.run_slo("--ladder", "1:2:5", "--step-duration", "1s", "--slo", "p(99)<400ms",
                         self.server.url + "/delay/5")
        self.assertEqual(r.code, 0, describe(r))
        steps = r.json["slo"]["steps"]
        self.assertEqual([s["step"] for s in steps], [1, 2, 3])
        self.assertTrue(all(s["ok"] for s in steps), steps)
        self.assertEqual(r.json["slo"]["highest_passing_step"], 3)

    def test_report_judges_a_saved_run_again(self):
        path = os.path.join(self.dir, "run.json")
        run = run_hail(["-q", "-c", "2", "-d", "1s", "--json", path, "--slo", "p(99)<1ms",
                        self.server.url + "/delay/5"], timeout=60)
        self.assertEqual(run.code, 99, describe(run))
        again = run_hail(["report", path])
        self.assertEqual(again.code, 0, describe(again))
        self.assertEqual(again.stdout, run.stdout)
        self.assertIn("Verdict: FAIL", again.stdout)

    def test_bad_expressions_are_usage_errors(self):
        for expr, needle in (("p(99)<10xs", "unknown unit"), ("p(101)<1ms", "p(101)"),
                             ("latency<1ms", ""), ("error_rate<", "")):
            r = run_hail(["--slo", expr, self.server.url + "/"])
            self.assertEqual(r.code, 2, describe(r))
            lines = r.stderr.splitlines()
            self.assertEqual(len(lines), 1, r.stderr)
            self.assertTrue(lines[0].startswith('hail: --slo "%s"' % expr), lines[0])
            self.assertIn(needle, lines[0])
        r = run_hail(["--slo-abort", self.server.url + "/"])
        self.assertEqual(r.code, 2, describe(r))
        self.assertIn("--slo-abort needs at least one --slo", r.stderr)


class FrontEndSloTest(ServerTestCase):
    """--slo, --slo-abort and --junit on hail wrk / ab / webbench: the tool's report unchanged,
    then the threshold table; exit 99 / 0 / 2 as on native runs."""

    def test_wrk(self):
        junit = os.path.join(self.dir, "wrk.xml")
        r = run_hail(["wrk", "-t1", "-c2", "-d1s", "--slo", "p(99)<1ms", "--slo=rps>1",
                      "--junit", junit, self.server.url + "/delay/5"], timeout=60)
        self.assertEqual(r.code, 99, describe(r))
        # wrk's report, then the table.
        self.assertRegex(r.stdout, r"Requests/sec: +[0-9.]+\nTransfer/sec: +\S+\n\n"
                                   r"  Thresholds \(--slo\)\n  FAIL p\(99\)<1ms ")
        self.assertIn("Verdict: FAIL (1 of 2 thresholds failed)", r.stdout)
        suite = ET.parse(junit).getroot().find("testsuite")
        self.assertEqual(suite.get("failures"), "1")
        passing = run_hail(["wrk", "-t1", "-c2", "-d1s", "--slo", "p(99)<1s",
                            self.server.url + "/delay/5"], timeout=60)
        self.assertEqual(passing.code, 0, describe(passing))
        self.assertIn("Verdict: PASS", passing.stdout)

    def test_ab(self):
        before = self.server.stats()
        junit = os.path.join(self.dir, "ab.xml")
        r = run_hail(["ab", "-q", "-k", "-n", "200", "-c", "2", "--slo", "p99<1ms",
                      "--slo=error_rate<1%", "--junit", junit, self.server.url + "/delay/5"],
                     timeout=60)
        self.assertEqual(r.code, 99, describe(r))
        served = HailServer.stats_delta(before, self.server.stats())["requests"]
        self.assertEqual(served, 200)  # the thresholds change nothing in what is sent
        self.assertIn("Percentage of the requests served within a certain time", r.stdout)
        self.assertIn("FAIL p99<1ms", r.stdout)
        self.assertRegex(r.stdout, r"  ok   error_rate<1% +0%\n")
        cases = {c.get("name") for c in ET.parse(junit).getroot().iter("testcase")}
        self.assertEqual(cases, {"p99<1ms", "error_rate<1%", "generator health"})
        # --slo-abort: max over its limit can never come back, so a 20 s ab -t run stops early.
        r = run_hail(["ab", "-q", "-t", "20", "-c", "2", "--slo", "max<2ms", "--slo-abort",
                      self.server.url + "/delay/5"], timeout=60)
        self.assertEqual(r.code, 99, describe(r))
        self.assertLess(r.seconds, 8, describe(r))
        self.assertIn("Stopped early by --slo-abort", r.stdout)

    def test_webbench(self):
        r = run_hail(["webbench", "-t", "1", "-c", "2", "--slo", "error_rate<1%",
                      "--slo", "rps>1", self.server.url + "/delay/5"], timeout=60)
        self.assertEqual(r.code, 0, describe(r))
        self.assertIn("Speed=", r.stdout)
        self.assertIn("Verdict: PASS (2 thresholds held)", r.stdout)

    def test_bad_expressions_exit_2_in_every_front_end(self):
        url = self.server.url + "/"
        for argv in (["wrk", "--slo", "p99<", url], ["ab", "--slo", "p99<", url],
                     ["webbench", "--slo", "p99<", url], ["ab", "--slo-abort", url],
                     ["wrk", "--junit", "x.xml", url]):
            r = run_hail(argv)
            self.assertEqual(r.code, 2, describe(r))
            self.assertTrue(r.stderr.startswith("hail: --"), r.stderr)
        # ab reads no option after the URL (APR does not permute): "--slo" there is a stray
        # argument, ab's usage error.
        r = run_hail(["ab", url, "--slo", "p99<1ms"])
        self.assertEqual(r.code, 22, describe(r))
        self.assertIn("wrong number of arguments", r.stderr)


if __name__ == "__main__":
    unittest.main()
