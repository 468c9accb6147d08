#!/usr/bin/env python3
"""compare_stats.py - false-alarm and detection rates of `hail compare` against `hail serve`.

Each trial records three short open-loop runs against one `hail serve` on loopback, in the order
A (/delay/BASE), B (/delay/SLOW), A' (/delay/BASE), and compares
  * A with A'  (identical setups: any `improved`/`regressed` is a false alarm), and
  * A with B   (the slower server, with --force since the URLs differ: `regressed` is a detection),
by the single-run block bootstrap. Then the runs of consecutive trials are grouped 5 against 5
for repeated-run comparisons (Mann-Whitney): A-group against A'-group and A-group against
B-group. Prints, per metric, how often each verdict came out, as a markdown table.
Standard library only.  Run `python3 bench/compare_stats.py --help`.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def hail_run(hail, args, timeout=120):
    proc = subprocess.run([hail] + args, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=timeout)
    return proc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hail", default="build/release/hail")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--rate", default="200")
    ap.add_argument("--connections", default="8")
    ap.add_argument("--duration", default="2s")
    ap.add_argument("--interval", default="100ms")
    ap.add_argument("--base-delay", default="10")
    ap.add_argument("--slow-delay", default="11")
    ap.add_argument("--group", type=int, default=5, help="runs a side in repeated comparisons")
    args = ap.parse_args()

    workdir = tempfile.mkdtemp(prefix="hail-compare-stats-")
    server = subprocess.Popen([args.hail, "serve", "--host", "127.0.0.1", "--port", "0",
                               "--threads", "2"], stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    line = server.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not m:
        sys.exit("hail serve said %r" % line)
    url = "http://127.0.0.1:%s/delay/" % m.group(1)
    tallies = collections.defaultdict(collections.Counter)  # (kind, metric) -> verdicts
    runs = {"A": [], "B": [], "A2": []}
    started = time.monotonic()
    try:
        for trial in range(args.trials):
            paths = {}
            for name, delay in (("A", args.base_delay), ("B", args.slow_delay),
                                ("A2", args.base_delay)):
                path = os.path.join(workdir, "%s-%d.json" % (name, trial))
                proc = hail_run(args.hail, ["-q", "-R", args.rate, "-c", args.connections, "-d",
                                            args.duration, "--interval", args.interval, "--json",
                                            path, url + delay])
                if proc.returncode != 0:
                    sys.exit("run failed: %s" % proc.stderr)
                paths[name] = path
                runs[name].append(path)
            for kind, other, extra in (("single: identical", "A2", []),
                                       ("single: 10% slower", "B", ["--force"])):
                proc = hail_run(args.hail, ["compare", "--json", "-"] + extra +
                                [paths["A"], paths[other]])
                if proc.returncode not in (0, 3):
                    sys.exit("compare failed: %s" % proc.stderr)
                for metric in json.loads(proc.stdout)["comparison"]["metrics"]:
                    tallies[(kind, metric["name"])][metric["verdict"]] += 1
            print("trial %d done (%.0f s)" % (trial + 1, time.monotonic() - started),
                  file=sys.stderr)
        g = args.group
        for start in range(0, len(runs["A"]) - g + 1, g):
            for kind, other, extra in (("repeated %dv%d: identical" % (g, g), "A2", []),
                                       ("repeated %dv%d: 10%% slower" % (g, g), "B",
                                        ["--force"])):
                proc = hail_run(args.hail, ["compare", "--json", "-"] + extra + ["--base"] +
                                runs["A"][start:start + g] + ["--candidate"] +
                                runs[other][start:start + g])
                if proc.returncode not in (0, 3):
                    sys.exit("compare failed: %s" % proc.stderr)
                for metric in json.loads(proc.stdout)["comparison"]["metrics"]:
                    tallies[(kind, metric["name"])][metric["verdict"]] += 1
    finally:
        server.terminate()
        server.wait(timeout=10)

    print("| comparison | metric | comparisons | same | inconclusive | improved | regressed |")
    print("|---|---|---|---|---|---|---|")
    for (kind, metric), c in tallies.items():
        total = sum(c.values())
        print("| %s | %s | %d | %d | %d | %d | %d |" % (kind, metric, total, c["same"],
                                                       c["inconclusive"], c["improved"],
                                                       c["regressed"]))


if __name__ == "__main__":
    main()
