#!/usr/bin/env python3
"""search_accuracy.py - how close `hail search` gets to a capacity known from queueing theory, how
long it takes, and what a hand-made ladder (`hail -R 1 --ladder ...`) gets in the same conditions.

The target is the queueing test server (tests/tools/queue_server.cc: one FIFO queue, one server,
responses sent at their model completion time), so the right answer is known by construction:

  * M/M/1 (`--dist exp`, hail `--arrival poisson`) with service rate mu and objective p(99) < 10 ms:
    the p99 sojourn time is ln(100) / (mu - lambda), so the answer is lambda* = mu - ln(100) / 0.010.
  * D/D/1 (`--dist fixed`, hail's fixed arrival intervals) with objective p(99) < 20 ms: no queue
    below the capacity 1 / service, a queue growing without bound above it: the answer is just
    under the capacity.

For every case and repetition it runs, against a fresh server each time, hail search (found rate,
confirmed or not, what limited it, probes, wall time) and a ladder over 60-105 % of the capacity in
steps of 5 % of it (the highest step that met the objective, `slo.highest_passing_step`, and the
ladder's wall time), in alternating order. hail runs with one thread pinned to one CPU, the server
(single-threaded) on the other, as compare.py does. Reported per run and as medians, with the error
against theory in %. Also recorded per run, as noise indicators: CPU used by other processes during
the run, the 1-minute load average before it, hail's scheduler lag p99 at the answer (search) and
how late the server sent its responses (p99 of send time - model completion time).

Standard library only; loopback only; every process bounded (hard time limits, PR_SET_PDEATHSIG).
See bench/README.md ("bench/search_accuracy.py").  Run `python3 bench/search_accuracy.py -h`.
"""

import argparse
import csv
import datetime
import json
import math
import os
import platform
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare  # noqa: E402  (bench/compare.py: Harness (bounded runs, quiet wait), /proc helpers)

REPO = compare.REPO
DEFAULT_QUEUE_SERVER = REPO / "build" / "release" / "tests" / "tools" / "queue_server"
LN100 = math.log(100.0)


class Case:
    """One server configuration with a known answer."""

    def __init__(self, name, model, service_us, limit_ms):
        self.name, self.model, self.service_us, self.limit_ms = name, model, service_us, limit_ms
        self.capacity = 1e6 / service_us  # mu, requests/s
        self.dist = "exp" if model == "mm1" else "fixed"
        self.arrival = "poisson" if model == "mm1" else "fixed"
        self.slo = "p(99)<%gms" % limit_ms
        if model == "mm1":  # p99 sojourn of M/M/1 = ln(100) / (mu - lambda) = limit
            self.theory = self.capacity - LN100 / (limit_ms / 1000.0)
        else:  # D/D/1: the capacity itself (the answer is just under it)
            self.theory = self.capacity

    def describe(self):
        if self.model == "mm1":
            return ("M/M/1, mu = %g req/s (--service-us %d --dist exp, hail --arrival poisson), %s: "
                    "lambda* = mu - ln(100)/%gs = %.1f req/s" % (
                        self.capacity, self.service_us, self.slo, self.limit_ms / 1000.0, self.theory))
        return ("D/D/1, capacity %g req/s (--service-us %d --dist fixed, hail's fixed arrivals), %s: "
                "just under %g req/s" % (self.capacity, self.service_us, self.slo, self.capacity))


CASES = {
    "mm1-2000": Case("mm1-2000", "mm1", 500, 10),
    "mm1-4000": Case("mm1-4000", "mm1", 250, 10),
    "mm1-8000": Case("mm1-8000", "mm1", 125, 10),
    "dd1-1000": Case("dd1-1000", "dd1", 1000, 20),
    "dd1-4000": Case("dd1-4000", "dd1", 250, 20),
}
DEFAULT_CASES = "mm1-2000,mm1-4000,mm1-8000,dd1-1000,dd1-4000"
QUICK_CASES = "mm1-4000,dd1-1000"

RUN_FIELDS = [
    "rep", "case", "method", "theory", "found", "error_pct", "confirmed", "limited_by", "probes",
    "wall_s", "elapsed_s", "exit", "lag_p99_us", "server_late_p99_us", "server_sojourn_p99_us",
    "foreign_pct", "load1", "note", "command",
]


