#!/usr/bin/env python3
"""h2_soak.py - a bounded soak of hail's HTTP/2 path with stream and connection churn: hail --h2
with many streams per connection against `hail serve`, which ends every connection with GOAWAY
after --max-requests streams (streams above its last stream id are refused and sent again), while
a request mix keeps streams of every fate in flight: small and large bodies, error statuses, and
slow responses past hail's --timeout (their streams are reset). hail's resident memory after the
warm-up must stay flat (growth <= --max-growth, 5 % by default), the accounting must hold
(attempted = completed + errors + in flight + retried), and the server must have seen no more
requests than hail attempted and at least the ones it completed.

Standard library only; loopback only; each process pinned when two CPUs exist (server on the
last CPU, hail on CPU 0). Exit status 0 when every check passes, 1 otherwise.

    python3 bench/h2_soak.py                     # 20 s (5 s warm-up): a quick check
    python3 bench/h2_soak.py --duration 600 --warmup 60 --streams 50 --connections 100
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# The request mix (hail --urls): weight, path. /delay/1500 outlives --timeout 1s: a stream reset.
MIX = [(60, "/bytes/512"), (20, "/bytes/65536"), (10, "/status/404"), (5, "/status/503"),
       (4, "/delay/20"), (1, "/delay/1500")]


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
    p.add_argument("--connections", type=int, default=20)
    p.add_argument("--streams", type=int, default=20, help="hail --streams")
    p.add_argument("--max-requests", type=int, default=500,
                   help="hail serve --h2-max-requests: streams per connection before GOAWAY")
    p.add_argument("--duration", type=int, default=20, help="seconds of load, warm-up included")
    p.add_argument("--warmup", type=int, default=5, help="seconds before the baseline RSS")
    p.add_argument("--max-growth", type=float, default=0.05)
    a = p.parse_args()
    if a.warmup >= a.duration:
        sys.exit("h2_soak.py: --warmup must be shorter than --duration")
    ncpu = os.cpu_count() or 1
    pin = (lambda cpu: ["taskset", "-c", str(cpu)]) if ncpu >= 2 else (lambda cpu: [])

    server = subprocess.Popen(pin(ncpu - 1) + [a.hail, "serve", "--port", "0", "--threads", "1",
                                               "--h2-max-requests", str(a.max_requests)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    tmp = tempfile.TemporaryDirectory(prefix="hail-h2-soak-")
    try:
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", server.stdout.readline())
        if not m:
            sys.exit("h2_soak.py: hail serve did not start")
        url = m.group(1)
        mix = os.path.join(tmp.name, "mix.txt")
        with open(mix, "w") as f:
            f.writelines("%d %s\n" % (w, path) for w, path in MIX)
        before = stats(url)
        # The text report, not --json: with --json hail also keeps the --interval time series,
        # whose memory grows with the run by design, which is not a leak.
        cmd = pin(0) + [a.hail, "--h2", "-c", str(a.connections), "--streams", str(a.streams),
                        "-t", "1", "-d", "%ds" % a.duration, "--timeout", "1s", "--urls", mix,
                        "-q", url + "/"]
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
        after = stats(url)
    finally:
        server.terminate()
        server.wait(timeout=10)
        tmp.cleanup()

    served = after["requests"] - before["requests"]
    connections = after["h2_connections"] - before["h2_connections"]
    steady = [kib for t, kib in samples if a.warmup <= t <= a.duration - 1]
    baseline = steady[0] if steady else 0
    peak = max(steady) if steady else 0
    growth = (peak - baseline) / baseline if baseline else 0.0
    m = re.search(r"Accounting\s+(\d+) attempted = (\d+) completed \+ (\d+) failed \+ (\d+) in "
                  r"flight(?: \+ (\d+) retried)?", text)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", text)
    if not m or not rate:
        sys.exit("h2_soak.py: no report from hail (exit %d):\n%s" % (code, text))
    attempted, completed, failed, in_flight = map(int, m.groups()[:4])
    retried = int(m.group(5) or 0)
    accounted = attempted == completed + failed + in_flight + retried
    server_ok = completed <= served <= attempted
    rss_ok = bool(steady) and growth <= a.max_growth
    churn_ok = connections > a.connections and retried + failed > 0
    print("command: %s" % " ".join(cmd))
    print("exit %d; %d s, %d connections x %d streams; %d requests completed (%.0f/s); %d HTTP/2 "
          "connections opened by GOAWAY churn (every %d streams)" % (
              code, a.duration, a.connections, a.streams, completed, float(rate.group(1)),
              connections, a.max_requests))
    print("RSS after %d s warm-up: %d KiB; peak afterwards %d KiB; growth %.2f %% (limit %.0f %%): %s"
          % (a.warmup, baseline, peak, growth * 100, a.max_growth * 100, "ok" if rss_ok else "FAIL"))
    print("accounting: attempted %d = completed %d + errors %d + in flight %d + retried %d: %s; "
          "server counted %d (between completed and attempted): %s" % (
              attempted, completed, failed, in_flight, retried, "ok" if accounted else "FAIL",
              served, "ok" if server_ok else "FAIL"))
    print("churn (connections replaced, streams refused or reset): %s" % (
        "ok" if churn_ok else "FAIL"))
    errors = re.search(r"  Errors\s+(connect [^\n]*\n[^\n]*)", text)
    if errors:
        print("errors: %s" % " ".join(errors.group(1).split()))
    sys.exit(0 if code == 0 and rss_ok and accounted and server_ok and churn_ok else 1)


if __name__ == "__main__":
    main()
