#!/usr/bin/env python3
"""compare.py - side-by-side HTTP load-generator comparison on loopback (hail vs wrk, h2load, ...).

Starts a private nginx (one worker, pinned to one CPU), runs each generator pinned to another CPU,
interleaves the tools over repetitions (the order rotates every repetition), waits for a quiet
machine before every run, and reports per tool:

  * requests/s counted by the server (nginx stub_status, sampled in a steady window),
  * client CPU (user+sys from wait4 rusage) per server-counted request,
  * peak RSS, connections opened (server-side accepts), CPU used by anything else (foreign%),
  * ratios to wrk computed within the same repetition, summarised as medians.

Before/after: --tools hail-base,hail --hail-base OLD/hail runs a second hail binary with exactly
hail's command lines, interleaved with it, and adds ratio columns of every tool to hail-base.

With --callgrind it also measures user-space instructions per request under valgrind.
TLS scenarios (h2tls:FILE, h1tls:FILE) run against the same nginx on two more ports (HTTP/2 and
HTTP/1.1 over TLS, a throw-away self-signed certificate) and compare hail with h2load.
Standard library only; see bench/README.md.  Run `python3 bench/compare.py --help`.
"""

import argparse
import atexit
import csv
import datetime
import json
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_HAIL = REPO / "build" / "release" / "hail"
DEFAULT_SCENARIOS = "1k:ka,100k:ka,1m:ka,1k:close,10k-conns"
KNOWN_TOOLS = ("wrk", "hail", "h2load", "ab", "hail-wrk", "hail-ab", "hail-base", "floor", "floor-uring")
# "floor": bench/floor_client.cc, only the system calls a request needs: what no client on the
# sockets API can undercut, so the others' costs have a scale. "floor-uring": bench/floor_uring.cc,
# each request one linked io_uring chain on a direct descriptor. Built here with g++ when asked for.
FLOORS = {"floor": ("floor_client.cc", []), "floor-uring": ("floor_uring.cc", ["-luring"])}
FLOOR_BINS = {}  # tool -> binary, set by build_floor()
# hail itself and hail-base: the same command line, the --hail binary or the --hail-base binary
HAIL_TOOLS = ("hail", "hail-base")
# hail's front-ends: the other tool's own command line, run as `hail wrk ...` / `hail ab ...`
FRONTENDS = {"hail-wrk": "wrk", "hail-ab": "ab"}
# which tools can run which protocol ("http" = the cleartext HTTP/1.1 scenarios)
TOOLS_FOR = {
    "http": KNOWN_TOOLS,
    "h2tls": ("hail", "h2load", "hail-base"),
    "h1tls": ("hail", "h2load", "wrk", "hail-base"),
}
# the reference tool of each protocol: ratios in its tables are taken to this tool's runs
BASE_TOOL = {"http": "wrk", "h2tls": "h2load", "h1tls": "h2load"}
# TLS 1.3 cipher suite that nginx allows (all tools then use the same one; OpenSSL's clients
# prefer TLS_AES_256_GCM_SHA384, h2load TLS_AES_128_GCM_SHA256) and the TLS 1.2 equivalent
DEFAULT_TLS_SUITE = "TLS_AES_128_GCM_SHA256"
TLS12_CIPHERS = "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305"
CLK_TCK = os.sysconf("SC_CLK_TCK")
AB_COUNT = 0  # --ab-count: ab and hail-ab run `-n AB_COUNT` instead of being bounded by -t

# files served by nginx: key -> (name, size in bytes or None for the small HTML page)
FILES = {
    "index": ("index.html", None),
    "1k": ("1k.bin", 1024),
    "100k": ("100k.bin", 100 * 1024),
    "1m": ("1m.bin", 1024 * 1024),
}
INDEX_HTML = b"<!DOCTYPE html>\n<html><head><title>bench</title></head><body><p>hello</p></body></html>\n"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg, code=2):
    log("compare.py: " + msg)
    sys.exit(code)


# ----------------------------------------------------------------------------------------------
# small system helpers


def _pdeathsig(sig):
    """preexec_fn: the child gets `sig` when the harness dies (even by SIGKILL). Best effort."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except Exception:
        pass


def cpu_jiffies():
    """(busy, total) jiffies summed over all CPUs from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    user, nice, system, idle, iowait, irq, softirq, steal = fields
    busy = user + nice + system + irq + softirq + steal
    return busy, busy + idle + iowait


def schedstat_ns(pid):
    """Time on CPU (ns) of a process's main thread, from /proc/PID/schedstat (0 if unreadable)."""
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def process_cpu_ns(pid):
    """CPU time (user+sys, ns) of all threads of a process, from /proc/PID/task/*/schedstat."""
    total = 0
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for tid in tids:
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total


def vm_hwm_kib(pid):
    """Peak RSS of the process's current memory image (VmHWM, KiB), or None (exited/zombie)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def children_of(ppid):
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
            if int(stat.rsplit(")", 1)[1].split()[1]) == ppid:
                out.append(int(d))
        except (OSError, ValueError, IndexError):
            pass
    return out


def self_cpu_s():
    ru = resource.getrusage(resource.RUSAGE_SELF)  # all threads of the harness
    return ru.ru_utime + ru.ru_stime


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(port, path, timeout=5.0):
    """One HTTP/1.0 request (new connection, closed by the server). Returns the whole response."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(("GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" % path).encode())
        chunks = []
        while True:
            b = s.recv(1 << 16)
            if not b:
                break
            chunks.append(b)
    return b"".join(chunks)


def first_line(cmd, stream="stdout"):
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=10, text=True)
        text = (p.stdout if stream == "stdout" else p.stderr) or p.stdout or p.stderr
        return text.strip().splitlines()[0] if text.strip() else "?"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


# ----------------------------------------------------------------------------------------------
# scenarios and tool command lines


class Scenario:
    def __init__(self, name, key, mode, conns, dur, proto="http", streams=1, script=None):
        self.name, self.key, self.mode, self.conns, self.dur = name, key, mode, conns, dur
        self.proto, self.streams = proto, streams  # proto: http | h2tls | h1tls
        self.script = script  # a wrk Lua script both tools run with -s (lua:NAME scenarios)
        self.path = "/" + FILES[key][0]

    @property
    def tls(self):
        return self.proto != "http"

    def describe(self, size):
        what = "keep-alive" if self.mode == "ka" else "Connection: close (a new connection per request)"
        if self.proto == "h2tls":
            what = "HTTP/2 over TLS (ALPN h2), %d streams per connection, keep-alive" % self.streams
        elif self.proto == "h1tls":
            what = "HTTP/1.1 over TLS (ALPN http/1.1), keep-alive"
        if self.script:
            what += ", script %s (-s, both tools)" % os.path.relpath(self.script, REPO)
        return "%s: GET %s (%d-byte body), %s, %d connections, %d s" % (
            self.name, self.path, size, what, self.conns, self.dur)


