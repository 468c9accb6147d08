"""Shared helpers of hail's integration tests (Python 3 standard library only).

Everything here talks to 127.0.0.1 only, and every process or wait is bounded in time:
  hail_bin()          the binary under test ($HAIL_BIN, else the newest build/*/hail)
  run_hail(args)      runs hail with a hard timeout; HailRun(code, stdout, stderr, json, seconds)
  check_accounting()  asserts hail's request accounting invariant exactly
  HailServer          `hail serve --port 0` as a context manager, with /stats snapshots
  Nginx               Debian's nginx in its own temp dir: access-log counts and stub_status
  HostileServer       a tiny misbehaving HTTP server in a thread (truncated body, garbage, silence)
  free_port()         a loopback port that was free a moment ago (bind to 0, close)
  make_self_signed()  a throw-away certificate for 127.0.0.1; write_files() static files to serve
"""

import collections
import glob
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOOPBACK = "127.0.0.1"
NGINX = "/usr/sbin/nginx"

# The error classes of hail's JSON report that consume a request (connect errors carry none).
REQUEST_ERROR_CLASSES = ("read", "write", "timeout", "parse", "stream")


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


def run_hail(args, timeout=30, expect_json=None, program=None):
    """Runs `hail ARGS` with a hard timeout (the process is killed if it overruns, and the test
    fails). Returns HailRun(code, stdout, stderr, json, seconds); json is the parsed report when
    `--json -` is among the arguments (then stdout must be exactly one JSON document). program:
    the path to start instead of hail_bin() (a link to it, see run_as)."""
    args = [str(a) for a in args]
    if expect_json is None:
        expect_json = any(a == "--json" and i + 1 < len(args) and args[i + 1] == "-"
                          for i, a in enumerate(args)) or "--json=-" in args
    cmd = [program or hail_bin()] + args
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


