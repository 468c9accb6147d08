"""Shared helpers of hail's integration tests (Python 3 standard library only).

Everything here talks to 127.0.0.1 only, and every process or wait is bounded in time:
  hail_bin()          the binary under test ($HAIL_BIN, else the newest build/*/hail)
  run_hail(args)      runs hail with a hard timeout; HailRun(code, stdout, stderr, json, seconds)
  check_accounting()  asserts hail's request accounting invariant exactly
  HailServer          `hail serve --port 0` as a context manager, with /stats snapshots
  Nginx               Debian's nginx in its own temp dir: access-log counts and stub_status
  HostileServer       a tiny misbehaving HTTP server in a thread (truncated body, garbage, silence)
  free_port()         a loopback port that was free a moment ago (bind to 0, close)
"""

import collections
import glob
import http.client
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOOPBACK = "127.0.0.1"
NGINX = "/usr/sbin/nginx"

# The error classes of hail's JSON report that consume a request (connect errors carry none).
REQUEST_ERROR_CLASSES = ("read", "write", "timeout", "parse")


# --------------------------------------------------------------------------------------------
# The binary and running it


def hail_bin():
    """Path of the hail binary: $HAIL_BIN (set by ctest), else the newest build/*/hail."""
    env = os.environ.get("HAIL_BIN")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise AssertionError("HAIL_BIN=%r is not an executable file" % env)
        return env
    found = [p for p in glob.glob(os.path.join(REPO, "build", "*", "hail"))
             if os.path.isfile(p) and os.access(p, os.X_OK)]
    if not found:
        raise AssertionError("no hail binary: set HAIL_BIN or build one (./run build) so that "
                             "build/<preset>/hail exists")
    return max(found, key=os.path.getmtime)


HailRun = collections.namedtuple("HailRun", "code stdout stderr json seconds")


def run_hail(args, timeout=30, expect_json=None):
    """Runs `hail ARGS` with a hard timeout (the process is killed if it overruns, and the test
    fails). Returns HailRun(code, stdout, stderr, json, seconds); json is the parsed report when
    `--json -` is among the arguments (then stdout must be exactly one JSON document)."""
    args = [str(a) for a in args]
    if expect_json is None:
        expect_json = any(a == "--json" and i + 1 < len(args) and args[i + 1] == "-"
                          for i, a in enumerate(args)) or "--json=-" in args
    cmd = [hail_bin()] + args
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("hail did not finish within %ss (killed): %s\nstdout: %s\nstderr: %s"
                             % (timeout, " ".join(cmd), e.stdout, e.stderr)) from None
    seconds = time.monotonic() - start
    report = None
    if expect_json:
        try:
            report = json.loads(proc.stdout)
        except ValueError as e:
            raise AssertionError("`%s` exited %d and its stdout is not one JSON document (%s)\n"
                                 "stdout: %r\nstderr: %r"
                                 % (" ".join(cmd), proc.returncode, e, proc.stdout[:2000],
                                    proc.stderr[:2000])) from None
    return HailRun(proc.returncode, proc.stdout, proc.stderr, report, seconds)


def summary(report):
    """The JSON report without its distributions (their counts only), on one line."""
    short = {k: v for k, v in report.items() if not k.endswith("_us") and k != "timeseries"}
    for k in ("latency_us", "connect_us", "ttfb_us"):
        if k in report:
            short[k.replace("_us", "_count")] = report[k].get("count")
    return json.dumps(short, separators=(",", ":"))


def describe(run):
    """One string with everything useful about a run, for assertion messages."""
    return "exit %s after %.2fs\nstderr: %s\nreport: %s" % (
        run.code, run.seconds, run.stderr.strip(),
        summary(run.json) if run.json is not None else run.stdout)