def parse_scenarios(spec, conns, dur, streams=10):
    out = []
    for item in (x.strip() for x in spec.split(",")):
        if not item or item == "none":
            continue
        m = re.fullmatch(r"(\d+)(k?)-conns", item)
        if m:  # many keep-alive connections for 5 s to 1k.bin: peak RSS is the figure of merit
            n = int(m.group(1)) * (1000 if m.group(2) else 1)
            out.append(Scenario(item, "1k", "ka", n, 5))
            continue
        m = re.fullmatch(r"(h2tls|h1tls):(index|1k|100k|1m)", item)
        if m:  # keep-alive over TLS: HTTP/2 with `streams` streams per connection, or HTTP/1.1
            proto = m.group(1)
            out.append(Scenario(item, m.group(2), "ka", conns, dur, proto, streams if proto == "h2tls" else 1))
            continue
        m = re.fullmatch(r"lua:(\w+)", item)
        if m:  # a wrk script from bench/scripts/, keep-alive, on the 1 KiB file
            path = REPO / "bench" / "scripts" / (m.group(1) + ".lua")
            if not path.is_file():
                die("unknown script scenario %r: no %s" % (item, path))
            out.append(Scenario(item, "1k", "ka", conns, dur, script=str(path)))
            continue
        m = re.fullmatch(r"(index|1k|100k|1m):(ka|close)", item)
        if not m:
            die("unknown scenario %r (FILE:MODE with FILE in index,1k,100k,1m and MODE ka|close, "
                "h2tls:FILE or h1tls:FILE, or Nk-conns such as 10k-conns)" % item)
        out.append(Scenario(item, m.group(1), m.group(2), conns, dur))
    return out


class ClientQuota:
    """--client-quota PCT: the generator runs in a CPU cgroup capped at PCT % of one CPU, so that
    the client, not nginx, is the limit (requests/s then measure the client's efficiency). cgroup
    v2 (cpu.max) where the cpu controller is there, else v1 (cpu.cfs_quota_us); needs root."""

    PERIOD_US = 100000

    def __init__(self, pct):
        quota = int(self.PERIOD_US * pct / 100)
        v2 = Path("/sys/fs/cgroup")
        name = "hail-bench-client-%d" % os.getpid()
        controllers = v2 / "cgroup.controllers"
        if controllers.exists() and "cpu" in controllers.read_text().split():
            try:
                (v2 / "cgroup.subtree_control").write_text("+cpu")
            except OSError:
                pass
            self.dir = v2 / name
            self.dir.mkdir()
            (self.dir / "cpu.max").write_text("%d %d" % (quota, self.PERIOD_US))
        else:
            self.dir = v2 / "cpu" / name
            self.dir.mkdir()
            (self.dir / "cpu.cfs_period_us").write_text(str(self.PERIOD_US))
            (self.dir / "cpu.cfs_quota_us").write_text(str(quota))

    def wrap(self, argv):
        # the shell joins the cgroup, then becomes the generator (same pid: wait4 and /proc still see it)
        return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', str(self.dir)] + argv

    def close(self):
        try:
            self.dir.rmdir()
        except OSError:
            pass


def build_floor(tool):
    """Compiles the floor `tool` (FLOORS) into a temp dir (removed at exit); sets FLOOR_BINS[tool]."""
    source, libs = FLOORS[tool]
    if not shutil.which("g++"):
        die("--tools %s needs g++ (it builds bench/%s)" % (tool, source))
    out = Path(tempfile.mkdtemp(prefix="hail-floor."))
    atexit.register(shutil.rmtree, out, True)
    FLOOR_BINS[tool] = str(out / Path(source).stem)
    r = subprocess.run(["g++", "-O2", "-std=c++20", "-Wall", "-Wextra", "-Wshadow", "-o", FLOOR_BINS[tool],
                        str(REPO / "bench" / source)] + libs, capture_output=True, text=True)
    if r.returncode != 0:
        die("building bench/%s failed:\n%s" % (source, r.stderr))


def tool_command(tool, sc, url, hail, conns=None, dur=None, json_path=None, hail_base=None):
    """(argv, stop_after): stop_after = seconds after which the harness sends SIGINT, or None.

    json_path: hail and hail-base only, where the JSON report goes (--json; the text report stays
    on stdout). hail_base: the --hail-base binary, which hail-base runs with hail's command line."""
    c = sc.conns if conns is None else conns
    d = sc.dur if dur is None else dur
    close = sc.mode == "close"
    proto = getattr(sc, "proto", "http")
    script = ["-s", sc.script] if getattr(sc, "script", None) else []
    if script and tool not in ("wrk",) + HAIL_TOOLS:
        raise ValueError("%s cannot run wrk scripts" % tool)
    if tool == "hail-base":  # exactly hail's argv, with the other binary
        if not hail_base:
            raise ValueError("hail-base needs the --hail-base binary")
        return tool_command("hail", sc, url, hail_base, conns, dur, json_path)
    if tool in FRONTENDS:  # exactly the other tool's argv, with `hail <tool>` in front
        argv, stop = tool_command(FRONTENDS[tool], sc, url, hail, conns, dur)
        return [hail] + argv, stop
    if tool in FLOORS:
        return [FLOOR_BINS[tool], "-c%d" % c, "-d%d" % d] + (["--close"] if close else []) + [url], None
    if tool == "wrk":
        return ["wrk", "-t1", "-c%d" % c, "-d%ds" % d] + script + (["-H", "Connection: close"] if close else []) + [url], None
    if tool == "hail":
        extra = {"h2tls": ["--streams", str(sc.streams)], "h1tls": ["--h1"]}.get(proto, []) + script
        return ([hail, "-t1", "-c%d" % c] + extra + ["-d%ds" % d, "-q"] + (["--no-keepalive"] if close else [])
                + (["--json", str(json_path)] if json_path else []) + [url]), None
    if tool == "h2load":
        # cleartext and h1tls: HTTP/1.1 (--h1); h2tls: HTTP/2 chosen by ALPN, -m streams per connection
        if proto == "h2tls":
            argv = ["h2load", "-t1", "-c%d" % c, "-m%d" % sc.streams, "-D%d" % d, url]
        else:
            argv = ["h2load", "--h1", "-t1", "-c%d" % c, "-D%d" % d] + (["-H", "Connection: close"] if close else []) + [url]
        # h2load -D never ends when the server closes every connection: the harness stops it.
        return argv, (d if close else None)
    if tool == "ab":
        # --ab-count N: ab's own way of bounding a run (-n N); otherwise -t bounds it like the others
        bound = ["-n", str(AB_COUNT)] if AB_COUNT else ["-t%d" % d, "-n", str(d * 1000000)]
        return ["ab", "-q"] + ([] if close else ["-k"]) + ["-c%d" % c] + bound + [url], None
    raise ValueError(tool)


def counted_command(tool, sc, url, hail, count):
    """argv of a run of exactly `count` requests over TLS (callgrind): hail or h2load, 50 connections."""
    if tool == "h2load":
        return ["h2load", "-t1", "-c50"] + (["-m%d" % sc.streams] if sc.proto == "h2tls" else ["--h1"]) + [
            "-n%d" % count, url]
    extra = ["--streams", str(sc.streams)] if sc.proto == "h2tls" else ["--h1"]
    return [hail, "-t1", "-c50"] + extra + ["-n", str(count), "-q", url]