def run_as(name, args, timeout=30):
    """hail started through a link named NAME (what ./run install-aliases makes), as run_hail."""
    with tempfile.TemporaryDirectory(prefix="hail_as_") as tmp:
        link = os.path.join(tmp, name)
        os.symlink(os.path.abspath(hail_bin()), link)
        return run_hail(args, timeout=timeout, program=link)


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
    attempted == completed + read + write + timeout + parse - unsolicited + in_flight + retried
    (unsolicited parse errors consume no request; a retried send is settled by its next send),
    status errors are a part of completed, every completed response has a status code and a
    latency sample, and the report's own accounting_ok agrees."""
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
    retried = req.get("retried", 0)
    unsolicited = req.get("unsolicited", 0)
    if unsolicited > err["parse"]:
        raise AssertionError("unsolicited exceeds the parse errors it is part of: %s" % where)
    total = (req["completed"] + sum(err[k] for k in REQUEST_ERROR_CLASSES) - unsolicited
             + req["in_flight"] + retried)
    if req["attempted"] != total:
        raise AssertionError("accounting broken: attempted %d != completed + read + write + "
                             "timeout + parse - unsolicited + in_flight + retried = %d: %s"
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


def make_self_signed(directory, name="localhost"):
    """cert.pem and key.pem in `directory`: a throw-away self-signed pair (openssl CLI)."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=" + name,
                    "-addext", "subjectAltName=DNS:%s,DNS:localhost,IP:127.0.0.1" % name,
                    "-keyout", os.path.join(directory, "key.pem"),
                    "-out", os.path.join(directory, "cert.pem")],
                   check=True, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    return os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")


def write_files(directory, files):
    """Writes each {name: size} file in `directory`, its bytes 0, 1, ..., 250 repeated."""
    for name, size in files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(bytes((i % 251 for i in range(size))))


def http_get(port, path, timeout=5.0):
    """GET http://127.0.0.1:PORT/PATH on a fresh connection (no proxy). Returns (status, body)."""
    conn = http.client.HTTPConnection(LOOPBACK, port, timeout=timeout)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def read_line_within(stream, timeout):
    """The first line of a process's output pipe as text ("" at EOF), or None when no line came
    within timeout seconds (the reading thread is left behind, a daemon)."""
    result = {}

    def reader():
        result["line"] = stream.readline().decode("utf-8", "replace")

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    t.join(timeout)
    return None if t.is_alive() else result["line"]


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

    tls=True: the server speaks TLS (--tls-self-signed is added unless `extra` names a certificate
    or already has it; clients must not verify: HailServer.ssl_context() makes a context that does
    not). unix_socket=PATH (or True: a fresh path in a temp dir) listens on that Unix socket
    instead of a port (no --host/--port; the server removes the file when it stops); .unix_socket
    is the path.
    .port is parsed from the first stdout line, "listening on http://127.0.0.1:PORT" ("https://"
    with TLS); with a Unix socket the line is "listening on http://localhost (unix socket PATH)"
    and .port is None. .url is "http(s)://127.0.0.1:PORT", or "http(s)://localhost" with a Unix
    socket (the URL a client uses together with the socket path).
    get(path) and stats() read on a fresh HTTP/1.1 connection (over TLS and the Unix socket when
    the server uses them), which the server counts as one accepted connection but, for /stats, not
    as a request. With TLS each such read is also a (full) handshake: stats() takes the handshakes
    of every get() so far out of "tls_handshakes", which then counts other clients' only.
    On exit the server gets SIGTERM and must exit 0 within 10 s (else it is killed and, unless
    the block already failed, an AssertionError is raised)."""

    def __init__(self, *extra, threads=1, ready_timeout=10.0, tls=False, unix_socket=None):
        extra = [str(a) for a in extra]
        self.tls = tls or "--tls-self-signed" in extra or any(
            a == "--tls-cert" or a.startswith("--tls-cert=") for a in extra)
        self.socket_dir = None
        if unix_socket is True:
            self.socket_dir = tempfile.mkdtemp(prefix="hail_serve_")
            unix_socket = os.path.join(self.socket_dir, "hail.sock")
        self.unix_socket = str(unix_socket) if unix_socket else None
        if self.unix_socket:
            self.args = ["serve", "--unix-socket", self.unix_socket]
        else:
            self.args = ["serve", "--host", LOOPBACK, "--port", "0"]
        self.args += ["--threads", str(threads)]
        if self.tls and "--tls-self-signed" not in extra and not any(
                a.startswith("--tls-cert") for a in extra):
            self.args.append("--tls-self-signed")
        self.args += extra
        self.ready_timeout = ready_timeout
        self.proc = None
        self.port = None
        self.stderr_file = None
        self.exit_code = None
        self.own_tls_handshakes = 0  # made by get() (and so stats())

    @property
    def scheme(self):
        return "https" if self.tls else "http"

    def __enter__(self):
        self.stderr_file = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([hail_bin()] + self.args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self.stderr_file,
                                     start_new_session=True)
        try:
            line = self._read_first_line().strip()
            if self.unix_socket:
                expected = "listening on %s://localhost (unix socket %s)" % (self.scheme,
                                                                             self.unix_socket)
                if line != expected:
                    raise AssertionError("hail serve printed %r instead of %r; stderr: %s"
                                         % (line, expected, self._stderr()))
            else:
                m = re.fullmatch(r"listening on %s://127\.0\.0\.1:(\d+)" % self.scheme, line)
                if not m:
                    raise AssertionError("hail serve printed %r instead of 'listening on "
                                         "%s://127.0.0.1:PORT'; stderr: %s"
                                         % (line, self.scheme, self._stderr()))
                self.port = int(m.group(1))
                if not 0 < self.port < 65536:
                    raise AssertionError("hail serve reported port %d" % self.port)
        except BaseException:
            self._stop()
            raise
        return self

    def _read_first_line(self):
        line = read_line_within(self.proc.stdout, self.ready_timeout)
        if line is None:
            raise AssertionError("hail serve printed no 'listening on' line within %ss; "
                                 "stderr: %s" % (self.ready_timeout, self._stderr()))
        if not line:
            self.proc.wait(timeout=5)
            raise AssertionError("hail serve exited (status %s) before listening; stderr: %s"
                                 % (self.proc.returncode, self._stderr()))
        return line

    def _stderr(self):
        if self.stderr_file is None:
            return ""
        self.stderr_file.flush()
        self.stderr_file.seek(0)
        return self.stderr_file.read()[-4000:]

    @property
    def url(self):
        if self.unix_socket:
            return "%s://localhost" % self.scheme
        return "%s://%s:%d" % (self.scheme, LOOPBACK, self.port)

    @staticmethod
    def ssl_context():
        """A client TLS context that accepts the server's self-signed certificate (HTTP/1.1)."""
        import ssl
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.set_alpn_protocols(["http/1.1"])
        return context

    def get(self, path, timeout=5.0):
        """GET PATH on a fresh HTTP/1.1 connection to this server (TLS, Unix socket as needed).
        Returns (status, body)."""
        if not self.tls and not self.unix_socket:
            return http_get(self.port, path, timeout)
        context = self.ssl_context() if self.tls else None
        if self.unix_socket:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            try:
                sock.connect(self.unix_socket)
                if context is not None:
                    sock = context.wrap_socket(sock, server_hostname="localhost")
            except BaseException:
                sock.close()
                raise
            conn = http.client.HTTPConnection("localhost", timeout=timeout)
            conn.sock = sock  # already connected: http.client uses it as it is
        else:
            conn = http.client.HTTPSConnection(LOOPBACK, self.port, timeout=timeout,
                                               context=context)
        try:
            conn.request("GET", path)
            if self.tls:
                self.own_tls_handshakes += 1  # the request went out: the handshake is done
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def stats(self):
        """{"requests", "connections", "bytes_sent", "rejected_connections", "tls_handshakes",
        "tls_resumed", "h2_connections", "h2_streams"} from /stats (itself uncounted as a
        request, but its connection is counted: see stats_delta)."""
        if self.proc.poll() is not None:
            raise AssertionError("hail serve died (status %s); stderr: %s"
                                 % (self.proc.returncode, self._stderr()))
        status, body = self.get("/stats")
        if status != 200:
            raise AssertionError("/stats answered %d: %r" % (status, body))
        stats = json.loads(body)
        if "tls_handshakes" in stats:
            stats["tls_handshakes"] -= self.own_tls_handshakes  # never resumed: fresh contexts
        return stats

    @staticmethod
    def stats_delta(before, after):
        """Server-side requests and connections between two stats() snapshots, not counting the
        connection the `after` snapshot was read on (TLS handshakes of stats() are left out by
        stats() itself)."""
        delta = {"requests": after["requests"] - before["requests"],
                 "connections": after["connections"] - before["connections"] - 1,
                 "bytes_sent": after["bytes_sent"] - before["bytes_sent"]}
        if "h2_streams" in after and "h2_streams" in before:
            delta["h2_connections"] = after["h2_connections"] - before["h2_connections"]
            delta["h2_streams"] = after["h2_streams"] - before["h2_streams"]
            delta["tls_handshakes"] = after["tls_handshakes"] - before["tls_handshakes"]
            delta["tls_resumed"] = after["tls_resumed"] - before["tls_resumed"]
        return delta

    def _stop(self):
        if self.proc is None:
            return
        _kill_group(self.proc, signal.SIGTERM, 10)
        self.exit_code = self.proc.returncode
        if self.proc.stdout:
            self.proc.stdout.close()
        if self.socket_dir is not None:
            shutil.rmtree(self.socket_dir, ignore_errors=True)

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
# A misbehaving server


from hostile import HostileServer  # noqa: E402,F401  (re-exported for the tests)
from nginx_server import (LogEntry, Nginx, NginxTestCase,  # noqa: E402,F401
                          nginx_available, require_nginx)

# error_reasons keys of timeouts (src/load/connection_recovery.cc).
TIMEOUT_CLOSED = "timeout: no complete response within --timeout (connection closed)"
TIMEOUT_RESET = "timeout: no complete response within --timeout (stream reset)"


class ServerTestCase(unittest.TestCase):
    """One `hail serve` (two threads, .server) and a scratch directory (.dir) per test class."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="hail-test-")
        cls.server = HailServer(threads=2).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)
        shutil.rmtree(cls.dir, ignore_errors=True)