def check_accounting(report, msg=""):
    """Asserts hail's accounting exactly:
    attempted == completed + read + write + timeout + parse + in_flight, status errors are a part
    of completed, every completed response has a status code and a latency sample, and the
    report's own accounting_ok agrees."""
    req = report["requests"]
    err = report["errors"]
    where = "%s\n%s" % (msg, json.dumps({"requests": req, "errors": err,
                                          "status_codes": report.get("status_codes")}))
    for key in ("attempted", "completed", "in_flight"):
        if not isinstance(req.get(key), int) or req[key] < 0:
            raise AssertionError("requests.%s is not a count: %s" % (key, where))
    for key in ("connect",) + REQUEST_ERROR_CLASSES + ("status",):
        if not isinstance(err.get(key), int) or err[key] < 0:
            raise AssertionError("errors.%s is not a count: %s" % (key, where))
    total = req["completed"] + sum(err[k] for k in REQUEST_ERROR_CLASSES) + req["in_flight"]
    if req["attempted"] != total:
        raise AssertionError("accounting broken: attempted %d != completed + read + write + "
                             "timeout + parse + in_flight = %d: %s"
                             % (req["attempted"], total, where))
    if err["status"] > req["completed"]:
        raise AssertionError("status errors exceed completed: %s" % where)
    codes = sum(report["status_codes"].values())
    if codes != req["completed"]:
        raise AssertionError("status_codes sum to %d, completed is %d: %s"
                             % (codes, req["completed"], where))
    bad = sum(n for code, n in report["status_codes"].items() if not 200 <= int(code) < 400)
    if bad != err["status"]:
        raise AssertionError("non-2xx/3xx status codes sum to %d, errors.status is %d: %s"
                             % (bad, err["status"], where))
    if report["latency_us"]["count"] != req["completed"]:
        raise AssertionError("latency_us.count %d != completed %d: %s"
                             % (report["latency_us"]["count"], req["completed"], where))
    if report["accounting_ok"] is not True:
        raise AssertionError("the report says accounting_ok=%r: %s"
                             % (report["accounting_ok"], where))


def wait_until(predicate, timeout, interval=0.02, what="condition"):
    """Polls predicate() until it returns a true value (returned) or `timeout` seconds pass
    (AssertionError). A readiness check, not a fixed sleep."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError("timed out after %ss waiting for %s" % (timeout, what))
        time.sleep(interval)


def free_port():
    """A TCP port on 127.0.0.1 that was free when this returned (bound to 0, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def http_get(port, path, timeout=5.0):
    """GET http://127.0.0.1:PORT/PATH on a fresh connection (no proxy). Returns (status, body)."""
    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def _kill_group(proc, first_signal, timeout):
    """Sends first_signal to proc, waits up to `timeout`, then SIGKILLs proc's whole process group
    (the tests start their servers with start_new_session=True, so the group is theirs alone)."""
    if proc.poll() is None:
        try:
            proc.send_signal(first_signal)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # stragglers (nginx workers) or a hung server
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


# --------------------------------------------------------------------------------------------
# hail serve


class HailServer:
    """`hail serve --host 127.0.0.1 --port 0 [extra args]` for the duration of a `with` block.

    .port is parsed from the "listening on http://127.0.0.1:PORT" line. stats() reads /stats on a
    fresh connection, which the server counts as one accepted connection (not as a request).
    On exit the server gets SIGTERM and must exit 0 within 10 s (else it is killed and, unless
    the block already failed, an AssertionError is raised)."""

    def __init__(self, *extra, threads=1, ready_timeout=10.0):
        self.args = ["serve", "--host", LOOPBACK, "--port", "0", "--threads", str(threads)]
        self.args += [str(a) for a in extra]
        self.ready_timeout = ready_timeout
        self.proc = None
        self.port = None
        self.stderr_file = None
        self.exit_code = None

    def __enter__(self):
        self.stderr_file = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([hail_bin()] + self.args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self.stderr_file,
                                     start_new_session=True)
        try:
            line = self._read_first_line()
            m = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)", line.strip())
            if not m:
                raise AssertionError("hail serve printed %r instead of 'listening on "
                                     "http://127.0.0.1:PORT'; stderr: %s" % (line, self._stderr()))
            self.port = int(m.group(1))
            if not 0 < self.port < 65536:
                raise AssertionError("hail serve reported port %d" % self.port)
        except BaseException:
            self._stop()
            raise
        return self

    def _read_first_line(self):
        result = {}

        def reader():
            result["line"] = self.proc.stdout.readline().decode("utf-8", "replace")

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        t.join(self.ready_timeout)
        if t.is_alive():
            raise AssertionError("hail serve printed no 'listening on' line within %ss; "
                                 "stderr: %s" % (self.ready_timeout, self._stderr()))
        if not result["line"]:
            self.proc.wait(timeout=5)
            raise AssertionError("hail serve exited (status %s) before listening; stderr: %s"
                                 % (self.proc.returncode, self._stderr()))
        return result["line"]

    def _stderr(self):
        if self.stderr_file is None:
            return ""
        self.stderr_file.flush()
        self.stderr_file.seek(0)
        return self.stderr_file.read()[-4000:]

    @property
    def url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    def stats(self):
        """{"requests", "connections", "bytes_sent", ...} from /stats (itself uncounted as a
        request, but its connection is counted: see stats_delta)."""
        if self.proc.poll() is not None:
            raise AssertionError("hail serve died (status %s); stderr: %s"
                                 % (self.proc.returncode, self._stderr()))
        status, body = http_get(self.port, "/stats")
        if status != 200:
            raise AssertionError("/stats answered %d: %r" % (status, body))
        return json.loads(body)

    @staticmethod
    def stats_delta(before, after):
        """Server-side requests and connections between two stats() snapshots, not counting the
        connection the `after` snapshot was read on."""
        return {"requests": after["requests"] - before["requests"],
                "connections": after["connections"] - before["connections"] - 1,
                "bytes_sent": after["bytes_sent"] - before["bytes_sent"]}

    def _stop(self):
        if self.proc is None:
            return
        _kill_group(self.proc, signal.SIGTERM, 10)
        self.exit_code = self.proc.returncode
        if self.proc.stdout:
            self.proc.stdout.close()

    def __exit__(self, exc_type, exc, tb):
        still_running = self.proc.poll() is None
        self._stop()
        err = self._stderr()
        self.stderr_file.close()
        if exc_type is None:
            if not still_running:
                raise AssertionError("hail serve exited by itself during the test (status %s); "
                                     "stderr: %s" % (self.exit_code, err))
            if self.exit_code != 0:
                raise AssertionError("hail serve did not exit 0 on SIGTERM (status %s); "
                                     "stderr: %s" % (self.exit_code, err))
        return False