def parse_tool_output(tool, text):
    """Best-effort parse of what the tool itself claims (cross-checks only)."""
    if tool in FRONTENDS:  # same output as the tool it stands in for
        out = parse_tool_output(FRONTENDS[tool], text)
        return out
    out = {"tool_rps": "", "tool_conns": "", "tool_errors": "", "tool_completed": "", "tls_info": ""}
    pats = {
        "wrk": r"^Requests/sec:\s*([\d.]+)",
        "hail": r"^Requests/sec:\s*([\d.]+)",
        "h2load": r"^finished in [^,]+,\s*([\d.]+) req/s",
        "ab": r"^Requests per second:\s*([\d.]+)",
        "hail-wrk": r"^Requests/sec:\s*([\d.]+)",
        "hail-ab": r"^Requests per second:\s*([\d.]+)",
        "hail-base": r"^Requests/sec:\s*([\d.]+)",
        "floor": r"^Requests/sec:\s*([\d.]+)",
        "floor-uring": r"^Requests/sec:\s*([\d.]+)",
    }
    m = re.search(pats[tool], text, re.M)
    if m:
        out["tool_rps"] = m.group(1)
    if tool in HAIL_TOOLS:
        m = re.search(r"^\s*Connections\s+(\d+) opened", text, re.M)
        if m:
            out["tool_conns"] = m.group(1)
        m = re.search(r"^\s*Errors\s+(.*)$", text, re.M)
        if m and any(int(x) for x in re.findall(r"\b(\d+)\b", m.group(1))):
            out["tool_errors"] = m.group(1).strip()
    elif tool == "wrk":
        errs = [l.strip() for l in text.splitlines() if l.strip().startswith(("Socket errors", "Non-2xx"))]
        out["tool_errors"] = "; ".join(errs)
    elif tool == "h2load":
        m = re.search(r"^requests: .*", text, re.M)
        if m and re.search(r"\b[1-9]\d* (failed|errored|timeout)", m.group(0)):
            out["tool_errors"] = m.group(0)
        m = re.search(r"^requests: .*?(\d+) succeeded", text, re.M)
        if m:
            out["tool_completed"] = m.group(1)
        m = re.search(r"^TLS Protocol:\s*(\S+)", text, re.M)
        if m:
            info = [m.group(1)]
            for pat in (r"^Cipher:\s*(\S+)", r"^Application protocol:\s*(\S+)"):
                m = re.search(pat, text, re.M)
                if m:
                    info.append(m.group(1))
            out["tls_info"] = " ".join(info)
    elif tool == "ab":
        m = re.search(r"^Failed requests:\s*(\d+)", text, re.M)
        if m and int(m.group(1)):
            out["tool_errors"] = "failed %s" % m.group(1)
    return out


# ----------------------------------------------------------------------------------------------
# nginx


