"""Saved results: `hail report` prints exactly what a run printed, `hail merge` combines runs
exactly (two runs at the same time against one `hail serve`, counted by the server; two runs one
after another), and bad files are refused with one line and exit status 2."""

import base64
import collections
import concurrent.futures
import json
import os
import re
import shutil
import struct
import tempfile
import time
import unittest
import zlib

from support import HailServer, describe, free_port, run_hail


class ResultFiles(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="hail-results-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def saved_run(self, name, args, expect_code=0):
        """Runs hail with --json into NAME; returns (the run, the file's path)."""
        path = self.path(name)
        run = run_hail(["-q", "--json", path] + list(args), timeout=60)
        self.assertEqual(run.code, expect_code, describe(run))
        self.assertTrue(os.path.getsize(path) > 0, describe(run))
        return run, path

    def check_report_reproduces(self, run, path):
        """hail report prints exactly the run's stdout, and --json writes the file again."""
        report = run_hail(["report", path])
        self.assertEqual(report.code, 0, describe(report))
        self.assertEqual(report.stdout, run.stdout)
        again = self.path("again.json")
        rewrite = run_hail(["report", path, "--json", again])
        self.assertEqual(rewrite.code, 0, describe(rewrite))
        with open(path, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read(), "hail report --json changed the document")
        as_json = run_hail(["report", path, "--json", "-"])
        with open(path) as f:
            self.assertEqual(as_json.stdout, f.read())


class ReportTest(ResultFiles):
    def test_plain_run(self):
        with HailServer() as srv:
            run, path = self.saved_run("plain.json", ["-c", "4", "-d", "1s", srv.url + "/bytes/100"])
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual(doc["schema"], "hail/2")
        self.assertTrue(doc["histograms"]["latency"]["hdr"].startswith("HISTF"))
        self.assertEqual(doc["histograms"]["latency"]["count"], doc["requests"]["completed"])
        self.assertEqual(len(doc["windows"]["intervals"]), len(doc["timeseries"]))
        self.check_report_reproduces(run, path)

    def test_rate_run(self):
        with HailServer() as srv:
            run, path = self.saved_run("rate.json", ["-R", "400", "-c", "4", "-d", "1s",
                                                     "--interval", "250ms", srv.url + "/bytes/10"])
        self.assertIn("corrected", run.stdout)
        self.check_report_reproduces(run, path)

    def test_ladder_run(self):
        with HailServer() as srv:
            run, path = self.saved_run("ladder.json", ["--ladder", "1:1:3", "--step-duration",
                                                       "300ms", srv.url + "/bytes/10"])
        self.assertIn("Ladder (connections)", run.stdout)
        self.check_report_reproduces(run, path)

    def test_url_mix_with_tags(self):
        mix = self.path("mix.txt")
        with open(mix, "w") as f:
            f.write("3 /bytes/5\n1 POST /status/404\n1 /delay/2\n")
        with HailServer() as srv:
            run, path = self.saved_run("mix.json", ["-c", "4", "-d", "1s", "--urls", mix, srv.url])
        self.assertIn("POST /status/404", run.stdout)
        self.check_report_reproduces(run, path)

    def test_errors_against_a_closed_port(self):
        run, path = self.saved_run("errors.json", ["-c", "2", "-d", "1s",
                                                   "http://127.0.0.1:%d/" % free_port()],
                                   expect_code=1)
        self.assertIn("Connection refused", run.stdout)
        self.check_report_reproduces(run, path)

    def test_tls(self):
        with HailServer(tls=True) as srv:
            run, path = self.saved_run("tls.json", ["-c", "4", "-d", "1s", srv.url + "/bytes/100"])
        self.assertIn("TLS: TLSv1.3", run.stdout)
        self.check_report_reproduces(run, path)


# --------------------------------------------------------------------------------------------
# HdrHistogram's "HISTF..." strings, decoded here independently of hail (compressed V2: a zlib
# stream in base64 around a 40-byte header and ZigZag LEB128 counts, runs of empty slots as
# negative numbers), to check the merge slot by slot.


def slot_counts(hist):
    """{slot index: count} of a hail/2 histogram object."""
    raw = base64.b64decode(hist["hdr"], validate=True)
    cookie, length = struct.unpack(">II", raw[:8])
    assert cookie == 0x1C849314 and length == len(raw) - 8, (hex(cookie), length)
    v2 = zlib.decompress(raw[8:])
    cookie, payload_length, offset, digits, lowest, highest, ratio = struct.unpack(
        ">IIiiqqd", v2[:40])
    assert (cookie, offset, digits, lowest, ratio) == (0x1C849313, 0, 3, 1, 1.0)
    payload = v2[40:40 + payload_length]
    counts, index, at = {}, 0, 0
    while at < len(payload):
        value, shift = 0, 0
        for i in range(9):
            byte = payload[at]
            at += 1
            if i == 8:
                value |= byte << 56
                break
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        value = (value >> 1) ^ -(value & 1)  # ZigZag
        if value < 0:
            index += -value
        else:
            if value:
                counts[index] = value
            index += 1
    assert sum(counts.values()) == hist["count"]
    return counts


def highest_equivalent(index):
    """The highest value of a slot (3 significant digits, lowest discernible value 1)."""
    bucket = (index >> 10) - 1
    sub = (index & 1023) + 1024
    if bucket < 0:
        bucket, sub = 0, sub - 1024
    return (sub << bucket) + (1 << bucket) - 1


def value_at_percentile(counts, minimum, maximum, percentile):
    """hail's rule: the value at rank ceil(p/100 * n), the highest value of its slot clamped to
    the exact extremes."""
    total = sum(counts.values())
    rank = max(1, -(-percentile * total // 100))
    if rank == 1:
        return minimum
    if rank >= total:
        return maximum
    seen = 0
    for index in sorted(counts):
        seen += counts[index]
        if seen >= rank:
            return min(max(highest_equivalent(index), minimum), maximum)
    return maximum


def one_line_refusal(test, run, *needles):
    test.assertEqual(run.code, 2, describe(run))
    test.assertEqual(run.stdout, "")
    lines = run.stderr.splitlines()
    test.assertEqual(len(lines), 1, run.stderr)
    for needle in needles:
        test.assertIn(needle, lines[0])


class MergeTest(ResultFiles):
    def test_two_runs_at_the_same_time_merge_exactly(self):
        """3000 requests at /delay/5 and 1000 at /delay/20, at the same time: the merge counts
        what the server counted, and its percentiles are those of all 4000 requests (p50 about
        5 ms, p90 about 20 ms; averaging the runs' percentiles would say 12.5 ms)."""
        fast, slow = self.path("fast.json"), self.path("slow.json")
        with HailServer(threads=2) as srv:
            before = srv.stats()
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                runs = list(pool.map(lambda a: run_hail(a, timeout=60), [
                    ["-q", "-t", "1", "-c", "15", "-n", "3000", "--json", fast,
                     srv.url + "/delay/5"],
                    ["-q", "-t", "1", "-c", "20", "-n", "1000", "--json", slow,
                     srv.url + "/delay/20"]]))
            served = HailServer.stats_delta(before, srv.stats())["requests"]
        for run in runs:
            self.assertEqual(run.code, 0, describe(run))
        out = self.path("merged.json")
        merge = run_hail(["merge", fast, slow, "--json", out])
        self.assertEqual(merge.code, 0, describe(merge))
        # The two runs targeted different URLs: one warning line, and the merge goes on.
        self.assertEqual(merge.stderr.splitlines(),
                         ["hail merge: warning: %s has URL %s/delay/20, %s %s/delay/5"
                          % (slow, srv.url, fast, srv.url)])
        with open(out) as f:
            merged = json.load(f)
        self.assertEqual(merged["requests"]["completed"], 4000)
        self.assertEqual(served, 4000)
        self.assertEqual(merged["status_codes"], {"200": 4000})
        # The merged histogram is, slot for slot, the two runs' histograms added up; its
        # percentiles are those of one histogram of all 4000 requests.
        inputs = []
        for path in (fast, slow):
            with open(path) as f:
                inputs.append(json.load(f))
        both = collections.Counter()
        for doc in inputs:
            both.update(slot_counts(doc["histograms"]["latency"]))
        lat = merged["histograms"]["latency"]
        self.assertEqual(slot_counts(lat), dict(both))
        self.assertEqual(lat["min_ns"], min(d["histograms"]["latency"]["min_ns"] for d in inputs))
        self.assertEqual(lat["max_ns"], max(d["histograms"]["latency"]["max_ns"] for d in inputs))
        p50, p90 = merged["latency_us"]["p50"], merged["latency_us"]["p90"]
        for p, got in ((50, p50), (90, p90)):
            self.assertEqual(round(got * 1000),
                             value_at_percentile(both, lat["min_ns"], lat["max_ns"], p), p)
        # p50 among the 5 ms requests, p90 among the 20 ms ones (about 5 and 20 ms on an idle
        # machine); the runs' medians averaged would be near 12.5 ms instead.
        self.assertTrue(5000 <= p50 < 20000, p50)
        self.assertGreaterEqual(p90, 20000)
        average = (inputs[0]["latency_us"]["p50"] + inputs[1]["latency_us"]["p50"]) / 2
        self.assertGreater(abs(p50 - average), 2000, (p50, average))
        self.assertLess(merged["merge"]["start_spread_ns"], 2e9)
        self.assertRegex(merge.stdout, r"\n  Note: merged 2 runs: start skew \S+, end skew \S+, "
                                       r"\S+ measured\n")
        self.assertIn("4000 requests test @ %s/delay/5" % srv.url, merge.stdout)
        # The merged file is a result like any other.
        report = run_hail(["report", out])
        self.assertEqual(report.code, 0, describe(report))
        self.assertEqual(report.stdout, merge.stdout)

    def test_two_runs_one_after_another(self):
        first, second = self.path("first.json"), self.path("second.json")
        with HailServer() as srv:
            a, _ = self.saved_run("first.json", ["-c", "2", "-d", "1s", "--interval", "200ms",
                                                 srv.url + "/bytes/10"])
            time.sleep(0.5)
            b, _ = self.saved_run("second.json", ["-c", "2", "-d", "1s", "--interval", "200ms",
                                                  srv.url + "/bytes/10"])
        merge = run_hail(["merge", first, second, "--json", "-"])
        self.assertEqual(merge.code, 0, describe(merge))
        self.assertEqual(merge.stderr, "")
        merged = json.loads(merge.stdout)
        docs = []
        for path in (first, second):
            with open(path) as f:
                docs.append(json.load(f))
        completed = sum(d["requests"]["completed"] for d in docs)
        self.assertEqual(merged["requests"]["completed"], completed)
        # Throughput over the union of the measured intervals: the half second between them is
        # not measured time.
        union = sum(d["duration_ns"] for d in docs)
        self.assertEqual(merged["duration_ns"], union)
        self.assertEqual(merged["merge"]["measured_union_ns"], union)
        self.assertAlmostEqual(merged["throughput"]["requests_per_s"], completed / (union / 1e9),
                               delta=0.01)
        spread = docs[1]["start_unix_ns"] - docs[0]["start_unix_ns"]
        self.assertEqual(merged["merge"]["start_spread_ns"], spread)
        self.assertGreater(spread, 1.4e9)
        self.assertEqual(merged["connections"], 2)  # one after the other: no overlap
        # Every window on the 200 ms grid from the first start, the measured ones adding up.
        windows = merged["windows"]["intervals"]
        self.assertTrue(all(w["start_ns"] % 200_000_000 == 0 for w in windows), windows)
        self.assertEqual(sum(w["completed"] for w in windows if not w["warmup"]), completed)
        self.assertEqual(len(merged["timeseries"]), len(windows))

    def test_hlog_from_saved_results(self):
        """hail report --hlog writes, byte for byte, the interval log the run wrote itself; hail
        merge --hlog writes one log whose windows hold both runs' responses."""
        with HailServer() as srv:
            logs = []
            for name in ("a", "b"):
                hlog = self.path(name + ".hlog")
                self.saved_run(name + ".json", ["-c", "2", "-d", "1s", "--interval", "250ms",
                                                "--hlog", hlog, srv.url + "/bytes/10"])
                logs.append(hlog)
        again = self.path("again.hlog")
        report = run_hail(["report", self.path("a.json"), "--hlog", again])
        self.assertEqual(report.code, 0, describe(report))
        with open(logs[0]) as f, open(again) as g:
            self.assertEqual(g.read(), f.read())
        merged = self.path("merged.hlog")
        merge = run_hail(["merge", self.path("a.json"), self.path("b.json"), "--hlog", merged])
        self.assertEqual(merge.code, 0, describe(merge))
        docs = []
        for name in ("a", "b"):
            with open(self.path(name + ".json")) as f:
                docs.append(json.load(f))
        with open(merged) as f:
            lines = [l for l in f.read().splitlines() if l.startswith("Tag=latency,")]
        measured = sum(1 for d in docs for w in d["windows"]["intervals"] if not w["warmup"])
        # Two runs one after another: their windows sit on one grid, none shares a cell.
        self.assertEqual(len(lines), measured)
        # --hlog needs a file; and a result without windows has nothing to log.
        one_line_refusal(self, run_hail(["merge", self.path("a.json"), "--hlog", "-"]),
                         "--hlog writes a file")

    def test_refusals(self):
        with HailServer() as srv:
            _, good = self.saved_run("good.json", ["-c", "1", "-d", "300ms", "--interval", "100ms",
                                                   srv.url + "/bytes/10"])
            _, other = self.saved_run("other.json", ["-c", "1", "-d", "300ms", "--interval",
                                                     "50ms", srv.url + "/bytes/10"])
        with open(good) as f:
            text = f.read()
        truncated = self.path("truncated.json")
        with open(truncated, "w") as f:
            f.write(text[: len(text) // 2])
        old = self.path("old.json")
        with open(old, "w") as f:
            f.write(text.replace('"schema": "hail/2"', '"schema": "hail/1"', 1))
        bad_count = self.path("bad_count.json")
        doc = json.loads(text)
        doc["counters"]["completed"] = -1
        with open(bad_count, "w") as f:
            json.dump(doc, f)
        missing = self.path("missing.json")
        for command in ("report", "merge"):
            prefix = "hail %s: " % command
            one_line_refusal(self, run_hail([command, missing]), prefix + "cannot read",
                             "No such file or directory")
            one_line_refusal(self, run_hail([command, truncated]),
                             prefix + truncated + ": not valid JSON: parse error at line")
            one_line_refusal(self, run_hail([command, old]),
                             prefix + old + ": schema: hail/1 has no histograms")
            one_line_refusal(self, run_hail([command, bad_count]),
                             prefix + bad_count + ": counters.completed: expected a whole "
                             "number of at least 0, got -1")
        one_line_refusal(self, run_hail(["merge", good, truncated]), truncated)
        one_line_refusal(self, run_hail(["merge", good, other]),
                         "hail merge: cannot merge time series of different intervals: %s has "
                         "50.00ms, %s 100.00ms" % (other, good))
        one_line_refusal(self, run_hail(["report"]), "hail report: missing RESULT.json")
        one_line_refusal(self, run_hail(["merge", "--bogus", good]),
                         "hail merge: unknown option --bogus for hail merge")
        self.assertTrue(re.search(r"Usage: hail merge ", run_hail(["merge", "--help"]).stdout))


if __name__ == "__main__":
    unittest.main()
