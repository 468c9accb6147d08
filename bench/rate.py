#!/usr/bin/env python3
"""rate.py - the highest request rate a load generator sustains on one thread (open loop, -R).

For each tool (hail -R, h2load --rps, and wrk2 -R when --wrk2 PATH is given) it searches the
highest total rate R that the tool, with one thread pinned to one CPU, delivers to a private nginx
(one worker pinned to the other CPU) within 1 %: the requests nginx counted in a steady window of
the run, divided by the window's length, must be >= 0.99 * R, and the tool must report no error.
Search: a geometric ramp from --start (x --step while the tool keeps up), then bisection until
the highest sustained and the lowest failed rate are within --resolution.

Then hail runs at 50 % of its own highest rate and the script reports its scheduler lag (planned
-> actual send) p99 and max, its corrected latency p50/p99 and its service-time p99; wrk2 runs at
the same rate and its corrected latency p50/p99 are shown beside them.

Standard library only; reuses nginx, pinning, process and quiet-machine helpers from compare.py
in the same directory.  See bench/README.md ("bench/rate.py").  Run `python3 bench/rate.py -h`.
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (bench/compare.py: Nginx, Harness, /proc helpers)

KNOWN_TOOLS = ("hail", "h2load", "wrk2")
WRK2_STAGGER_S = 0.005  # wrk2 connects connection i of a thread i * 5 ms after the thread starts
WRK2_STALL_S = 1.0  # ... or all of them ~1 s late: its event loop may sleep ~1 s before the first connect
WRK2_CALIBRATE_S = 10.0  # wrk2 resets its latency histogram 10 s + 5 ms * connections into the run

PROBE_FIELDS = [
    "rep", "tool", "phase", "target", "attempt", "exit", "wall_s", "window_s", "srv_rps", "ratio",
    "srv_rps_whole", "ratio_whole", "srv_requests", "srv_accepts", "tool_rps", "tool_errors", "ok", "client_cpu_pct",
    "nginx_cpu_pct", "foreign_pct", "hail_backlog", "lag_p99_us", "lag_max_us", "lat_p50_us",
    "lat_p99_us", "lat_max_us", "service_p99_us", "kept", "command",
]


def log(msg):
    compare.log(msg)


def die(msg, code=2):
    log("rate.py: " + msg)
    sys.exit(code)


# ----------------------------------------------------------------------------------------------
# tool command lines and what the tools report


def effective_rate(tool, rate, conns):
    """The total rate the tool is really asked for. h2load's --rps is per client and an integer."""
    rate = max(1, int(round(rate)))
    if tool == "h2load":
        return conns * max(1, int(round(rate / conns)))
    return rate


def planned_seconds(tool, dur, conns):
    """How long the tool's plan runs at full rate, for the whole-run count: hail (-d) and h2load
    (-D, main duration) plan R x D requests; wrk2 starts connection i's schedule i x 5 ms late and
    stops all of them at D, so it plans R x (D - (C - 1) x 2.5 ms)."""
    if tool == "wrk2":
        return dur - (conns - 1) * WRK2_STAGGER_S / 2
    return dur