class Nginx:
    """The private nginx. With tls=True it also listens with `ssl http2` on tls_h2_port and with
    `ssl` (HTTP/1.1 only: ALPN offers nothing else) on tls_h1_port, with a self-signed P-256
    certificate generated at start; stub_status stays on the cleartext port (counts are global)."""

    def __init__(self, binary, workdir, cpu, nofile, tls=False, tls_suite=DEFAULT_TLS_SUITE):
        self.binary, self.dir, self.cpu, self.nofile = binary, workdir / "nginx", cpu, nofile
        self.www = workdir / "www"
        self.proc = None
        self.worker = None
        self.port = None
        self.tls, self.tls_suite = tls, tls_suite
        self.tls_h2_port = self.tls_h1_port = None

    def port_for(self, proto):
        return {"http": self.port, "h2tls": self.tls_h2_port, "h1tls": self.tls_h1_port}[proto]

    def make_certificate(self):
        """A throw-away self-signed certificate (ECDSA P-256, 2 days) for localhost / 127.0.0.1."""
        self.dir.mkdir(parents=True, exist_ok=True)
        cmd = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
               "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
               "-keyout", str(self.dir / "key.pem"), "-out", str(self.dir / "cert.pem")]
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired) as e:
            die("openssl req failed: %s" % e)
        if p.returncode != 0:
            die("openssl req failed (exit %d):\n%s" % (p.returncode, p.stderr))

    def write_content(self):
        self.www.mkdir(parents=True, exist_ok=True)
        for key, (name, size) in FILES.items():
            (self.www / name).write_bytes(INDEX_HTML if size is None else os.urandom(size))
            os.chmod(self.www / name, 0o644)
        for d in (self.www.parent, self.www):
            os.chmod(d, 0o755)

    def write_config(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        wconn = max(1024, self.nofile - 64)
        small = "|".join(re.escape(FILES[k][0]) for k in ("index", "1k"))
        d = str(self.dir)
        conf = "\n".join([
            "# written by bench/compare.py",
            "user root;" if os.geteuid() == 0 else "",  # as root the worker must read our temp dir
            "daemon off;",
            "master_process on;",
            "worker_processes 1;",
            "worker_rlimit_nofile %d;" % self.nofile,
            "pid %s/nginx.pid;" % d,
            "error_log %s/error.log warn;" % d,
            "events { worker_connections %d; multi_accept on; use epoll; }" % wconn,
            "http {",
            "    access_log off;",
            "    sendfile on; tcp_nopush off; tcp_nodelay on;",
            "    keepalive_timeout 75s;",
            "    keepalive_requests 1000000000;",
            "    open_file_cache max=100 inactive=60s;",
            "    client_body_temp_path %s/t_body; proxy_temp_path %s/t_proxy;" % (d, d),
            "    fastcgi_temp_path %s/t_fcgi; uwsgi_temp_path %s/t_uwsgi; scgi_temp_path %s/t_scgi;" % (d, d, d),
            "    types { text/html html; application/octet-stream bin; }",
            "    server {",
            "        listen 127.0.0.1:%d backlog=16384;" % self.port,
            "        server_name localhost;",
            "        root %s;" % self.www,
            "        location = /nginx_status { stub_status; }",
            # small bodies: a plain write() is cheaper than sendfile(); big bodies: sendfile, no cork
            "        location ~ ^/(%s)$ { sendfile off; }" % small,
        ] + ([
            # TLS: HTTP/2 (ALPN h2, then http/1.1) and HTTP/1.1 only on two more ports; one TLS 1.3
            # suite so that every client uses the same cipher; nginx 1.22's default lacks TLSv1.3
            "        listen 127.0.0.1:%d ssl http2 backlog=16384;" % self.tls_h2_port,
            "        listen 127.0.0.1:%d ssl backlog=16384;" % self.tls_h1_port,
            "        ssl_certificate %s/cert.pem;" % d,
            "        ssl_certificate_key %s/key.pem;" % d,
            "        ssl_protocols TLSv1.2 TLSv1.3;",
            "        ssl_ciphers %s;" % TLS12_CIPHERS,
            "        ssl_conf_command Ciphersuites %s;" % self.tls_suite,
        ] if self.tls else []) + [
            "    }",
            "}",
            "",
        ])
        (self.dir / "nginx.conf").write_text(conf)

    def start(self):
        self.write_content()
        if self.tls:
            self.make_certificate()
        for attempt in range(5):
            self.port = free_port()
            if self.tls:
                while True:
                    self.tls_h2_port, self.tls_h1_port = free_port(), free_port()
                    if len({self.port, self.tls_h2_port, self.tls_h1_port}) == 3:
                        break
            self.write_config()
            errlog = self.dir / "error.log"
            out = open(self.dir / "stdout.log", "wb")
            self.proc = subprocess.Popen(
                ["taskset", "-c", str(self.cpu), self.binary, "-p", str(self.dir) + "/",
                 "-c", str(self.dir / "nginx.conf"), "-e", str(errlog)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=lambda: _pdeathsig(signal.SIGTERM))
            out.close()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    self.stub()
                    kids = children_of(self.proc.pid)
                    if kids:
                        self.worker = kids[0]
                        return
                except OSError:
                    pass
                time.sleep(0.1)
            text = ""
            for f in (errlog, self.dir / "stdout.log"):
                try:
                    text += f.read_text()
                except OSError:
                    pass
            self.stop()
            if "Address already in use" in text:
                continue
            die("nginx did not start:\n" + text)
        die("nginx: no free port found")

    def stub(self):
        """(accepts, requests, active) from stub_status. Each call is itself 1 accept + 1 request."""
        text = http_get(self.port, "/nginx_status").decode("latin-1")
        m = re.search(r"Active connections:\s*(\d+).*?\n\s*(\d+)\s+(\d+)\s+(\d+)", text, re.S)
        if not m:
            raise OSError("bad stub_status response: %r" % text[:200])
        return int(m.group(2)), int(m.group(4)), int(m.group(1))

    def worker_ns(self):
        return schedstat_ns(self.worker) if self.worker else 0

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.terminate()
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
            except OSError:
                pass
        if self.worker:  # a worker left behind by a killed master
            try:
                os.kill(self.worker, signal.SIGKILL)
            except OSError:
                pass
        self.proc = None


# ----------------------------------------------------------------------------------------------
# the harness


def median_range(values, fmt):
    if not values:
        return "-"
    if len(values) == 1 or fmt % min(values) == fmt % max(values):
        return fmt % statistics.median(values)
    return "%s (%s-%s)" % (fmt % statistics.median(values), fmt % min(values), fmt % max(values))


CSV_FIELDS = [
    "scenario", "rep", "tool", "attempt", "exit", "wall_s", "srv_requests", "srv_accepts", "srv_active",
    "rps", "window_ok", "rps_overall", "client_user_s", "client_sys_s", "client_us_per_req",
    "peak_rss_kib", "ru_maxrss_kib", "srv_cpu_pct", "srv_us_per_req", "foreign_pct",
    "tool_rps", "tool_conns", "tool_errors", "kept", "command",
    # added with the TLS scenarios (filled for every run where available)
    "client_us_per_req_steady", "tool_completed", "tool_in_flight", "tls_info",
]


class Harness:
    def __init__(self, args):
        self.args = args
        self.quota = None  # ClientQuota when --client-quota is given
        self.workdir = Path(tempfile.mkdtemp(prefix="hail-bench."))
        (self.workdir / "logs").mkdir()
        self.nginx = None
        self.current = None  # the generator process running now (for cleanup)
        self.rows = []
        self.callgrind_rows = []
        self.csv_path = self.workdir / "runs.csv"
        with open(self.csv_path, "w", newline="") as f:
            csv.writer(f).writerow(CSV_FIELDS)

    # ---- machine state
    def wait_quiet(self):
        """Wait (at most --quiet-max s) until all CPUs together are < --quiet-pct % busy over 1 s."""
        start = time.monotonic()
        while True:
            b0, t0 = cpu_jiffies()
            time.sleep(1.0)
            b1, t1 = cpu_jiffies()
            pct = 100.0 * (b1 - b0) / max(1, t1 - t0)
            if pct < self.args.quiet_pct:
                return pct
            if time.monotonic() - start >= self.args.quiet_max:
                log("# warning: machine still %.0f%% busy after %.0f s, running anyway" % (pct, self.args.quiet_max))
                return pct

    # ---- one process, measured
    def run_process(self, argv, logfile, hard_limit, stop_after=None, on_start=None):
        """Run argv (already pinned) to completion. Returns (exit, wall, rusage).

        on_start(pid) may return a callable tick(now) run about every 0.1 s while the process
        lives (sampling). The process gets SIGINT at stop_after (if set), SIGTERM at hard_limit
        and SIGKILL 2 s later."""
        done = threading.Event()
        with open(logfile, "wb") as out:
            t0 = time.monotonic()
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True, preexec_fn=lambda: _pdeathsig(signal.SIGKILL))
        self.current = proc
        tick = on_start(proc.pid, t0) if on_start else None

        def killpg(sig):
            try:
                os.killpg(proc.pid, sig)
            except OSError:
                pass

        def watchdog():
            if stop_after is not None and not done.wait(stop_after):
                killpg(signal.SIGINT)
            if not done.wait(max(0.0, hard_limit - (time.monotonic() - t0))):
                log("# hard time limit (%d s) reached: killing %s" % (hard_limit, argv[0]))
                killpg(signal.SIGTERM)
                if not done.wait(2):
                    killpg(signal.SIGKILL)

        def sampler():
            while not done.is_set():
                tick(time.monotonic())
                done.wait(0.1)

        threads = [threading.Thread(target=watchdog, daemon=True)]
        if tick:
            threads.append(threading.Thread(target=sampler, daemon=True))
        for t in threads:
            t.start()
        try:
            _, status, ru = os.wait4(proc.pid, 0)
            wall = time.monotonic() - t0
        finally:
            done.set()
            for t in threads:
                t.join()
        code = os.waitstatus_to_exitcode(status)
        proc.returncode = code  # we reaped it ourselves
        self.current = None
        return code, wall, ru

    def kill_current(self):
        proc = self.current
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(proc.pid, 0)
        except OSError:
            pass
        proc.returncode = -9
        self.current = None

    # ---- one benchmark run
    def measure(self, tool, sc, rep, attempt):
        a = self.args
        proto = getattr(sc, "proto", "http")
        url = "%s://127.0.0.1:%d%s" % ("https" if proto != "http" else "http", self.nginx.port_for(proto), sc.path)
        logfile = self.workdir / "logs" / ("%s_%s_r%d_a%d.log" % (sc.name.replace(":", "_"), tool, rep, attempt))
        # hail's JSON report (TLS scenarios): completed requests, negotiated protocol and cipher
        json_path = logfile.with_suffix(".json") if (tool in HAIL_TOOLS and proto != "http") else None
        argv, stop_after = tool_command(tool, sc, url, a.hail, json_path=json_path, hail_base=a.hail_base)
        pinned = ["taskset", "-c", str(a.client_cpu)] + argv
        if self.quota is not None:
            pinned = self.quota.wrap(pinned)
        hard = sc.dur * 3 + 15
        lo, hi = (1.0, sc.dur - 1.0) if sc.dur >= 3 else (0.2, sc.dur * 0.8)

        self.wait_quiet()
        acc0, req0, _ = self.nginx.stub()
        busy0, _ = cpu_jiffies()
        srv0 = self.nginx.worker_ns()
        self0 = self_cpu_s()

        state = {"samples": [], "calls": 0, "hwm": 0, "pid": None}

        def on_start(pid, t0):
            state["pid"], state["t0"] = pid, t0
            marks = [t0 + lo, t0 + hi]

            def tick(now):
                h = vm_hwm_kib(pid)
                if h:
                    state["hwm"] = max(state["hwm"], h)
                if marks and now >= marks[0]:
                    marks.pop(0)
                    state["calls"] += 1
                    cpu_ns = process_cpu_ns(pid)  # the generator's CPU so far (all its threads)
                    ta = time.monotonic()
                    try:
                        acc, req, act = self.nginx.stub()
                        state["samples"].append(((ta + time.monotonic()) / 2, req, act, cpu_ns))
                    except OSError:
                        pass

            return tick

        code, wall, ru = self.run_process(pinned, logfile, hard, stop_after, on_start)
        t_end = state["t0"] + wall  # when wait4 saw the tool exit
        self1 = self_cpu_s()
        srv1 = self.nginx.worker_ns()
        busy1, _ = cpu_jiffies()
        acc1, req1, _ = self.nginx.stub()

        own = 1 + state["calls"]  # our final stub call + the samples taken during the run
        reqs = req1 - req0 - own
        accepts = acc1 - acc0 - own
        s = state["samples"]
        window_ok = len(s) == 2 and s[1][0] < t_end and s[1][0] > s[0][0]
        rps_overall = reqs / wall if wall > 0 else 0.0
        rps = (s[1][1] - s[0][1] - 1) / (s[1][0] - s[0][0]) if window_ok else rps_overall
        # client CPU per request inside the steady window: start-up (connects, TLS handshakes) and
        # teardown excluded; /proc/PID/task/*/schedstat of the generator at the two window samples
        steady_us = ""
        if window_ok and s[0][3] is not None and s[1][3] is not None and s[1][1] - s[0][1] - 1 > 0:
            steady_us = "%.4f" % ((s[1][3] - s[0][3]) / 1e3 / (s[1][1] - s[0][1] - 1))
        active = max((x[2] - 1 for x in s), default=0)
        cpu = ru.ru_utime + ru.ru_stime
        srv_s = (srv1 - srv0) / 1e9
        foreign = ((busy1 - busy0) / CLK_TCK - cpu - srv_s - (self1 - self0)) * 100.0 / wall
        try:
            text = logfile.read_text(errors="replace")
        except OSError:
            text = ""
        claims = parse_tool_output(tool, text)
        if json_path is not None:
            claims.update(parse_hail_json(json_path))
        row = {
            "scenario": sc.name, "rep": rep, "tool": tool, "attempt": attempt, "exit": code,
            "wall_s": "%.3f" % wall, "srv_requests": reqs, "srv_accepts": accepts, "srv_active": active,
            "rps": "%.1f" % rps, "window_ok": int(window_ok), "rps_overall": "%.1f" % rps_overall,
            "client_user_s": "%.3f" % ru.ru_utime, "client_sys_s": "%.3f" % ru.ru_stime,
            "client_us_per_req": "%.4f" % (cpu * 1e6 / reqs) if reqs > 0 else "",
            "peak_rss_kib": state["hwm"] or ru.ru_maxrss, "ru_maxrss_kib": ru.ru_maxrss,
            "srv_cpu_pct": "%.1f" % (srv_s * 100.0 / wall),
            "srv_us_per_req": "%.4f" % (srv_s * 1e6 / reqs) if reqs > 0 else "",
            "foreign_pct": "%.1f" % max(0.0, foreign),
            "command": shlex.join(pinned),
            "client_us_per_req_steady": steady_us,
        }
        row.update(claims)
        log("#   %-9s rep %d%s: %9.0f req/s  %6s us/req  rss %6s KiB  conns %6d  foreign %4.1f%%  exit %d%s" % (
            tool, rep, " (retry %d)" % attempt if attempt else "", rps,
            ("%.3f" % (cpu * 1e6 / reqs)) if reqs > 0 else "-", row["peak_rss_kib"], accepts,
            max(0.0, foreign), code, "  [tool: %s]" % claims["tool_errors"] if claims["tool_errors"] else ""))
        return row

    def run_scenarios(self, scenarios, tools):
        a = self.args
        for sc in scenarios:
            sc_tools = [t for t in tools if t in TOOLS_FOR[sc.proto]
                        and (not sc.script or t in ("wrk",) + HAIL_TOOLS)]
            skipped = [t for t in tools if t not in sc_tools]
            log("# scenario %s%s" % (sc.name, " (not for %s)" % ", ".join(skipped) if skipped else ""))
            if not sc_tools:
                continue
            for rep in range(1, a.reps + 1):
                order = sc_tools[(rep - 1) % len(sc_tools):] + sc_tools[:(rep - 1) % len(sc_tools)]
                for tool in order:
                    attempts = []
                    while True:
                        row = self.measure(tool, sc, rep, len(attempts))
                        attempts.append(row)
                        if float(row["foreign_pct"]) > a.foreign_max and len(attempts) <= a.retries:
                            log("#   disturbed run (foreign %s%% of a CPU): retry %d" % (row["foreign_pct"], len(attempts)))
                            continue
                        break
                    # keep the least disturbed attempt (the last one when it is clean)
                    best = min(attempts, key=lambda r: float(r["foreign_pct"]))
                    if float(row["foreign_pct"]) <= a.foreign_max:
                        best = row
                    for r in attempts:
                        r["kept"] = int(r is best)
                    self.rows.append(best)
                    with open(self.csv_path, "a", newline="") as f:
                        w = csv.DictWriter(f, CSV_FIELDS)
                        for r in attempts:
                            w.writerow(r)

    # ---- callgrind: user-space instructions per request
    def callgrind(self, tools):
        a = self.args
        sc = self.callgrind_scenario
        url = "%s://127.0.0.1:%d%s" % ("https" if sc.tls else "http", self.nginx.port_for(sc.proto), sc.path)
        # TLS: fixed request counts, not durations (handshakes under valgrind take seconds, and a run
        # h2load's -D ends is killed before callgrind writes its totals). Both tools have -n.
        counted = sc.tls
        durs = (5000, 25000) if counted else (a.callgrind_short, a.callgrind_long)
        log("# callgrind: %s, %s, %d connections, %s and %s runs" % (
            sc.name, sc.path, sc.conns, *("%d %s" % (d, "requests" if counted else "s") for d in durs)))
        for tool in tools:
            if sc.tls and tool not in ("h2load",) + HAIL_TOOLS:
                continue  # wrk and ab speak no TLS here
            res = {}
            for d in durs:
                if counted:
                    argv, stop_after = counted_command(tool, sc, url, a.hail if tool == "hail" else a.hail_base, d), None
                else:
                    argv, stop_after = tool_command(tool, sc, url, a.hail, conns=50, dur=d, hail_base=a.hail_base)
                out = self.workdir / "logs" / ("callgrind_%s_%d.out" % (tool, d))
                logfile = self.workdir / "logs" / ("callgrind_%s_%d.log" % (tool, d))
                pinned = ["taskset", "-c", str(a.client_cpu), "valgrind", "--tool=callgrind",
                          "--callgrind-out-file=%s" % out, "--dump-instr=no", "--dump-line=no"] + argv
                self.wait_quiet()
                _, req0, _ = self.nginx.stub()
                code, wall, ru = self.run_process(pinned, logfile, (d // 100 if counted else d * 3) + 45, stop_after)
                _, req1, _ = self.nginx.stub()
                reqs = req1 - req0 - 1
                instr = read_callgrind_total(out, logfile)
                res[d] = (reqs, instr, code)
                log("#   %-9s %d %s under callgrind: %d requests, %s instructions, exit %d" % (
                    tool, d, "requests" if counted else "s", reqs, instr if instr is not None else "?", code))
                if not a.keep:
                    try:
                        out.unlink()
                    except OSError:
                        pass
            (r1, i1, c1), (r2, i2, c2) = res[durs[0]], res[durs[1]]
            ipr = (i2 - i1) / (r2 - r1) if (i1 is not None and i2 is not None and r2 > r1) else None
            self.callgrind_rows.append({"tool": tool, "req": (r1, r2), "instr": (i1, i2), "ipr": ipr,
                                        "exit": sorted({c1, c2})})

    # ---- output
    def print_header(self, tools, scenarios):
        a = self.args
        nginx_v = first_line([a.nginx, "-v"], "stderr").replace("nginx version: ", "")
        print("# Load-generator comparison (bench/compare.py)")
        print()
        print("- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
        print("- kernel: %s %s; CPU: %s x %d; nginx: %s" % (platform.system(), platform.release(), cpu_model(),
                                                          os.cpu_count() or 0, nginx_v))
        vers = []
        for t in tools:
            if t == "wrk":
                v = first_line(["wrk", "-v"])
            elif t == "hail":
                v = first_line([a.hail, "--version"])
                if "hail-base" in tools:  # before/after: which binary is which
                    v = "hail: %s (%s)" % (v, a.hail)
            elif t == "hail-base":
                v = "hail-base: %s (%s)" % (first_line([a.hail_base, "--version"]), a.hail_base)
            elif t == "h2load":
                v = first_line(["h2load", "--version"])
            elif t in FRONTENDS:
                v = "%s (%s)" % (t, first_line([a.hail, "--version"]))
            elif t in FLOORS:
                v = "%s: bench/%s (g++ -O2)" % (t, FLOORS[t][0])
            else:
                v = first_line(["ab", "-V"])
            vers.append(v)
        print("- tools: %s" % "; ".join(vers))
        print("- command: `%s`" % ("python3 " + shlex.join(sys.argv)))
        print("- method: nginx 1 worker on CPU %d, generator -t1 on CPU %d; %d repetition(s), tool order rotating; "
              "requests counted by nginx stub_status; client CPU = user+sys of the generator (wait4)" % (
                  a.server_cpu, a.client_cpu, a.reps))
        if a.client_quota:
            print("- client capped at %g %% of one CPU (CPU cgroup quota, 100 ms period): the generator, not nginx, "
                  "is the limit, so requests/s measure the client" % a.client_quota)
        if "hail-base" in tools:
            print("- before/after: hail-base runs exactly hail's command lines with %s (hail: %s); "
                  "`÷ hail-base` columns are ratios to hail-base's run in the same repetition, median" % (
                      a.hail_base, a.hail))
        if any(sc.tls for sc in scenarios):
            print("- TLS: nginx `ssl_protocols TLSv1.2 TLSv1.3`, TLS 1.3 suite %s only, self-signed ECDSA P-256 "
                  "certificate; h2tls: ALPN h2, %d streams per connection; ratios to h2load" % (
                      a.tls_suite, a.h2_streams))
        sys.stdout.flush()

    def print_tables(self):
        a = self.args
        targets = []  # TLS scenarios: (scenario, hail÷ref ratios of req/s, µs/req, steady µs/req, ref tool)
        for scname in dict.fromkeys(r["scenario"] for r in self.rows):
            rs = [r for r in self.rows if r["scenario"] == scname]
            sc = self.scenario_by_name[scname]
            tls = sc.tls
            bt = BASE_TOOL[sc.proto]  # wrk for the cleartext scenarios, h2load for TLS
            ran = {r["tool"] for r in rs}
            if bt not in ran and "ab" in ran:
                bt = "ab"  # `--tools ab,hail-ab`: ratios to ab
            size = (self.nginx.www / FILES[sc.key][0]).stat().st_size
            print()
            print("## " + sc.describe(size))
            print()
            # statistics over undisturbed runs when a tool has any (n = undisturbed/total)
            used, nclean = {}, {}
            for tool in dict.fromkeys(r["tool"] for r in rs):
                tr = [r for r in rs if r["tool"] == tool]
                clean = [r for r in tr if float(r["foreign_pct"]) <= a.foreign_max]
                used[tool] = (clean or tr, len(tr))
                nclean[tool] = len(clean)
            wrk = {r["rep"]: r for r in used.get(bt, ([], 0))[0]}  # the reference tool's runs
            # before/after: when both hail and hail-base ran, ratios to hail-base's runs as well
            before = "hail" in used and "hail-base" in used
            base_runs = {r["rep"]: r for r in used["hail-base"][0]} if before else {}
            hdr = ["tool", "n", "req/s (server, steady)", "client µs/req", "µs/req ÷ " + bt, "req/s ÷ " + bt]
            if before:
                hdr += ["µs/req ÷ hail-base", "req/s ÷ hail-base"]
            if tls:  # client CPU per request inside the steady window (no handshakes, no start-up)
                hdr += ["client µs/req, steady", "steady ÷ " + bt]
            hdr += ["nginx µs/req", "client+nginx ÷ " + bt, "peak RSS KiB", "conns opened", "conns active",
                    "foreign %"]
            print("| " + " | ".join(hdr) + " |")
            print("|" + "|".join(["---"] + ["---:"] * (len(hdr) - 1)) + "|")

            def num(r, k):
                return float(r[k]) if r.get(k) not in (None, "") else None

            def total(r):
                c, n = num(r, "client_us_per_req"), num(r, "srv_us_per_req")
                return c + n if c is not None and n is not None else None

            def ratio(tr, get, ref=wrk):
                """get(run) / get(ref's run of the same repetition), per repetition."""
                out = []
                for r in tr:
                    if r["rep"] in ref:
                        x, y = get(r), get(ref[r["rep"]])
                        if x is not None and y:
                            out.append(x / y)
                return out

            notes = []
            for tool, (tr, total_runs) in used.items():
                cli = lambda r: num(r, "client_us_per_req")
                codes = sorted({int(r["exit"]) for r in tr})
                name = tool if codes == [0] else "%s (exit %s)" % (tool, "/".join(map(str, codes)))
                steady = lambda r: num(r, "client_us_per_req_steady")
                cols = [
                    name, "%d/%d" % (nclean[tool], total_runs),
                    median_range([float(r["rps"]) for r in tr], "%.0f"),
                    median_range([v for v in map(cli, tr) if v is not None], "%.3f"),
                    median_range(ratio(tr, cli), "%.2f"),
                    median_range(ratio(tr, lambda r: num(r, "rps")), "%.2f"),
                ] + ([
                    median_range(ratio(tr, cli, base_runs), "%.2f"),
                    median_range(ratio(tr, lambda r: num(r, "rps"), base_runs), "%.2f"),
                ] if before else []) + ([
                    median_range([v for v in map(steady, tr) if v is not None], "%.3f"),
                    median_range(ratio(tr, steady), "%.2f"),
                ] if tls else []) + [
                    median_range([v for v in (num(r, "srv_us_per_req") for r in tr) if v is not None], "%.3f"),
                    median_range(ratio(tr, total), "%.2f"),
                    median_range([float(r["peak_rss_kib"]) for r in tr], "%.0f"),
                    median_range([float(r["srv_accepts"]) for r in tr], "%.0f"),
                    median_range([float(r["srv_active"]) for r in tr], "%.0f"),
                    median_range([float(r["foreign_pct"]) for r in tr], "%.1f"),
                ]
                print("| " + " | ".join(cols) + " |")
                if tls and tool in HAIL_TOOLS and bt in used:
                    targets.append((sc.name if tool == "hail" else "%s, %s" % (sc.name, tool),
                                    ratio(tr, lambda r: num(r, "rps")), ratio(tr, cli), ratio(tr, steady), bt))
                for r in tr:
                    if r["tool_errors"]:
                        notes.append("%s rep %s reported errors: %s" % (tool, r["rep"], r["tool_errors"]))
                    if r["window_ok"] == 0:
                        notes.append("%s rep %s: steady window missed (run too short?): whole-run req/s used"
                                     % (tool, r["rep"]))
                diffs = [int(r["srv_accepts"]) - int(r["tool_conns"]) for r in tr if r["tool_conns"]]
                if any(diffs):
                    notes.append("%s: nginx accepted %s more connections than %s reports opening (per run: %s)"
                                 % (tool, median_range(diffs, "%.0f"), tool, ", ".join(map(str, diffs))))
                if tls:
                    # the tool's own count of completed requests against nginx's (whole run)
                    done = [(r, int(r["tool_completed"])) for r in tr if r.get("tool_completed")]
                    if done:
                        notes.append("%s: nginx counted %s requests, %s completed %s (nginx - %s per run: %s)" % (
                            tool, median_range([float(r["srv_requests"]) for r, _ in done], "%.0f"), tool,
                            median_range([float(c) for _, c in done], "%.0f"), tool,
                            ", ".join("%+d%s" % (int(r["srv_requests"]) - c,
                                                 " (in flight %s)" % r["tool_in_flight"] if r.get("tool_in_flight")
                                                 else "") for r, c in done)))
                    infos = sorted({r["tls_info"] for r in tr if r.get("tls_info")})
                    if infos:
                        notes.append("%s negotiated: %s" % (tool, "; ".join(infos)))
            if notes:
                print()
                for n in notes:
                    print("- " + n)
        if targets:
            print()
            print("## hail against the reference tool over TLS (ratios within each repetition, median (min-max))")
            print()
            print("| scenario | req/s ÷ ref (≥ 1 wanted) | client µs/req ÷ ref (≤ 1 wanted) | steady-window µs/req ÷ ref | |")
            print("|---|---:|---:|---:|---|")
            for name, rps_r, cpu_r, steady_r, bt in targets:
                met = (rps_r and cpu_r and statistics.median(rps_r) >= 1.0 and statistics.median(cpu_r) <= 1.0)
                print("| %s (ref %s) | %s | %s | %s | %s |" % (
                    name, bt, median_range(rps_r, "%.2f"), median_range(cpu_r, "%.2f"),
                    median_range(steady_r, "%.2f"), "met" if met else "not met"))
        if self.callgrind_rows:
            print()
            sc = self.callgrind_scenario
            bt = BASE_TOOL[sc.proto]
            print("## callgrind: user-space instructions per request (%s, -t1; difference between %s)" % (
                sc.describe(FILES[sc.key][1] or len(INDEX_HTML)).rsplit(", ", 1)[0],
                "a run of 5000 and one of 25000 requests" if sc.tls else
                "a %d s and a %d s run" % (a.callgrind_short, a.callgrind_long)))
            print()
            print("| tool | requests (short / long) | instructions, M (short / long) | instructions/request | ÷ %s |" % bt)
            print("|---|---:|---:|---:|---:|")
            base = next((r["ipr"] for r in self.callgrind_rows if r["tool"] == bt), None)

            def mi(x):
                return "?" if x is None else "%.1f" % (x / 1e6)

            for r in self.callgrind_rows:
                name = r["tool"] if r["exit"] == [0] else "%s (exit %s)" % (r["tool"], "/".join(map(str, r["exit"])))
                print("| %s | %d / %d | %s / %s | %s | %s |" % (
                    name, r["req"][0], r["req"][1], mi(r["instr"][0]), mi(r["instr"][1]),
                    "-" if r["ipr"] is None else "%.0f" % r["ipr"],
                    "%.2f" % (r["ipr"] / base) if (r["ipr"] and base) else "-"))
        sys.stdout.flush()

    def close(self):
        self.kill_current()
        if self.nginx:
            self.nginx.stop()
        if self.args.keep:
            log("# kept %s (runs.csv, logs/, nginx/)" % self.workdir)
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)


def parse_hail_json(path):
    """From hail's --json report: completed / in-flight requests, errors, protocol and TLS."""
    out = {}
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError):
        return out
    req = j.get("requests") or {}
    if "completed" in req:
        out["tool_completed"] = str(req["completed"])
    if "in_flight" in req:
        out["tool_in_flight"] = str(req["in_flight"])
    errs = {k: v for k, v in (j.get("errors") or {}).items() if v}
    if errs:
        out["tool_errors"] = ", ".join("%s %s" % kv for kv in sorted(errs.items()))
    tls = j.get("tls") or {}
    info = [str(tls[k]) for k in ("version", "cipher") if tls.get(k)]
    if j.get("protocol"):
        info.append(str(j["protocol"]) + (" x%s streams" % j["streams"] if j.get("streams") else ""))
    if tls:
        info.append("%s handshakes" % tls.get("handshakes", "?"))
    out["tls_info"] = " ".join(info)
    return out


def read_callgrind_total(out, logfile):
    """Total instructions (Ir) from a callgrind out file ("totals:"/"summary:"), else the log."""
    try:
        with open(out) as f:
            for line in f:
                if line.startswith(("totals:", "summary:")):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    try:
        m = re.search(r"Collected\s*:\s*(\d+)", logfile.read_text(errors="replace"))
        if m:
            return int(m.group(1))
    except OSError:
        pass
    return None


def main():
    p = argparse.ArgumentParser(
        description="Compare HTTP load generators (hail, wrk, ...) against a private nginx on 127.0.0.1.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--hail", default=str(DEFAULT_HAIL), help="hail binary")
    p.add_argument("--hail-base", metavar="PATH", default=None,
                   help="before/after: a second hail binary (e.g. an older build copied to /tmp/base/hail) "
                        "that the tool hail-base runs with exactly hail's command lines; the tables then "
                        "get ratio columns to hail-base")
    p.add_argument("--scenarios", default=DEFAULT_SCENARIOS,
                   help="comma-separated FILE:MODE (FILE index|1k|100k|1m, MODE ka|close), h2tls:FILE, "
                        "h1tls:FILE, lua:NAME (bench/scripts/NAME.lua; wrk, hail, hail-base) or Nk-conns; "
                        "'none' for none (e.g. with --callgrind)")
    p.add_argument("--reps", type=int, default=3, help="repetitions (tool order rotates every repetition)")
    p.add_argument("--duration", type=int, default=5, help="seconds per run (Nk-conns runs always last 5 s)")
    p.add_argument("--client-quota", type=float, default=0, metavar="PCT",
                   help="cap the generator at PCT %% of one CPU (a cgroup; root) so that the client is the limit")
    p.add_argument("--ab-count", type=int, default=0, metavar="N",
                   help="ab and hail-ab send exactly N requests (ab -n N) instead of running for --duration")
    p.add_argument("--conns", type=int, default=50, help="connections per run (except Nk-conns)")
    p.add_argument("--tools", default="wrk,hail", help="comma-separated, from: " + ",".join(KNOWN_TOOLS))
    p.add_argument("--h2-streams", type=int, default=10,
                   help="h2tls scenarios: concurrent streams per connection (hail --streams, h2load -m)")
    p.add_argument("--tls-suite", default=DEFAULT_TLS_SUITE,
                   help="the one TLS 1.3 cipher suite nginx allows in TLS scenarios (same for every tool)")
    p.add_argument("--callgrind", action="store_true", help="also measure instructions/request under valgrind")
    p.add_argument("--callgrind-scenario", default="1k:ka", metavar="SCENARIO",
                   help="the one scenario --callgrind measures, with 50 connections (default 1k:ka; "
                        "h2tls:1k for HTTP/2 over TLS, against h2load)")
    p.add_argument("--callgrind-short", type=int, default=2, help=argparse.SUPPRESS)
    p.add_argument("--callgrind-long", type=int, default=4, help=argparse.SUPPRESS)
    p.add_argument("--keep", action="store_true", help="keep the temp dir (runs.csv, per-run logs)")
    p.add_argument("--nginx", default="/usr/sbin/nginx", help="nginx binary")
    p.add_argument("--server-cpu", type=int, default=1, help="CPU for nginx")
    p.add_argument("--client-cpu", type=int, default=0, help="CPU for the generator")
    p.add_argument("--quiet-pct", type=float, default=5.0,
                   help="before each run, wait until all CPUs are less busy than this (%%) over 1 s")
    p.add_argument("--quiet-max", type=float, default=60.0, help="... but at most this many seconds")
    p.add_argument("--foreign-max", type=float, default=10.0,
                   help="retry a run when other processes used more than this %% of a CPU during it")
    p.add_argument("--retries", type=int, default=2, help="retries of a disturbed run")
    a = p.parse_args()
    global AB_COUNT
    AB_COUNT = a.ab_count

    if a.reps < 1 or a.duration < 1 or a.conns < 1 or a.h2_streams < 1:
        die("--reps, --duration, --conns and --h2-streams must be at least 1")
    if a.callgrind_long <= a.callgrind_short:
        die("--callgrind-long must be longer than --callgrind-short")
    if not sys.platform.startswith("linux"):
        die("Linux only (/proc, taskset, wait4)")
    tools = [t.strip() for t in a.tools.split(",") if t.strip()]
    for t in tools:
        if t not in KNOWN_TOOLS:
            die("unknown tool %r (known: %s)" % (t, ", ".join(KNOWN_TOOLS)))
    tools = list(dict.fromkeys(tools))
    avail = []
    for t in tools:
        if t == "hail" or t in FRONTENDS:
            if not (os.path.isfile(a.hail) and os.access(a.hail, os.X_OK)):
                die("hail binary not found at %s (build it: ./run build release, or pass --hail PATH)" % a.hail)
            a.hail = os.path.abspath(a.hail)
            avail.append(t)
        elif t == "hail-base":
            if not a.hail_base:
                die("--tools hail-base needs --hail-base PATH (the hail binary to compare against, "
                    "e.g. an older build copied to /tmp/base/hail)")
            if not (os.path.isfile(a.hail_base) and os.access(a.hail_base, os.X_OK)):
                die("--hail-base: no executable hail binary at %s" % a.hail_base)
            a.hail_base = os.path.abspath(a.hail_base)
            avail.append(t)
        elif t in FLOORS:
            build_floor(t)
            avail.append(t)
        elif shutil.which(t):
            avail.append(t)
        else:
            log("# skipping %s (not installed)" % t)
    if not avail:
        die("no load generator to run")
    if a.hail_base and "hail-base" not in avail:
        log("# note: --hail-base is only used by the tool hail-base, which is not in --tools")
    elif "hail-base" in avail and "hail" in avail and os.path.realpath(a.hail) == os.path.realpath(a.hail_base):
        log("# note: --hail and --hail-base are the same file (an A/A comparison)")
    for need in ("taskset", a.nginx):
        if not shutil.which(need):
            die("%s not found" % need)
    if a.callgrind and not shutil.which("valgrind"):
        die("--callgrind needs valgrind")
    ncpu = os.cpu_count() or 1
    if max(a.server_cpu, a.client_cpu) >= ncpu:
        log("# only %d CPU(s): pinning nginx and the generator to CPU 0" % ncpu)
        a.server_cpu = a.client_cpu = 0
    scenarios = parse_scenarios(a.scenarios, a.conns, a.duration, a.h2_streams)
    if not scenarios and not a.callgrind:
        die("nothing to do (no scenario and no --callgrind)")
    callgrind_scenarios = parse_scenarios(a.callgrind_scenario, 50, 0, a.h2_streams)
    if len(callgrind_scenarios) != 1 or callgrind_scenarios[0].script:
        die("--callgrind-scenario: one scenario without a script, such as 1k:ka or h2tls:1k")
    use_tls = any(sc.tls for sc in scenarios) or (a.callgrind and callgrind_scenarios[0].tls)
    if use_tls and not shutil.which("openssl"):
        die("TLS scenarios need the openssl command (a self-signed certificate is made at start)")
    if use_tls and "h2load" not in avail:
        log("# warning: TLS scenarios compare with h2load, which is not in --tools (or not installed): "
            "their ratio columns stay empty")

    # file descriptors: as many as the hard limit allows (inherited by nginx and the generators)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    nofile = hard if hard != resource.RLIM_INFINITY else 1 << 20
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))
    except (ValueError, OSError):
        nofile = soft
    for sc in scenarios:
        if sc.conns + 100 > nofile:
            log("# warning: %s needs about %d file descriptors, the limit is %d" % (sc.name, sc.conns + 100, nofile))

    h = Harness(a)
    h.scenario_by_name = {sc.name: sc for sc in scenarios}
    h.callgrind_scenario = callgrind_scenarios[0]
    if a.client_quota:
        try:
            h.quota = ClientQuota(a.client_quota)
        except OSError as e:
            die("--client-quota: cannot make a CPU cgroup (%s); it needs root and a cgroup cpu controller" % e)

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, on_term)
    interrupted = False
    try:
        h.nginx = Nginx(a.nginx, h.workdir, a.server_cpu, nofile, tls=use_tls, tls_suite=a.tls_suite)
        h.nginx.start()
        log("# nginx pid %d (worker %s) on 127.0.0.1:%d%s, workdir %s" % (
            h.nginx.proc.pid, h.nginx.worker, h.nginx.port,
            " (TLS: h2 on %d, http/1.1 on %d)" % (h.nginx.tls_h2_port, h.nginx.tls_h1_port) if use_tls else "",
            h.workdir))
        for key in ("1m", "1k"):  # warm-up: page cache, open_file_cache
            http_get(h.nginx.port, "/" + FILES[key][0])
        h.print_header(avail, scenarios)
        h.run_scenarios(scenarios, avail)
        if a.callgrind:
            h.callgrind(avail)
    except KeyboardInterrupt:
        interrupted = True
        h.kill_current()
        log("# interrupted: results so far")
    finally:
        try:
            h.print_tables()
        finally:
            h.close()
            if h.quota is not None:
                h.quota.close()
    if interrupted:
        sys.exit(130)


if __name__ == "__main__":
    main()