# --------------------------------------------------------------------------------------------
# nginx

NGINX_LOG_FORMAT = ("$status $request_method $uri $connection $connection_requests "
                    "$server_protocol $http_host $http_x_hail_test $msec")
LogEntry = collections.namedtuple("LogEntry", "status method uri connection connection_requests "
                                              "protocol host x_hail_test msec")

NGINX_CONF = """\
{user}worker_processes 1;
worker_rlimit_nofile {nofile};
daemon off;
master_process on;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;

events {{
    worker_connections 12000;
    multi_accept on;
}}

http {{
    log_format hail_counts '{log_format}';
    access_log {dir}/access.log hail_counts;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    default_type application/octet-stream;
    keepalive_requests 1000000000;
    keepalive_timeout 75s;
    sendfile on;
    tcp_nodelay on;

    server {{
        listen {host}:{port} backlog=4096;
        server_name localhost;
        root {dir}/www;

        location = /nginx_status {{
            stub_status;
            access_log off;
        }}
        location / {{
        }}
    }}
}}
"""

# Static files every Nginx instance serves from its root (name -> size in bytes).
NGINX_FILES = {"1k.bin": 1024, "100.bin": 100, "16k.bin": 16 * 1024}


def nginx_available():
    return os.path.isfile(NGINX) and os.access(NGINX, os.X_OK)


def require_nginx():
    """Nginx is a hard requirement of the tests that use it: a clear failure, never a skip."""
    if not nginx_available():
        raise AssertionError("nginx is not installed (%s is missing): these tests need Debian's "
                             "nginx; `./run test` installs it (apt-get install nginx)" % NGINX)