def log(msg):
    compare.log(msg)


def die(msg, code=2):
    log("search_accuracy.py: " + msg)
    sys.exit(code)


def seconds(text):
    """'3s', '500ms', '2m', '1.5' (seconds) -> float seconds; only for time estimates and limits."""
    t = text.strip()
    for suffix, mult in (("ms", 1e-3), ("us", 1e-6), ("s", 1.0), ("m", 60.0), ("h", 3600.0)):
        if t.endswith(suffix):
            return float(t[:-len(suffix)]) * mult
    return float(t)


def median_range(values, fmt, unit=""):
    """'median (min to max)' ("to": the figures may be negative), or one figure when they agree."""
    if not values:
        return "-"
    med = fmt % statistics.median(values) + unit
    if len(values) == 1 or fmt % min(values) == fmt % max(values):
        return med
    return "%s (%s to %s)" % (med, fmt % min(values), fmt % max(values))


def load1():
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


class QueueServer:
    """queue_server pinned to one CPU for one run; .final = its statistics printed on SIGTERM."""

    def __init__(self, binary, case, seed, cpu, logfile):
        self.argv = ["taskset", "-c", str(cpu), binary, "--host", "127.0.0.1", "--port", "0",
                     "--service-us", str(case.service_us), "--dist", case.dist, "--seed", str(seed)]
        self.logfile = logfile
        self.proc = None
        self.port = None
        self.final = None
        self.lines = []

    def start(self):
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=open(self.logfile, "wb"), start_new_session=True,
                                     preexec_fn=lambda: compare._pdeathsig(signal.SIGTERM))
        first = {}

        def reader():  # the first line, then everything else (the final JSON) until EOF
            first["line"] = self.proc.stdout.readline().decode("utf-8", "replace")
            for raw in self.proc.stdout:
                self.lines.append(raw.decode("utf-8", "replace"))

        self.reader = threading.Thread(target=reader, daemon=True)
        self.reader.start()
        deadline = time.monotonic() + 10
        while "line" not in first and time.monotonic() < deadline:
            time.sleep(0.02)
        line = first.get("line", "")
        if not line.startswith("port "):
            self.stop()
            die("queue_server did not print 'port P' (got %r); see %s" % (line, self.logfile), 1)
        self.port = int(line.split()[1])
        return self

    def cpu_ns(self):
        return compare.process_cpu_ns(self.proc.pid) or 0

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.send_signal(signal.SIGTERM)
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                self.proc.wait(5)
        self.reader.join(5)
        for line in reversed(self.lines):
            try:
                self.final = json.loads(line)
                break
            except ValueError:
                continue
        self.proc = None


