"""hail's histograms read by other HdrHistogram implementations, and theirs by hail, count for count:
- "HISTF..." strings at the layout's edges, encoded by hail and decoded by hdr-histogram-js, and
  the other way round;
- the --hlog interval logs of real runs (closed loop with a warm-up; open loop with its service
  and lag tags) read by hdr-histogram-js's HistogramLogReader and by HdrHistogram's own Java
  HistogramLogProcessor, whose percentiles must be hail's.
The oracles are optional on a bare machine: each test skips, saying what is missing, when node and
hdr-histogram-js (./run test installs it) or Java and libhdrhistogram-java are absent."""

import base64
import math
import os
import random
import shutil
import struct
import tempfile
import unittest
import zlib

from hdr_oracles import (expected_slots, highest_equivalent, histf_tool, java_missing, js_missing,
                         js_oracle, log_processor, parse_histograms, slot_shift, spec_line)
from support import HailServer, check_accounting, describe, run_hail


def lognormal_pairs(n, seed):
    rng = random.Random(seed)
    counts = {}
    for _ in range(n):
        v = int(rng.lognormvariate(13.8, 1.5))  # around 1 ms, decades wide
        counts[v] = counts.get(v, 0) + 1
    return sorted(counts.items())


# Histograms at the layout's edges, as (value ns, count) pairs. Counts stay below 2^52: JavaScript
# holds them in doubles.
EDGE_CASES = {
    "empty": [],
    "zero": [(0, 1)],
    "one": [(1, 1)],
    "bucket_edge": [(2047, 1), (2048, 1)],
    "layout_edges": [(0, 1), (1, 1), (2047, 3), (2048, 4), (2 ** 42, 5)],
    "huge_counts": [(5, 2 ** 32 + 1), (1000, 2 ** 50), (123_456_789, 10 ** 12)],
    "long_zero_run": [(1, 7), (2 ** 41, 1)],
    "zero_and_top": [(0, 2), (2 ** 42, 3)],
    "dense": [(v, v % 7 + 1) for v in range(2048)] + [(1_000_000 + 997 * i, 1)
                                                       for i in range(2000)],
    "lognormal": lognormal_pairs(20_000, 7),
}
INT32_MAX = 2 ** 31 - 1


def normalize_v2_header(text):
    """A compressed "HISTF..." string with its V2 header's normalizing index offset set to 0 and
    its integer-to-double ratio to 1.0, the rest (cookie, layout, counts payload) untouched."""
    raw = base64.b64decode(text)
    cookie, length = struct.unpack(">II", raw[:8])
    v2 = bytearray(zlib.decompress(raw[8:8 + length]))
    v2[8:12] = struct.pack(">i", 0)
    v2[32:40] = struct.pack(">d", 1.0)
    packed = zlib.compress(bytes(v2))
    return base64.b64encode(struct.pack(">II", cookie, len(packed)) + packed).decode()


def skip_unless(missing):
    reason = missing()
    if reason:
        raise unittest.SkipTest(reason)


class HistfStringsTest(unittest.TestCase):
    """Single "HISTF..." strings: hail's in hdr-histogram-js, and the package's in hail."""

    def setUp(self):
        skip_unless(js_missing)

    def check_decoded(self, decoded, names, what):
        self.assertEqual(len(decoded), len(names), what)
        for name, got in zip(names, decoded):
            want = expected_slots(EDGE_CASES[name])
            if got[0] == "error":
                self.fail("%s, %s: refused: %s" % (what, name, got[1]))
            self.assertEqual(got[0], sum(c for _, c in want), "%s, %s: total" % (what, name))
            self.assertEqual(got[1], want, "%s, %s: slots" % (what, name))

    def test_hail_strings_decode_in_js(self):
        names = list(EDGE_CASES)
        strings = histf_tool("encode", [spec_line(EDGE_CASES[n]) for n in names]).split()
        self.assertEqual(len(strings), len(names))
        for s in strings:
            self.assertTrue(s.startswith("HISTF"), s)
        self.check_decoded(parse_histograms(js_oracle("decode", strings)), names,
                           "hail's string decoded by hdr-histogram-js")
        self.check_decoded(parse_histograms(histf_tool("decode", strings)), names,
                           "hail's string decoded by hail")

    def js_strings(self, layout):
        names = [n for n in EDGE_CASES
                 if layout != "default" or all(c <= INT32_MAX for _, c in EDGE_CASES[n])]
        strings = js_oracle("encode", [spec_line(EDGE_CASES[n]) for n in names], layout).split()
        self.assertEqual(len(strings), len(names))
        # The oracle agrees with itself before hail is asked.
        self.check_decoded(parse_histograms(js_oracle("decode", strings)), names,
                           "hdr-histogram-js's %s string decoded by itself" % layout)
        return names, strings

    def test_js_strings_are_sound(self):
        for layout in ("hail", "packed", "default"):
            with self.subTest(layout=layout):
                self.js_strings(layout)

    # hdr-histogram-js 3.0.1 writes a normalizing index offset of 1 and the integer-to-double
    # ratio as the integer 1 in its V2 header; HdrHistogram's Java decoder and hail's decode_v2
    # ignore both (for an integer histogram the offset only rotates storage, and the ratio is
    # unused).
    def check_js_layout_in_hail(self, layout):
        names, strings = self.js_strings(layout)
        self.check_decoded(parse_histograms(histf_tool("decode", strings)), names,
                           "hdr-histogram-js's %s string decoded by hail" % layout)

    def test_js_payloads_decode_in_hail_with_the_header_normalized(self):
        """With only those two header fields set as Java writes them (offset 0, ratio 1.0), hail
        decodes the package's strings count for count: its counts payload (varints, zero runs)
        and compression are read as they are."""
        for layout in ("hail", "packed", "default"):
            with self.subTest(layout=layout):
                names, strings = self.js_strings(layout)
                fixed = [normalize_v2_header(s) for s in strings]
                self.check_decoded(parse_histograms(histf_tool("decode", fixed)), names,
                                   "hdr-histogram-js's %s string (header normalized) decoded by "
                                   "hail" % layout)

    def test_js_strings_decode_in_hail_hail_layout(self):
        self.check_js_layout_in_hail("hail")

    def test_js_strings_decode_in_hail_packed_counts(self):
        self.check_js_layout_in_hail("packed")

    def test_js_strings_decode_in_hail_default_layout(self):
        self.check_js_layout_in_hail("default")