def tool_command(tool, rate, conns, dur, url, a, json_path=None, warmup=0):
    """argv (not yet pinned) for one open-loop run of `dur` seconds at total `rate` req/s."""
    if tool == "hail":
        argv = [a.hail, "-t", "1", "-c", str(conns), "-R", str(rate), "-d", "%gs" % dur]
        if warmup:
            argv += ["--warmup", "%gs" % warmup]
        return argv + ["--json", str(json_path), "-q", url]
    if tool == "h2load":
        return ["h2load", "--h1", "-t", "1", "-c", str(conns), "--rps", str(rate // conns), "-D", "%g" % dur, url]
    if tool == "wrk2":
        return [a.wrk2, "-t1", "-c%d" % conns, "-d%gs" % dur, "-R%d" % rate, "-L", url]
    raise ValueError(tool)


def time_to_us(value, unit):
    """wrk2's format_time_us units -> microseconds."""
    return float(value) * {"us": 1, "ms": 1e3, "s": 1e6, "m": 60e6, "h": 3600e6}[unit]


def parse_claims(tool, text, json_path):
    """What the tool itself says: its req/s, its errors, and (hail, wrk2) latency figures."""
    out = {"tool_rps": "", "tool_errors": "", "hail_backlog": "", "lag_p99_us": "", "lag_max_us": "",
           "lat_p50_us": "", "lat_p99_us": "", "lat_max_us": "", "service_p99_us": ""}
    if tool == "hail":
        try:
            with open(json_path) as f:
                j = json.load(f)
        except (OSError, ValueError) as e:
            out["tool_errors"] = "no JSON report (%s)" % e.__class__.__name__
            return out
        rate = j.get("rate") or {}
        out["tool_rps"] = "%.1f" % rate.get("achieved_per_s", 0.0)
        out["hail_backlog"] = rate.get("backlog", "")
        errs = j.get("errors") or {}
        if isinstance(errs, dict):
            errs = ", ".join("%s %d" % kv for kv in errs.items() if kv[1])
        out["tool_errors"] = str(errs) if errs else ""

        def pick(dist, key):
            v = (j.get(dist) or {}).get(key)
            return "" if v is None else "%.1f" % v

        out["lag_p99_us"], out["lag_max_us"] = pick("lag_us", "p99"), pick("lag_us", "max")
        out["lat_p50_us"], out["lat_p99_us"] = pick("latency_us", "p50"), pick("latency_us", "p99")
        out["service_p99_us"] = pick("service_time_us", "p99")
    elif tool == "h2load":
        m = re.search(r"^finished in [^,]+,\s*([\d.]+) req/s", text, re.M)
        if m:
            out["tool_rps"] = m.group(1)
        m = re.search(r"^requests: .*", text, re.M)
        if not m:
            out["tool_errors"] = "no summary"
        elif re.search(r"\b[1-9]\d* (failed|errored|timeout)", m.group(0)):
            out["tool_errors"] = m.group(0)
        m = re.search(r"^status codes: .*", text, re.M)
        if m and re.search(r"\b[1-9]\d* [45]xx", m.group(0)):
            out["tool_errors"] = (out["tool_errors"] + "; " if out["tool_errors"] else "") + m.group(0)
    elif tool == "wrk2":
        m = re.search(r"^Requests/sec:\s*([\d.]+)", text, re.M)
        if m:
            out["tool_rps"] = m.group(1)
        else:
            out["tool_errors"] = "no summary"
        errs = [l.strip() for l in text.splitlines() if l.strip().startswith(("Socket errors", "Non-2xx"))]
        if errs:
            out["tool_errors"] = "; ".join(errs)
        # the corrected ("Recorded") distribution printed by -L
        sec = text.split("(HdrHistogram - Recorded Latency)", 1)
        if len(sec) == 2:
            for pct, key in (("50.000", "lat_p50_us"), ("99.000", "lat_p99_us"), ("100.000", "lat_max_us")):
                m = re.search(r"^\s*%s%%\s+([\d.]+)(us|ms|s|m|h)\s*$" % re.escape(pct), sec[1], re.M)
                if m:
                    out[key] = "%.1f" % time_to_us(m.group(1), m.group(2))
    return out


def tool_version(tool, a):
    if tool == "hail":
        return compare.first_line([a.hail, "--version"])
    if tool == "h2load":
        return compare.first_line(["h2load", "--version"])
    v = compare.first_line([a.wrk2, "-v"]).split(" Copyright")[0]
    d = os.path.dirname(os.path.abspath(a.wrk2))
    commit = ""
    try:
        p = subprocess.run(["git", "-C", d, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                           timeout=5, stdin=subprocess.DEVNULL)
        commit = p.stdout.strip() if p.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        pass
    if not commit:
        try:
            commit = Path(d, "COMMIT").read_text().strip()[:12]
        except OSError:
            pass
    return "wrk2 %s (%s%s)" % (a.wrk2, v, ", giltene/wrk2 " + commit if commit else "")


# ----------------------------------------------------------------------------------------------
# the harness


class RateHarness(compare.Harness):
    def __init__(self, args):
        super().__init__(args)
        try:
            (self.workdir / "runs.csv").unlink()  # compare.py's table; ours is probes.csv
        except OSError:
            pass
        self.csv_path = self.workdir / "probes.csv"
        with open(self.csv_path, "w", newline="") as f:
            csv.writer(f).writerow(PROBE_FIELDS)
        self.nprobe = 0
        self.searches = []  # one dict per (rep, tool)
        self.half_rows = []  # kept runs at 50 %

    def window(self, tool, dur, conns):
        """(lo, hi): seconds after the tool's start between which nginx's count is sampled."""
        lo = 1.0 if dur >= 3 else 0.25 * dur
        hi = dur - (0.5 if dur >= 3 else 0.2 * dur)
        if tool == "wrk2":
            # the last connection only starts its schedule after C x 5 ms, or all of them after the
            # ~1 s start-up stall of wrk2's event loop (see bench/README.md)
            lo += max(conns * WRK2_STAGGER_S, WRK2_STALL_S)
        return lo, hi

    # ---- one run of one tool at one rate, measured on the server side
    def probe(self, tool, rate, rep, phase, dur=None, warmup=0, attempt=0):
        a = self.args
        dur = a.duration if dur is None else dur
        url = "http://127.0.0.1:%d/%s" % (self.nginx.port, compare.FILES[a.file][0])
        self.nprobe += 1
        stem = "%03d_%s_r%d_%s_%d_a%d" % (self.nprobe, tool, rep, phase, rate, attempt)
        json_path = self.workdir / "logs" / (stem + ".json")
        logfile = self.workdir / "logs" / (stem + ".log")
        argv = tool_command(tool, rate, a.conns, dur, url, a, json_path, warmup)
        pinned = ["taskset", "-c", str(a.client_cpu)] + argv
        lo, hi = self.window(tool, dur, a.conns)
        lo += warmup
        hi += warmup
        if hi - lo < 0.5:
            die("--duration too short for a steady window with %s (%g-%g s)" % (tool, lo, hi))

        self.wait_quiet()
        acc0, req0, _ = self.nginx.stub()
        busy0, _ = compare.cpu_jiffies()
        srv0 = self.nginx.worker_ns()
        self0 = compare.self_cpu_s()
        state = {"samples": [], "calls": 0, "t0": None}

        def on_start(pid, t0):
            state["t0"] = t0
            marks = [t0 + lo, t0 + hi]

            def tick(now):
                if marks and now >= marks[0]:
                    marks.pop(0)
                    state["calls"] += 1
                    ta = time.monotonic()
                    try:
                        _, req, _ = self.nginx.stub()
                        state["samples"].append(((ta + time.monotonic()) / 2, req))
                    except OSError:
                        pass

            return tick

        code, wall, ru = self.run_process(pinned, logfile, int((dur + warmup) * 3 + 15), None, on_start)
        t_end = state["t0"] + wall
        self1 = compare.self_cpu_s()
        srv1 = self.nginx.worker_ns()
        busy1, _ = compare.cpu_jiffies()
        acc1, req1, _ = self.nginx.stub()

        own = 1 + state["calls"]
        reqs = req1 - req0 - own
        s = state["samples"]
        window_ok = len(s) == 2 and s[0][0] < s[1][0] < t_end
        # each sample is itself one request; the second sample's own request is in its count
        srv_rps = (s[1][1] - s[0][1] - 1) / (s[1][0] - s[0][0]) if window_ok else 0.0
        cpu = ru.ru_utime + ru.ru_stime
        srv_s = (srv1 - srv0) / 1e9
        foreign = ((busy1 - busy0) / compare.CLK_TCK - cpu - srv_s - (self1 - self0)) * 100.0 / wall
        try:
            text = logfile.read_text(errors="replace")
        except OSError:
            text = ""
        claims = parse_claims(tool, text, json_path)
        if code != 0:
            claims["tool_errors"] = ("exit %d; " % code) + claims["tool_errors"]
        # sustained: nginx counted >= (1 - tolerance) x R per second of the steady window, and the
        # tool reported no error. The whole-run count (against the tool's own plan) is reported, not
        # judged: it includes start-up losses (wrk2's stall) that say nothing about the steady rate.
        ratio = srv_rps / rate
        whole = reqs / planned_seconds(tool, dur + warmup, a.conns)
        ratio_whole = whole / rate
        ok = window_ok and ratio >= 1.0 - a.tolerance and not claims["tool_errors"]
        row = {
            "rep": rep, "tool": tool, "phase": phase, "target": rate, "attempt": attempt, "exit": code,
            "wall_s": "%.3f" % wall, "window_s": "%.3f" % (s[1][0] - s[0][0]) if window_ok else "",
            "srv_rps": "%.1f" % srv_rps, "ratio": "%.4f" % ratio,
            "srv_rps_whole": "%.1f" % whole, "ratio_whole": "%.4f" % ratio_whole, "srv_requests": reqs,
            "srv_accepts": acc1 - acc0 - own, "ok": int(ok),
            "client_cpu_pct": "%.1f" % (cpu * 100.0 / wall), "nginx_cpu_pct": "%.1f" % (srv_s * 100.0 / wall),
            "foreign_pct": "%.1f" % max(0.0, foreign), "kept": 1, "command": shlex.join(pinned),
        }
        row.update(claims)
        log("#   %-6s rep %d %-6s R=%8d: nginx steady %9.0f/s (%6.2f%%) whole %6.2f%%  tool %9s/s  cpu %5s%%  "
            "nginx %5s%%  foreign %4s%%  %s%s%s" % (
                tool, rep, phase, rate, srv_rps, 100.0 * ratio, 100.0 * ratio_whole, claims["tool_rps"] or "?",
                row["client_cpu_pct"], row["nginx_cpu_pct"], row["foreign_pct"], "ok" if ok else "FAIL",
                "" if window_ok else " [window missed]",
                "  [%s]" % claims["tool_errors"] if claims["tool_errors"] else ""))
        return row

    def probe_retrying(self, tool, rate, rep, phase, **kw):
        """As compare.py does: a run during which other processes used more than --foreign-max % of
        a CPU is repeated, at most --retries times, and the least disturbed attempt is kept (a stall
        before the window followed by a catch-up burst inside it can also make a probe pass)."""
        attempts = []
        while True:
            row = self.probe(tool, rate, rep, phase, attempt=len(attempts), **kw)
            attempts.append(row)
            if float(row["foreign_pct"]) > self.args.foreign_max and len(attempts) <= self.args.retries:
                log("#   disturbed run (foreign %s%% of a CPU): retry" % row["foreign_pct"])
                continue
            break
        best = row if float(row["foreign_pct"]) <= self.args.foreign_max else \
            min(attempts, key=lambda r: float(r["foreign_pct"]))
        with open(self.csv_path, "a", newline="") as f:
            w = csv.DictWriter(f, PROBE_FIELDS)
            for r in attempts:
                r["kept"] = int(r is best)
                w.writerow(r)
        return best

    # ---- the search for one tool
    def search(self, tool, rep):
        a = self.args
        rate = lambda r: effective_rate(tool, r, a.conns)  # noqa: E731
        probes = {}
        phase = ["ramp"]

        def run(r):
            r = rate(r)
            if r not in probes:
                probes[r] = self.probe_retrying(tool, r, rep, phase[0])
            return probes[r]

        lo, hi = None, None
        r = a.start
        capped = False
        # geometric ramp: up while it keeps up; if the first rate already fails, down
        if run(r)["ok"]:
            lo = rate(r)
            while True:
                nxt = rate(lo * a.step)
                if nxt > a.max_rate:
                    capped = True
                    break
                if run(nxt)["ok"]:
                    lo = nxt
                else:
                    hi = nxt
                    break
        else:
            hi = rate(r)
            while lo is None:
                nxt = rate(hi / a.step)
                if nxt < a.min_rate or nxt >= hi:
                    break
                if run(nxt)["ok"]:
                    lo = nxt
                else:
                    hi = nxt
        # bisection (geometric middle) down to --resolution
        phase[0] = "bisect"
        while lo is not None and hi is not None and hi / lo > 1.0 + a.resolution:
            mid = rate(math.sqrt(lo * hi))
            if mid <= lo or mid >= hi:
                break
            if run(mid)["ok"]:
                lo = mid
            else:
                hi = mid
        res = {"rep": rep, "tool": tool, "max": lo, "fail": hi, "capped": capped,
               "at_max": probes.get(lo), "at_fail": probes.get(hi), "probes": len(probes)}
        log("# %s rep %d: highest sustained %s req/s%s (%d probes)" % (
            tool, rep, lo, ", lowest failed %s" % hi if hi else " (cap --max-rate reached)", len(probes)))
        self.searches.append(res)
        return res

    # ---- hail (and wrk2) at 50 % of hail's highest rate
    def half_runs(self, tools, reps):
        a = self.args
        hail_max = [s["max"] for s in self.searches if s["tool"] == "hail" and s["max"]]
        if a.lag_rate:
            half = int(a.lag_rate)  # given: no search was run
        elif not hail_max:
            log("# no hail maximum: no 50 % runs")
            return None
        else:
            half = int(round(statistics.median(hail_max) * a.lag_fraction))
        runs = [t for t in ("hail", "wrk2") if t in tools]
        log("# %d %% of hail's highest rate: %d req/s for %g s (+ %g s warm-up for hail)" % (
            round(a.lag_fraction * 100), half, a.lag_duration, a.lag_warmup))
        for rep in range(1, reps + 1):
            order = runs[(rep - 1) % len(runs):] + runs[:(rep - 1) % len(runs)]
            for tool in order:
                row = self.probe_retrying(tool, half, rep, "half", dur=a.lag_duration,
                                          warmup=a.lag_warmup if tool == "hail" else 0)
                self.half_rows.append(row)
        return half

    # ---- output
    def print_header(self, tools):
        a = self.args
        nginx_v = compare.first_line([a.nginx, "-v"], "stderr").replace("nginx version: ", "")
        print("# Highest sustained rate on one thread (bench/rate.py)")
        print()
        print("- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
        print("- kernel: %s %s; CPU: %s x %d; nginx: %s" % (
            platform.system(), platform.release(), compare.cpu_model(), os.cpu_count() or 0, nginx_v))
        print("- tools: %s" % "; ".join(tool_version(t, a) for t in tools))
        print("- command: `%s`" % ("python3 " + shlex.join(sys.argv)))
        url = "http://127.0.0.1:PORT/" + compare.FILES[a.file][0]
        print("- runs (RATE = the probed total rate):")
        print()
        for t in tools:
            argv = tool_command(t, 0, a.conns, a.duration, url, a, "FILE.json")
            cmd = shlex.join(["taskset", "-c", str(a.client_cpu)] + argv)
            cmd = re.sub(r"(-R ?)0\b", r"\1RATE", cmd).replace("--rps 0", "--rps RATE/%d" % a.conns)
            print("      " + cmd)
        print()
        print("- method: nginx 1 worker on CPU %d, generator with one thread on CPU %d, %d keep-alive "
              "connections, probes of %g s; a rate R is sustained when the requests nginx counted in the "
              "steady window [%s] of the run, per second of window, reach %g %% of R and the tool reported "
              "no error; geometric ramp from %d (x%g), then bisection to %g %%; %d repetition(s), tool order "
              "rotating" % (
                  a.server_cpu, a.client_cpu, a.conns, a.duration,
                  "%g s, %g s after start" % self.window("hail", a.duration, a.conns)
                  + ("; wrk2 from %g s: staggered connects or start-up stall" % self.window(
                      "wrk2", a.duration, a.conns)[0] if "wrk2" in tools else ""),
                  100 * (1 - a.tolerance), a.start, a.step, 100 * a.resolution, a.reps))
        sys.stdout.flush()

    def print_tables(self, tools, half):
        a = self.args
        mr = compare.median_range
        size = (self.nginx.www / compare.FILES[a.file][0]).stat().st_size if self.nginx else 0
        if self.searches:
            print()
            print("## Highest rate sustained within %g %% on one thread (GET /%s, %d-byte body, %d connections, "
                  "%g s probes)" % (100 * a.tolerance, compare.FILES[a.file][0], size, a.conns, a.duration))
            print()
            hdr = ["tool", "highest sustained rate, req/s", "÷ hail",
                   "nginx-counted at that rate, req/s (steady / whole run)", "tool's own req/s at that rate",
                   "lowest failed rate: nginx-counted, % of it (steady / whole run, medians)",
                   "client CPU % at max", "nginx CPU % at max", "probes"]
            print("| " + " | ".join(hdr) + " |")
            print("|" + "|".join(["---"] + ["---:"] * (len(hdr) - 1)) + "|")
            hail_by_rep = {s["rep"]: s["max"] for s in self.searches if s["tool"] == "hail"}
            notes = []
            for tool in tools:
                ss = [s for s in self.searches if s["tool"] == tool]
                if not ss:
                    continue
                maxes = [s["max"] for s in ss if s["max"]]
                at = [s["at_max"] for s in ss if s["at_max"]]
                fails = [s["at_fail"] for s in ss if s["at_fail"]]
                ratios = [s["max"] / hail_by_rep[s["rep"]] for s in ss
                          if s["max"] and hail_by_rep.get(s["rep"])]
                fcell = "-"
                if fails:
                    fcell = "%s: %.1f / %.1f %%%s" % (
                        mr([f["target"] for f in fails], "%.0f"),
                        statistics.median(100 * float(f["ratio"]) for f in fails),
                        statistics.median(100 * float(f["ratio_whole"]) for f in fails),
                        ", errors" if any(f["tool_errors"] for f in fails) else "")
                print("| " + " | ".join([
                    tool,
                    ("**%s**" % mr(maxes, "%.0f")) if maxes else "none (below --min-rate)",
                    mr(ratios, "%.2f"),
                    "%s / %s" % (mr([float(r["srv_rps"]) for r in at], "%.0f"),
                                 mr([float(r["srv_rps_whole"]) for r in at], "%.0f")),
                    mr([float(r["tool_rps"]) for r in at if r["tool_rps"]], "%.0f"),
                    fcell,
                    mr([float(r["client_cpu_pct"]) for r in at], "%.0f"),
                    mr([float(r["nginx_cpu_pct"]) for r in at], "%.0f"),
                    mr([s["probes"] for s in ss], "%.0f"),
                ]) + " |")
                for s in ss:
                    if s["capped"]:
                        notes.append("%s rep %d: still sustained at --max-rate: the real maximum is higher"
                                     % (tool, s["rep"]))
                    f = s["at_fail"]
                    if f and f["tool_errors"]:
                        notes.append("%s rep %d failed at %d with errors: %s" % (tool, s["rep"], f["target"],
                                                                                 f["tool_errors"]))
                    m = s["at_max"]
                    if m and float(m["ratio"]) > 1.0 + a.tolerance:
                        notes.append("%s rep %d: nginx counted %.1f %% of the highest rate in the window: the tool "
                                     "was catching up (behind schedule when the window began)"
                                     % (tool, s["rep"], 100 * float(m["ratio"])))
                    if m and float(m["ratio_whole"]) < 1.0 - a.tolerance:
                        notes.append("%s rep %d: over the whole run nginx counted only %.1f %% of the plan at the "
                                     "highest rate (lost at start-up%s, or still queued at the end)" % (
                                         tool, s["rep"], 100 * float(m["ratio_whole"]),
                                         ": wrk2's ~1 s stall?" if tool == "wrk2" else ""))
                    if m and float(m["nginx_cpu_pct"]) >= 90:
                        notes.append("%s rep %d: nginx used %s %% of its CPU at the highest rate: the server may "
                                     "be the limit, not the tool" % (tool, s["rep"], m["nginx_cpu_pct"]))
            if notes:
                print()
                for n in notes:
                    print("- " + n)
            print()
            print("\"nginx-counted\", steady: requests nginx's stub_status counted between two samples taken "
                  "in the window, divided by the time between them (the criterion); whole run: all requests nginx "
                  "counted from before the tool started to after it exited, divided by the time the tool planned "
                  "to send at full rate (hail, h2load: the duration; wrk2: the duration minus (C - 1) x 2.5 ms "
                  "for its staggered connects), shown for start-up losses only. \"tool's own req/s\": hail's "
                  "rate.achieved_per_s (completions in its measured time), h2load's \"finished in\" req/s, wrk2's "
                  "Requests/sec (all completions / whole run, including its staggered start and any start-up "
                  "stall, so it reads low).")
        if half and self.half_rows:
            print()
            print("## At %g %% of hail's highest rate: %d req/s, %d connections, one thread, %g s%s" % (
                100 * a.lag_fraction, half, a.conns, a.lag_duration,
                " (hail: after %g s of --warmup)" % a.lag_warmup if a.lag_warmup else ""))
            print()
            hdr = ["tool", "nginx-counted req/s", "scheduler lag p99, µs", "lag max, µs",
                   "latency p50 (corrected), µs", "latency p99 (corrected), µs", "service time p99, µs", "runs"]
            print("| " + " | ".join(hdr) + " |")
            print("|" + "|".join(["---"] + ["---:"] * (len(hdr) - 1)) + "|")
            notes = []
            for tool in ("hail", "wrk2"):
                rs = [r for r in self.half_rows if r["tool"] == tool]
                if not rs:
                    continue

                def col(k):
                    return mr([float(r[k]) for r in rs if r[k] not in ("", None)], "%.0f")

                print("| " + " | ".join([
                    tool, col("srv_rps"), col("lag_p99_us") if tool == "hail" else "n/a",
                    col("lag_max_us") if tool == "hail" else "n/a", col("lat_p50_us"), col("lat_p99_us"),
                    col("service_p99_us") if tool == "hail" else "n/a", str(len(rs))]) + " |")
                for r in rs:
                    if not r["ok"]:
                        notes.append("%s rep %s did not sustain %d req/s at 50 %% (nginx-counted %s, %s)" % (
                            tool, r["rep"], half, r["srv_rps"], r["tool_errors"] or "no tool error"))
            wrk2_max = [s["max"] for s in self.searches if s["tool"] == "wrk2" and s["max"]]
            if wrk2_max and statistics.median(wrk2_max) < half:
                notes.append("this rate is above wrk2's own highest sustained rate: its latencies show overload")
            print()
            print("Scheduler lag: hail's planned send time -> actual send (`lag_us`); latency (corrected): planned "
                  "send -> response complete; service time: actual send -> complete. wrk2's latency is its "
                  "corrected (\"Recorded\") distribution from `-L`, which only covers the time after its "
                  "calibration (%g s + 5 ms per connection = %g s) when the run is longer than that, and the "
                  "whole run otherwise." % (WRK2_CALIBRATE_S, WRK2_CALIBRATE_S + a.conns * WRK2_STAGGER_S))
            for n in notes:
                print("- " + n)
        sys.stdout.flush()

    def close(self):
        self.kill_current()
        if self.nginx:
            self.nginx.stop()
        if self.args.keep:
            log("# kept %s (probes.csv, logs/, nginx/)" % self.workdir)
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(
        description="Highest request rate each load generator sustains within 1 % on one thread against a "
                    "private nginx, and hail's scheduler lag at 50 % of its own.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--hail", default=str(compare.DEFAULT_HAIL), help="hail binary")
    p.add_argument("--wrk2", default=None, help="wrk2 binary (a local build; without it wrk2 is skipped)")
    p.add_argument("--tools", default="hail,h2load,wrk2", help="comma-separated, from: " + ",".join(KNOWN_TOOLS))
    p.add_argument("--reps", type=int, default=1, help="repeat every search (and the 50 %% runs); medians reported")
    p.add_argument("--duration", type=int, default=10,
                   help="seconds per probe (whole seconds: h2load's -D takes no fraction)")
    p.add_argument("--conns", type=int, default=100, help="connections")
    p.add_argument("--file", default="1k", choices=sorted(compare.FILES), help="file requested from nginx")
    p.add_argument("--start", type=float, default=10000, help="first rate probed (req/s)")
    p.add_argument("--step", type=float, default=1.5, help="ramp factor")
    p.add_argument("--resolution", type=float, default=0.02, help="stop bisecting when failed/sustained <= 1 + this")
    p.add_argument("--tolerance", type=float, default=0.01, help="sustained: nginx-counted >= (1 - this) x rate")
    p.add_argument("--max-rate", type=float, default=2e6, help="do not probe above this")
    p.add_argument("--min-rate", type=float, default=100, help="do not probe below this")
    p.add_argument("--lag-fraction", type=float, default=0.5, help="the latency runs use this x hail's max")
    p.add_argument("--lag-duration", type=int, default=30,
                   help="seconds of the latency runs (wrk2 records latency only after ~10.5 s)")
    p.add_argument("--lag-warmup", type=float, default=0, help="hail --warmup before its latency run")
    p.add_argument("--no-lag", action="store_true", help="skip the runs at 50 %%")
    p.add_argument("--lag-rate", type=float, default=0,
                   help="skip the searches and run only the latency runs at this rate (req/s)")
    p.add_argument("--keep", action="store_true", help="keep the temp dir (probes.csv, logs/)")
    p.add_argument("--nginx", default="/usr/sbin/nginx", help="nginx binary")
    p.add_argument("--server-cpu", type=int, default=1, help="CPU for nginx")
    p.add_argument("--client-cpu", type=int, default=0, help="CPU for the generator")
    p.add_argument("--quiet-pct", type=float, default=5.0,
                   help="before each run, wait until all CPUs are less busy than this (%%) over 1 s")
    p.add_argument("--quiet-max", type=float, default=60.0, help="... but at most this many seconds")
    p.add_argument("--foreign-max", type=float, default=10.0,
                   help="repeat a probe when other processes used more than this %% of a CPU during it")
    p.add_argument("--retries", type=int, default=2, help="repeats of a disturbed probe")
    a = p.parse_args()

    if a.reps < 1 or a.duration <= 0 or a.conns < 1 or a.step <= 1 or a.resolution <= 0:
        die("--reps, --duration, --conns must be positive, --step > 1, --resolution > 0")
    if not sys.platform.startswith("linux"):
        die("Linux only (/proc, taskset, wait4)")
    tools = list(dict.fromkeys(t.strip() for t in a.tools.split(",") if t.strip()))
    for t in tools:
        if t not in KNOWN_TOOLS:
            die("unknown tool %r (known: %s)" % (t, ", ".join(KNOWN_TOOLS)))
    avail = []
    for t in tools:
        if t == "hail":
            if not (os.path.isfile(a.hail) and os.access(a.hail, os.X_OK)):
                die("hail binary not found at %s (build it: ./run build release, or pass --hail PATH)" % a.hail)
            a.hail = os.path.abspath(a.hail)
            avail.append(t)
        elif t == "wrk2":
            if not a.wrk2:
                log("# skipping wrk2 (no --wrk2 PATH; see bench/README.md for a local build)")
            elif not (os.path.isfile(a.wrk2) and os.access(a.wrk2, os.X_OK)):
                die("wrk2 binary not found at %s" % a.wrk2)
            else:
                a.wrk2 = os.path.abspath(a.wrk2)
                avail.append(t)
        elif shutil.which(t):
            avail.append(t)
        else:
            log("# skipping %s (not installed)" % t)
    if not avail:
        die("no load generator to run")
    for need in ("taskset", a.nginx):
        if not shutil.which(need):
            die("%s not found" % need)
    ncpu = os.cpu_count() or 1
    if max(a.server_cpu, a.client_cpu) >= ncpu:
        log("# only %d CPU(s): pinning nginx and the generator to CPU 0" % ncpu)
        a.server_cpu = a.client_cpu = 0

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    nofile = hard if hard != resource.RLIM_INFINITY else 1 << 20
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))
    except (ValueError, OSError):
        nofile = soft

    h = RateHarness(a)

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    interrupted = False
    half = None
    try:
        h.nginx = compare.Nginx(a.nginx, h.workdir, a.server_cpu, nofile)
        h.nginx.start()
        log("# nginx pid %d (worker %s) on 127.0.0.1:%d, workdir %s" % (
            h.nginx.proc.pid, h.nginx.worker, h.nginx.port, h.workdir))
        compare.http_get(h.nginx.port, "/" + compare.FILES[a.file][0])  # warm-up
        h.print_header(avail)
        for rep in range(1, a.reps + 1 if not a.lag_rate else 1):
            order = avail[(rep - 1) % len(avail):] + avail[:(rep - 1) % len(avail)]
            for tool in order:
                log("# search: %s, rep %d" % (tool, rep))
                h.search(tool, rep)
        if not a.no_lag:
            half = h.half_runs(avail, a.reps)
    except KeyboardInterrupt:
        interrupted = True
        h.kill_current()
        log("# interrupted: results so far")
    finally:
        try:
            h.print_tables(avail, half)
        finally:
            h.close()
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