class SearchBench(compare.Harness):
    def __init__(self, args):
        super().__init__(args)
        try:
            (self.workdir / "runs.csv").unlink()  # compare.py's table; ours has other columns
        except OSError:
            pass
        self.csv_path = self.workdir / "runs.csv"
        with open(self.csv_path, "w", newline="") as f:
            csv.writer(f).writerow(RUN_FIELDS)
        self.runs = []
        self.server = None
        self.nrun = 0

    # ---- command lines
    def common(self, case):
        a = self.args
        argv = ["-t", "1", "-c", str(a.conns), "--max-connections", str(a.max_connections)]
        if case.arrival == "poisson":
            argv += ["--arrival", "poisson"]
        return argv

    def search_argv(self, case, url, json_path):
        a = self.args
        argv = [a.hail, "search"] + self.common(case) + ["--slo", case.slo, "--probe", a.probe, "--settle", a.settle,
                                                         "--confirm", a.confirm, "--budget", a.budget,
                                                         "--precision", a.precision]
        if a.from_fraction:
            argv += ["--from", "%g" % round(a.from_fraction * case.capacity)]
        return argv + ["--json", str(json_path), url]

    def ladder_levels(self, case):
        a = self.args
        step = max(1, int(round(a.ladder_step * case.capacity)))
        lo = max(step, int(round(a.ladder_from * case.capacity)))
        hi = int(round(a.ladder_to * case.capacity))
        return lo, step, hi

    def ladder_argv(self, case, url, json_path):
        a = self.args
        lo, step, hi = self.ladder_levels(case)
        return ([a.hail] + self.common(case) + ["-R", "1", "--ladder", "%d:%d:%d" % (lo, step, hi),
                                                 "--step-duration", a.step_duration, "--slo", case.slo,
                                                 "--json", str(json_path), url])

    def ladder_seconds(self, case):
        lo, step, hi = self.ladder_levels(case)
        return ((hi - lo) // step + 1) * seconds(self.args.step_duration)

    # ---- one measured run of hail against a fresh server
    def run(self, case, rep, method):
        a = self.args
        self.nrun += 1
        stem = "%03d_r%d_%s_%s" % (self.nrun, rep, case.name, method)
        logs = self.workdir / "logs"
        json_path = logs / (stem + ".json")
        self.wait_quiet()
        self.server = QueueServer(a.queue_server, case, rep, a.server_cpu, logs / (stem + ".server.log")).start()
        url = "http://127.0.0.1:%d/" % self.server.port
        if method == "search":
            argv = self.search_argv(case, url, json_path)
            hard = seconds(a.budget) + 60
        else:
            argv = self.ladder_argv(case, url, json_path)
            hard = self.ladder_seconds(case) + 60
        pinned = ["taskset", "-c", str(a.client_cpu)] + argv
        l1 = load1()
        busy0, _ = compare.cpu_jiffies()
        srv0 = self.server.cpu_ns()
        self0 = compare.self_cpu_s()
        try:
            code, wall, ru = self.run_process(pinned, logs / (stem + ".log"), int(hard))
        finally:
            srv1 = self.server.cpu_ns()
            self.server.stop()
            final, self.server = self.server.final or {}, None
        busy1, _ = compare.cpu_jiffies()
        self1 = compare.self_cpu_s()
        hail_cpu = ru.ru_utime + ru.ru_stime
        foreign = ((busy1 - busy0) / compare.CLK_TCK - hail_cpu - (srv1 - srv0) / 1e9 - (self1 - self0)) * 100.0 / wall
        row = {k: "" for k in RUN_FIELDS}
        row.update({
            "rep": rep, "case": case.name, "method": method, "theory": "%.1f" % case.theory, "exit": code,
            "wall_s": "%.1f" % wall, "foreign_pct": "%.0f" % max(0.0, foreign), "load1": "%.2f" % l1,
            "server_late_p99_us": final.get("late_p99_us", ""), "server_sojourn_p99_us": final.get("sojourn_p99_us", ""),
            "command": shlex.join(pinned),
        })
        try:
            with open(json_path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            doc = None
            row["note"] = "no JSON (%s), exit %d" % (e.__class__.__name__, code)
        if doc is not None:
            (self.parse_search if method == "search" else self.parse_ladder)(case, doc, row)
        if row["found"] != "":
            row["error_pct"] = "%+.1f" % (100.0 * (float(row["found"]) - case.theory) / case.theory)
        log("#   rep %d %-9s %-6s found %9s (%6s %%) theory %7.1f  %s probes/steps  %6s s  exit %d  "
            "foreign %s %%  load %s%s" % (
                rep, case.name, method, row["found"] or "none", row["error_pct"] or "-", case.theory,
                row["probes"] or "-", row["wall_s"], code, row["foreign_pct"], row["load1"],
                "  [%s]" % row["note"] if row["note"] else ""))
        with open(self.csv_path, "a", newline="") as f:
            csv.DictWriter(f, RUN_FIELDS).writerow(row)
        self.runs.append(row)
        return row

    @staticmethod
    def parse_search(case, doc, row):
        s = doc.get("search") or {}
        probes = s.get("probes") or []
        row["probes"] = len(probes)
        row["elapsed_s"] = "%.1f" % s.get("elapsed_s", 0.0)
        row["limited_by"] = s.get("limited_by") or ""
        row["confirmed"] = "yes" if s.get("confirmed") else "no"
        if s.get("found") and s.get("max_rate_per_s") is not None:
            row["found"] = "%.1f" % s["max_rate_per_s"]
            at = [p for p in probes if p.get("decided") == "pass" and
                  abs(p.get("target", 0) - s["max_rate_per_s"]) < 1e-6 * max(1.0, s["max_rate_per_s"])]
            if at:  # the last probe at the answer (the confirmation when there was one)
                row["lag_p99_us"] = "%.0f" % at[-1].get("lag_p99_us", 0.0)
        if s.get("limited_by") not in ("server", None):
            row["note"] = "limited by %s: %s" % (s.get("limited_by"), s.get("limit_reason", ""))

    @staticmethod
    def parse_ladder(case, doc, row):
        steps = (doc.get("stages") or {}).get("steps") or []
        slo = doc.get("slo") or {}
        row["probes"] = len(steps)
        row["limited_by"] = "hail" if (doc.get("generator_health") or {}).get("limited_by_hail") else ""
        best = slo.get("highest_passing_step")
        if best:
            row["found"] = "%.1f" % steps[best - 1]["target_start"]
        # what a reader of the table might take instead: the step before the first failing one
        oks = [st.get("ok") for st in slo.get("steps") or []]
        if False in oks:
            first_fail = oks.index(False)
            if best and first_fail + 1 < best:
                row["note"] = "a step passed above a failing one: step %d (%.0f) failed, step %d (%.0f) passed" % (
                    first_fail + 1, steps[first_fail]["target_start"], best, steps[best - 1]["target_start"])
        elif oks:
            row["note"] = "every step passed: the ladder did not reach the limit"

    # ---- output
    def print_header(self, cases):
        a = self.args
        commit = ""
        try:
            p = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"], capture_output=True,
                               text=True, timeout=5, stdin=subprocess.DEVNULL)
            commit = p.stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            pass
        print("# Capacity search accuracy (bench/search_accuracy.py)")
        print()
        print("- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
        print("- kernel: %s %s; CPU: %s x %d; load average at start: %s" % (
            platform.system(), platform.release(), compare.cpu_model(), os.cpu_count() or 0,
            open("/proc/loadavg").read().split()[:3]))
        print("- hail: %s (%s), repository at %s" % (compare.first_line([a.hail, "--version"]), a.hail, commit or "?"))
        print("- command: `%s`" % ("python3 " + shlex.join(sys.argv)))
        print("- server: `taskset -c %d queue_server --port 0 --service-us N --dist exp|fixed --seed REP`, "
              "a fresh one per run; hail on CPU %d" % (a.server_cpu, a.client_cpu))
        c = cases[0]
        print("- runs (%s shown; URL = the server):" % c.name)
        print()
        print("      " + shlex.join(["taskset", "-c", str(a.client_cpu)] + self.search_argv(c, "URL", "FILE.json")))
        print("      " + shlex.join(["taskset", "-c", str(a.client_cpu)] + self.ladder_argv(c, "URL", "FILE.json")))
        print()
        print("- cases:")
        for c in cases:
            lo, step, hi = self.ladder_levels(c)
            print("  - %s: %s; ladder %d:%d:%d" % (c.name, c.describe(), lo, step, hi))
        print()
        sys.stdout.flush()

    def print_tables(self, cases):
        mr = median_range
        if not self.runs:
            return
        print("## Every run")
        print()
        hdr = ["rep", "case", "method", "found, req/s", "error vs theory", "confirmed", "limited by",
               "probes / steps", "wall, s", "lag p99 at answer, µs", "server late p99, µs", "foreign CPU %", "load"]
        print("| " + " | ".join(hdr) + " |")
        print("|" + "|".join(["---"] * 3 + ["---:"] * 2 + ["---"] * 2 + ["---:"] * 6) + "|")
        for r in self.runs:
            print("| " + " | ".join(str(x) if x != "" else "-" for x in [
                r["rep"], r["case"], r["method"], r["found"] or "none", (r["error_pct"] + " %") if r["error_pct"] else "-",
                r["confirmed"], r["limited_by"], r["probes"], r["wall_s"], r["lag_p99_us"],
                r["server_late_p99_us"], r["foreign_pct"], r["load1"]]) + " |")
        notes = ["rep %s %s %s: %s" % (r["rep"], r["case"], r["method"], r["note"]) for r in self.runs if r["note"]]
        if notes:
            print()
            for n in notes:
                print("- " + n)
        print()
        print("## Medians (min-max) over the repetitions")
        print()
        hdr = ["case", "theory, req/s", "search: found, req/s", "error", "confirmed", "limited by", "probes",
               "time, s", "ladder: found, req/s", "error", "steps", "time, s"]
        print("| " + " | ".join(hdr) + " |")
        print("|" + "|".join(["---"] + ["---:"] * 4 + ["---"] + ["---:"] * 6) + "|")

        def nums(rs, k):
            return [float(r[k]) for r in rs if r[k] not in ("", None)]

        for c in cases:
            s = [r for r in self.runs if r["case"] == c.name and r["method"] == "search"]
            l = [r for r in self.runs if r["case"] == c.name and r["method"] == "ladder"]
            if not s and not l:
                continue

            def found(rs):
                f = nums(rs, "found")
                cell = mr(f, "%.0f") if f else "none"
                if f and len(f) < len(rs):
                    cell += " (%d of %d found)" % (len(f), len(rs))
                return cell

            def err(rs):
                e = nums(rs, "error_pct")
                return mr(e, "%+.1f", " %") if e else "-"

            lim = sorted(set(r["limited_by"] for r in s if r["limited_by"]))
            print("| " + " | ".join([
                c.name, "%.0f" % c.theory,
                found(s), err(s),
                "%d/%d" % (sum(r["confirmed"] == "yes" for r in s), len(s)) if s else "-",
                ", ".join("%s %d" % (x, sum(r["limited_by"] == x for r in s)) for x in lim) or "-",
                mr(nums(s, "probes"), "%.0f"), mr(nums(s, "wall_s"), "%.0f"),
                found(l), err(l), mr(nums(l, "probes"), "%.0f"), mr(nums(l, "wall_s"), "%.0f"),
            ]) + " |")
        all_s = [r for r in self.runs if r["method"] == "search"]
        all_l = [r for r in self.runs if r["method"] == "ladder"]
        print()
        print("Total hail time: search %.0f s over %d runs, ladder %.0f s over %d runs. Noise during the runs: "
              "foreign CPU (other processes) median %s of a CPU, load average %s, server late p99 %s µs." % (
                  sum(nums(all_s, "wall_s")), len(all_s), sum(nums(all_l, "wall_s")), len(all_l),
                  mr(nums(self.runs, "foreign_pct"), "%.0f", " %"), mr(nums(self.runs, "load1"), "%.1f"),
                  mr(nums(self.runs, "server_late_p99_us"), "%.0f")))
        print()
        print("error = (found - theory) / theory. search time = hail search's wall time (its 3 s closed-loop "
              "estimate, settles, probes, extensions, confirmation); ladder time = the ladder's wall time. "
              "lag p99 at answer: hail's scheduler lag (planned -> actual send) p99 in the last probe at the "
              "answer, which the corrected latency includes; server late p99: how long after their model "
              "completion time the server's responses went out (both are this machine's noise, not the model).")
        sys.stdout.flush()

    def close(self):
        self.kill_current()
        if self.server is not None:
            self.server.stop()
        if self.args.keep:
            log("# kept %s (runs.csv, logs/: each run's output, JSON and server log)" % self.workdir)
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(
        description="Accuracy and time of `hail search` against a queueing server with a known answer "
                    "(M/M/1 and D/D/1), side by side with a hand-made --ladder.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--hail", default=str(compare.DEFAULT_HAIL), help="hail binary")
    p.add_argument("--queue-server", default=str(DEFAULT_QUEUE_SERVER),
                   help="queue_server binary (tests/tools, built with the tests)")
    p.add_argument("--cases", default=DEFAULT_CASES, help="comma-separated, from: " + ",".join(CASES))
    p.add_argument("--reps", type=int, default=3, help="repetitions of every case (medians reported)")
    p.add_argument("--quick", action="store_true",
                   help="one repetition of %s (overrides --reps and --cases)" % QUICK_CASES)
    p.add_argument("--no-ladder", action="store_true", help="run the searches only")
    p.add_argument("--conns", type=int, default=100, help="hail -c (search and ladder)")
    p.add_argument("--max-connections", type=int, default=1000,
                   help="hail --max-connections (the search's default; given to the ladder too)")
    p.add_argument("--probe", default="2s", help="hail search --probe")
    p.add_argument("--settle", default="500ms", help="hail search --settle")
    p.add_argument("--confirm", default="4s", help="hail search --confirm")
    p.add_argument("--budget", default="120s", help="hail search --budget")
    p.add_argument("--precision", default="2%", help="hail search --precision")
    p.add_argument("--from-fraction", type=float, default=0,
                   help="hail search --from this x the capacity (default: not given, hail estimates)")
    p.add_argument("--ladder-from", type=float, default=0.6, help="first ladder step, x the capacity")
    p.add_argument("--ladder-to", type=float, default=1.05, help="last ladder step, x the capacity")
    p.add_argument("--ladder-step", type=float, default=0.05, help="ladder step, x the capacity")
    p.add_argument("--step-duration", default="2s",
                   help="hail --step-duration of the ladder (default: as long as a search probe's measurement)")
    p.add_argument("--keep", action="store_true", help="keep the temp dir (runs.csv, every run's output and JSON)")
    p.add_argument("--server-cpu", type=int, default=1, help="CPU for queue_server")
    p.add_argument("--client-cpu", type=int, default=0, help="CPU for hail")
    p.add_argument("--quiet-pct", type=float, default=5.0,
                   help="before each run, wait until all CPUs are less busy than this (%%) over 1 s")
    p.add_argument("--quiet-max", type=float, default=2.0, help="... but at most this many seconds")
    a = p.parse_args()

    if a.quick:
        a.reps, a.cases = 1, QUICK_CASES
    if a.reps < 1 or a.conns < 1:
        die("--reps and --conns must be at least 1")
    if not (0 < a.ladder_from < a.ladder_to and a.ladder_step > 0):
        die("the ladder needs 0 < --ladder-from < --ladder-to and --ladder-step > 0")
    for opt in ("probe", "settle", "confirm", "budget", "step_duration"):
        try:
            seconds(getattr(a, opt))
        except ValueError:
            die("--%s: not a duration: %r" % (opt.replace("_", "-"), getattr(a, opt)))
    if not sys.platform.startswith("linux"):
        die("Linux only (/proc, taskset, wait4)")
    names = [x.strip() for x in a.cases.split(",") if x.strip()]
    for n in names:
        if n not in CASES:
            die("unknown case %r (known: %s)" % (n, ", ".join(CASES)))
    cases = [CASES[n] for n in dict.fromkeys(names)]
    if not cases:
        die("no case to run")
    for what, path in (("hail", a.hail), ("queue_server", a.queue_server)):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            die("%s binary not found at %s (build: cmake --preset release && cmake --build --preset release)"
                % (what, path))
    a.hail, a.queue_server = os.path.abspath(a.hail), os.path.abspath(a.queue_server)
    if not shutil.which("taskset"):
        die("taskset not found")
    ncpu = os.cpu_count() or 1
    if max(a.server_cpu, a.client_cpu) >= ncpu:
        log("# only %d CPU(s): pinning the server and hail to CPU 0" % ncpu)
        a.server_cpu = a.client_cpu = 0

    h = SearchBench(a)
    methods = ["search"] if a.no_ladder else ["search", "ladder"]
    # a rough time estimate: search ~ estimate + ~12 probes; ladder = its steps
    est = sum(3 + 12 * (seconds(a.probe) + seconds(a.settle)) + seconds(a.confirm) + seconds(a.settle) +
              (0 if a.no_ladder else h.ladder_seconds(c)) for c in cases) * a.reps
    log("# %d case(s) x %d repetition(s), %s; roughly %.0f min on a quiet machine; workdir %s" % (
        len(cases), a.reps, " and ".join(methods), est / 60, h.workdir))

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    interrupted = False
    try:
        h.print_header(cases)
        for rep in range(1, a.reps + 1):
            for c in cases:
                # the order alternates with the repetition and the case, so drifts hit both methods
                order = methods if (rep + cases.index(c)) % 2 else methods[::-1]
                for m in order:
                    h.run(c, rep, m)
    except KeyboardInterrupt:
        interrupted = True
        h.kill_current()
        log("# interrupted: results so far")
    finally:
        try:
            h.print_tables(cases)
        finally:
            h.close()
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
