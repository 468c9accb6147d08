#!/usr/bin/env python3
"""What --monitor costs the client: hail's CPU time per request (user + system of the whole hail
process, every thread, from getrusage of the child: sampling runs on the supervising main thread,
so it is counted) with and without `--monitor pid:SERVER`, at 1 s and 100 ms windows, against
`hail serve` on 127.0.0.1. Variants alternate within each repetition so that drift of the machine
spreads over all of them. Prints one line per run and a median table (markdown).

    python3 bench/monitor_overhead.py [--hail build/release/hail] [--reps 5] [--duration 5]
"""

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hail", default=os.path.join(HERE, "..", "build", "release", "hail"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--duration", type=int, default=5)
    ap.add_argument("--connections", type=int, default=20)
    args = ap.parse_args()
    pin = ["taskset", "-c"] if os.path.exists("/usr/bin/taskset") and os.cpu_count() >= 2 else None
    server_cmd = [args.hail, "serve", "--port", "0"]
    server = subprocess.Popen((pin + ["1"] if pin else []) + server_cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        port = int(re.search(r":(\d+)", server.stdout.readline()).group(1))
        variants = [("1s", None), ("1s", "pid"), ("100ms", None), ("100ms", "pid")]
        results = {v: [] for v in variants}
        for rep in range(args.reps):
            for interval, monitor in variants:
                cmd = (pin + ["0"] if pin else []) + [
                    args.hail, "-q", "-t", "1", "-c", str(args.connections), "-d",
                    "%ds" % args.duration, "--interval", interval, "--json", "-",
                    "http://127.0.0.1:%d/" % port]
                if monitor:
                    cmd[-1:-1] = ["--monitor", "pid:%d" % server.pid]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                completed = json.loads(out)["requests"]["completed"]
                us_per_req = cpu_s / completed * 1e6
                results[(interval, monitor)].append((us_per_req, completed / args.duration))
                print("rep %d interval %-5s monitor %-4s: %.3f us/req of client CPU, %.0f req/s"
                      % (rep, interval, monitor or "-", us_per_req, completed / args.duration),
                      flush=True)
        print()
        print("| interval | --monitor | client CPU µs/req, median (range) | req/s, median |")
        print("|---|---|---|---|")
        for interval, monitor in variants:
            cpu = [r[0] for r in results[(interval, monitor)]]
            rps = [r[1] for r in results[(interval, monitor)]]
            print("| %s | %s | %.3f (%.3f-%.3f) | %.0f |" % (
                interval, "pid:SERVER" if monitor else "none", statistics.median(cpu), min(cpu),
                max(cpu), statistics.median(rps)))
    finally:
        server.terminate()
        server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