def us_to_ns(us):
    return round(us * 1000)


class HlogRun:
    """One hail run with --hlog and --json -: the report, the log's text and path, and the log's
    interval lines split into fields."""

    def __init__(self, run, path):
        self.run = run
        self.report = run.json
        self.path = path
        with open(path) as f:
            self.text = f.read()
        self.lines = self.text.splitlines()
        self.intervals = [l.split(",") for l in self.lines
                          if not l.startswith("#") and not l.startswith('"')]
        self.measured = [w for w in self.report["timeseries"] if not w["warmup"]]

    def lines_of(self, tag):
        return [f for f in self.intervals if f[0] == "Tag=" + tag]


class HlogFilesTest(unittest.TestCase):
    """Real runs against `hail serve`, their --hlog files read by the oracles."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hail_hlog_")
        cls.runs = {}
        with HailServer() as srv:
            url = srv.url + "/bytes/256"
            # Closed loop with a warm-up and 500 ms windows; open loop at the default interval,
            # which --hlog implies.
            for name, args in (("closed", ["-c", "4", "-t", "1", "-d", "2s", "--warmup", "1s",
                                           "--interval", "500ms"]),
                               ("rate", ["-R", "2000", "-c", "8", "-t", "2", "-d", "3s"])):
                path = os.path.join(cls.tmp, name + ".hlog")
                r = run_hail(args + ["-q", "--hlog", path, "--json", "-", url], timeout=60)
                if r.code != 0:
                    raise AssertionError("hail --hlog run failed: %s" % describe(r))
                check_accounting(r.json)
                cls.runs[name] = HlogRun(r, path)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def tags_of(self, name):
        return ("latency", "service", "lag") if name == "rate" else ("latency",)

    def test_log_layout(self):
        for name, run in self.runs.items():
            with self.subTest(run=name):
                start = run.report["start_unix_s"]
                self.assertTrue(run.lines[0].startswith("#[Logged with hail "), run.lines[0])
                self.assertEqual(run.lines[1], "#[Histogram log format version 1.3]")
                self.assertRegex(run.lines[2], r"^#\[StartTime: \d+\.\d{3} \(seconds since "
                                               r"epoch\), \w{3} \w{3} \d\d \d\d:\d\d:\d\d UTC "
                                               r"\d{4}\]$")
                start_field = float(run.lines[2].split()[1])
                self.assertAlmostEqual(start_field, start, delta=0.0015)
                self.assertEqual(run.lines[3],
                                 "#[BaseTime: %s (seconds since epoch)]" % run.lines[2].split()[1])
                self.assertEqual(run.lines[4], '"StartTimestamp","Interval_Length",'
                                               '"Interval_Max","Interval_Compressed_Histogram"')
                tags = self.tags_of(name)
                # Measured windows only, each with one line per tag, in order.
                self.assertEqual(len(run.intervals), len(tags) * len(run.measured))
                self.assertGreaterEqual(len(run.measured), 2)
                for i, fields in enumerate(run.intervals):
                    w = run.measured[i // len(tags)]
                    self.assertEqual(fields[0], "Tag=" + tags[i % len(tags)])
                    self.assertEqual(len(fields), 5, fields)
                    self.assertAlmostEqual(float(fields[1]), w["t_start_s"], delta=0.0011)
                    self.assertAlmostEqual(float(fields[2]), w["t_end_s"] - w["t_start_s"],
                                           delta=0.0021)
                    self.assertTrue(fields[4].startswith("HISTF"))
                if name == "closed":
                    self.assertEqual(run.intervals[0][1], "1.000")  # after the 1 s warm-up
                    self.assertEqual(run.report["interval_s"], 0.5)
                else:
                    self.assertEqual(run.report["interval_s"], 1.0)  # implied by --hlog

    def test_lines_hold_the_windows_histograms(self):
        """hail's own decoding of every line: counts per window and Interval_Max."""
        for name, run in self.runs.items():
            with self.subTest(run=name):
                lines = run.lines_of("latency")
                decoded = parse_histograms(histf_tool("decode", [f[4] for f in lines]))
                for fields, (total, _), w in zip(lines, decoded, run.measured):
                    self.assertEqual(total, w["completed"], fields[:4])
                    want_max = (highest_equivalent(us_to_ns(w["latency_max_us"])) / 1e6
                                if w["completed"] else 0.0)
                    self.assertEqual(fields[3], "%.3f" % want_max)
                self.assertEqual(sum(t for t, _ in decoded), run.report["latency_us"]["count"])

    def test_java_log_processor_reads_every_line(self):
        skip_unless(java_missing)
        keys = {"latency": "latency_us", "service": "service_time_us", "lag": "lag_us"}
        for name, run in self.runs.items():
            for tag in self.tags_of(name):
                with self.subTest(run=name, tag=tag):
                    intervals, distribution, stderr = log_processor(run.path, tag)
                    self.assertEqual(stderr.strip(), "", "HistogramLogProcessor complained")
                    self.assertEqual(len(intervals), len(run.measured))
                    for row, w in zip(intervals, run.measured):
                        self.assertEqual(row["Int_Count"], w["completed"])
                        self.assertAlmostEqual(row["Timestamp"], w["t_end_s"], delta=0.0025)
                        if tag == "latency" and w["completed"]:
                            # getValueAtPercentile and getMaxValue: the slot's highest value of
                            # what hail reports (hail clamps to the exact extremes).
                            for col, key in (("Int_50%", "latency_p50_us"),
                                             ("Int_90%", "latency_p90_us"),
                                             ("Int_Max", "latency_max_us")):
                                self.assertEqual(round(row[col]),
                                                 highest_equivalent(us_to_ns(w[key])),
                                                 "%s at t=%s" % (col, w["t_end_s"]))
                    self.check_distribution(distribution, run.report[keys[tag]])

    def check_distribution(self, rows, dist):
        """HistogramLogProcessor's overall percentile rows against hail's distribution."""
        count = dist["count"]
        self.assertEqual(rows[-1][2], count, "total count")
        self.assertEqual(rows[-1][0], highest_equivalent(us_to_ns(dist["max"])), "max")
        for p in ("p50", "p90", "p99", "p99.9"):
            percentile = float(p[1:])
            hail_ns = us_to_ns(dist[p])
            rank = max(1, math.ceil(percentile * count / 100 - 1e-9))
            # Exact: a row whose cumulative count reaches hail's rank lies at or above hail's
            # value, and a row short of it lies below.
            for value, _, total in rows:
                if total >= rank:
                    self.assertLessEqual(hail_ns, value, "%s vs row %s" % (p, value))
                else:
                    self.assertGreater(hail_ns, value, "%s vs row %s" % (p, value))
            # The row at this percentile's tick: hail's value within a slot of it.
            tick = [v for v, level, _ in rows if abs(level - percentile / 100) < 1e-9]
            if tick:
                self.assertLessEqual(abs(tick[0] - hail_ns), 1 << slot_shift(hail_ns),
                                     "%s: Java %d, hail %d" % (p, tick[0], hail_ns))

    def test_js_log_reader_count_for_count(self):
        skip_unless(js_missing)
        for name, run in self.runs.items():
            with self.subTest(run=name):
                js = js_oracle("log", arg=run.path).splitlines()
                hail = parse_histograms(histf_tool("decode", [f[4] for f in run.intervals]))
                start_ms = float(run.lines[2].split()[1]) * 1000
                got = []
                for line in js:
                    if line.startswith("interval "):
                        _, tag, begin, end, total = line.split()
                        got.append([tag, int(begin), int(end), int(total), []])
                    else:
                        value, count = line.split()
                        got[-1][4].append((int(value), int(count)))
                self.assertEqual(len(got), len(run.intervals))
                for fields, (total, slots), (tag, begin, end, js_total, js_slots) in zip(
                        run.intervals, hail, got):
                    self.assertEqual("Tag=" + tag, fields[0])
                    self.assertAlmostEqual(begin, start_ms + float(fields[1]) * 1000, delta=1.5)
                    self.assertAlmostEqual(end - begin, float(fields[2]) * 1000, delta=1.5)
                    self.assertEqual(js_total, total, fields[:4])
                    self.assertEqual(js_slots, slots, fields[:4])

    def test_real_strings_decode_in_js(self):
        skip_unless(js_missing)
        for name, run in self.runs.items():
            with self.subTest(run=name):
                strings = [f[4] for f in run.intervals]
                self.assertEqual(parse_histograms(js_oracle("decode", strings)),
                                 parse_histograms(histf_tool("decode", strings)))


if __name__ == "__main__":
    unittest.main()