class Nginx:
    """Debian's nginx in a private temp dir (config, pid, logs, temp paths, static files), on
    127.0.0.1 and a port picked by binding to 0. One worker process. Every request except
    /nginx_status is logged with NGINX_LOG_FORMAT; log_mark()/log_entries() count them, and
    stub_status()/quiesce() read stub_status (each call is one connection and one request,
    which stub_delta() subtracts)."""

    def __init__(self, attempts=5, ready_timeout=10.0):
        self.attempts = attempts
        self.ready_timeout = ready_timeout
        self.dir = None
        self.proc = None
        self.port = None
        self.status_calls = 0

    def __enter__(self):
        require_nginx()
        self.dir = tempfile.mkdtemp(prefix="hail-nginx-")
        try:
            www = os.path.join(self.dir, "www")
            os.mkdir(www)
            for name, size in NGINX_FILES.items():
                with open(os.path.join(www, name), "wb") as f:
                    f.write(bytes((i % 251 for i in range(size))))
            last_error = ""
            for _ in range(self.attempts):
                if self._start(free_port()):
                    return self
                last_error = self.error_log()
            raise AssertionError("nginx did not start in %d attempts; error.log:\n%s"
                                 % (self.attempts, last_error))
        except BaseException:
            self._cleanup()
            raise

    def _start(self, port):
        is_root = os.geteuid() == 0
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        nofile = 30000 if is_root or hard == resource.RLIM_INFINITY else min(30000, hard)
        conf = NGINX_CONF.format(user="user root;\n" if is_root else "", nofile=nofile,
                                 dir=self.dir, log_format=NGINX_LOG_FORMAT, host=LOOPBACK,
                                 port=port)
        conf_path = os.path.join(self.dir, "nginx.conf")
        with open(conf_path, "w") as f:
            f.write(conf)
        for name in ("access.log", "error.log"):
            open(os.path.join(self.dir, name), "w").close()
        self.proc = subprocess.Popen(
            [NGINX, "-p", self.dir + "/", "-e", os.path.join(self.dir, "error.log"),
             "-c", conf_path],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break  # failed (e.g. the port was taken meanwhile): the caller retries
            try:
                status, _ = http_get(port, "/nginx_status", timeout=1)
                if status == 200:
                    self.port = port
                    self.status_calls = 1
                    return True
            except OSError:
                pass
            time.sleep(0.02)
        _kill_group(self.proc, signal.SIGTERM, 5)
        self.proc = None
        return False

    @property
    def url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    def error_log(self):
        try:
            with open(os.path.join(self.dir, "error.log")) as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    # -- access log
    def log_mark(self):
        """The current end of the access log; log_entries(mark) returns what came after."""
        return os.path.getsize(os.path.join(self.dir, "access.log"))

    def log_entries(self, mark=0):
        with open(os.path.join(self.dir, "access.log"), "rb") as f:
            f.seek(mark)
            data = f.read().decode("utf-8", "replace")
        entries = []
        for line in data.splitlines():
            fields = line.split(" ")
            if len(fields) != len(LogEntry._fields):
                raise AssertionError("unexpected access-log line %r" % line)
            entries.append(LogEntry(int(fields[0]), fields[1], fields[2], int(fields[3]),
                                    int(fields[4]), *fields[5:8], float(fields[8])))
        return entries

    # -- stub_status
    def stub_status(self):
        """{"active", "accepts", "handled", "requests", "reading", "writing", "waiting",
        "calls"}: calls counts stub_status requests so far, this one included."""
        if self.proc is None or self.proc.poll() is not None:
            raise AssertionError("nginx is not running; error.log:\n%s" % self.error_log())
        status, body = http_get(self.port, "/nginx_status")
        self.status_calls += 1
        text = body.decode()
        if status != 200:
            raise AssertionError("stub_status answered %d: %r" % (status, text))
        m = re.search(r"Active connections:\s*(\d+)\s+server accepts handled requests\s+"
                      r"(\d+)\s+(\d+)\s+(\d+)\s+Reading:\s*(\d+)\s+Writing:\s*(\d+)\s+"
                      r"Waiting:\s*(\d+)", text)
        if not m:
            raise AssertionError("cannot parse stub_status: %r" % text)
        keys = ("active", "accepts", "handled", "requests", "reading", "writing", "waiting")
        snap = dict(zip(keys, map(int, m.groups())))
        snap["calls"] = self.status_calls
        return snap

    def quiesce(self, timeout=10.0):
        """Waits until nginx has no connection but the stub_status one (so every request of a
        finished client has been logged: nginx logs a request before it closes or parks its
        connection) and returns that stub_status snapshot."""
        return wait_until(lambda: (lambda s: s if s["active"] == 1 else None)(self.stub_status()),
                          timeout, interval=0.05, what="nginx to close every client connection")

    @staticmethod
    def stub_delta(before, after):
        """Accepted connections and requests between two snapshots, without the stub_status
        calls made after `before` (each one connection and one request)."""
        calls = after["calls"] - before["calls"]
        return {"accepts": after["accepts"] - before["accepts"] - calls,
                "requests": after["requests"] - before["requests"] - calls}

    def _cleanup(self):
        if self.proc is not None:
            _kill_group(self.proc, signal.SIGTERM, 10)
            self.proc = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __exit__(self, exc_type, exc, tb):
        self._cleanup()
        return False


# --------------------------------------------------------------------------------------------
# A misbehaving server


from hostile import HostileServer  # noqa: E402,F401  (re-exported for the tests)
