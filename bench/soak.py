#!/usr/bin/env python3
"""soak.py - a bounded soak: hail holds many keep-alive connections for a few minutes against
`hail serve`; its resident memory after the warm-up must stay flat (growth <= --max-growth, 5 %
by default) and every request must be accounted for (hail's attempted = the server's count,
completed + errors + in flight = attempted).

Standard library only; loopback only; each process pinned when two CPUs exist (server on the
last CPU, hail on CPU 0). Exit status 0 when both checks pass, 1 otherwise.

    python3 bench/soak.py                       # 1,000 connections, 180 s (30 s warm-up)
    python3 bench/soak.py --connections 2000 --duration 300 --hail build/release/hail
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def stats(url):
    with urllib.request.urlopen(url + "/stats", timeout=5) as r:
        return json.loads(r.read())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hail", default=str(REPO / "build" / "release" / "hail"))
    p.add_argument("--connections", type=int, default=1000)
    p.add_argument("--duration", type=int, default=180, help="seconds of load, warm-up included")
    p.add_argument("--warmup", type=int, default=30, help="seconds before the baseline RSS")
    p.add_argument("--path", default="/bytes/1024")
    p.add_argument("--max-growth", type=float, default=0.05)
    a = p.parse_args()
    if a.warmup >= a.duration:
        sys.exit("soak.py: --warmup must be shorter than --duration")
    ncpu = os.cpu_count() or 1
    pin = (lambda cpu: ["taskset", "-c", str(cpu)]) if ncpu >= 2 else (lambda cpu: [])

    server = subprocess.Popen(pin(ncpu - 1) + [a.hail, "serve", "--port", "0", "--threads", "1"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", server.stdout.readline())
        if not m:
            sys.exit("soak.py: hail serve did not start")
        url = m.group(1)
        before = stats(url)["requests"]
        # The text report, not --json: with --json hail also keeps the --interval time series,
        # whose memory grows with the run by design (a few KiB per second), which is not a leak.
        cmd = pin(0) + [a.hail, "-c", str(a.connections), "-t", "1", "-d", "%ds" % a.duration,
                        "-q", url + a.path]
        start = time.monotonic()
        hail = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        samples = []
        while hail.poll() is None:
            t = time.monotonic() - start
            try:
                samples.append((t, rss_kib(hail.pid)))
            except OSError:
                break
            time.sleep(1)
        text = hail.stdout.read()
        code = hail.wait()
        served = stats(url)["requests"] - before
    finally:
        server.terminate()
        server.wait(timeout=10)

    steady = [kib for t, kib in samples if a.warmup <= t <= a.duration - 1]
    baseline = steady[0] if steady else 0
    peak = max(steady) if steady else 0
    growth = (peak - baseline) / baseline if baseline else 0.0
    m = re.search(r"Accounting\s+(\d+) attempted = (\d+) completed \+ (\d+) failed \+ (\d+) in flight",
                  text)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", text)
    if not m or not rate:
        sys.exit("soak.py: no report from hail (exit %d):\n%s" % (code, text))
    req = dict(zip(("attempted", "completed", "failed", "in_flight"), map(int, m.groups())))
    errors = req["failed"]
    accounted = req["attempted"] == req["completed"] + errors + req["in_flight"]
    server_ok = served == req["attempted"]
    rss_ok = bool(steady) and growth <= a.max_growth
    print("command: %s" % " ".join(cmd))
    print("exit %d; %d connections for %d s; %d requests completed (%.0f/s)" % (
        code, a.connections, a.duration, req["completed"], float(rate.group(1))))
    print("RSS after %d s warm-up: %d KiB; peak afterwards %d KiB; growth %.2f %% (limit %.0f %%): %s"
          % (a.warmup, baseline, peak, growth * 100, a.max_growth * 100, "ok" if rss_ok else "FAIL"))
    print("accounting: attempted %d = completed %d + errors %d + in flight %d: %s; server counted "
          "%d: %s" % (req["attempted"], req["completed"], errors, req["in_flight"],
                      "ok" if accounted else "FAIL", served, "ok" if server_ok else "FAIL"))
    sys.exit(0 if code == 0 and rss_ok and accounted and server_ok else 1)


if __name__ == "__main__":
    main()
