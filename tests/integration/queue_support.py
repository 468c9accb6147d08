"""The queueing test server (tests/tools/queue_server.cc) for integration tests: a server whose
capacity is known by construction (one FIFO queue, K servers, each request served for a fixed or
exponential time, its response sent at its computed completion time).

  queue_server_bin()   the binary: $QUEUE_SERVER_BIN (set by ctest), else the newest build's
  QueueServer(...)     `queue_server --port 0 ...` as a context manager; .port, .url, .stats()
                       (GET /__stats), and .final (the JSON it prints on SIGTERM at the exit)
"""

import glob
import json
import os
import signal
import subprocess
import tempfile

from support import LOOPBACK, REPO, _kill_group, http_get, read_line_within


def queue_server_bin():
    """Path of queue_server: $QUEUE_SERVER_BIN, else the newest build/*/tests/tools/queue_server."""
    env = os.environ.get("QUEUE_SERVER_BIN")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise AssertionError("QUEUE_SERVER_BIN=%r is not an executable file" % env)
        return env
    found = [p for p in glob.glob(os.path.join(REPO, "build", "*", "tests", "tools",
                                               "queue_server"))
             if os.path.isfile(p) and os.access(p, os.X_OK)]
    if not found:
        raise AssertionError("no queue_server binary: set QUEUE_SERVER_BIN or build the "
                             "queue_server target")
    return max(found, key=os.path.getmtime)


class QueueServer:
    """`queue_server --host 127.0.0.1 --port 0 --service-us N --dist D --seed S --servers K` for
    the duration of a `with` block. The first stdout line must be "port P". On exit the server
    gets SIGTERM and must print its statistics (one JSON line, kept in .final) and exit 0 within
    10 s; otherwise, unless the block already failed, an AssertionError is raised."""

    def __init__(self, service_us=1000, dist="fixed", seed=1, servers=1, ready_timeout=10.0):
        self.args = ["--host", LOOPBACK, "--port", "0", "--service-us", str(service_us),
                     "--dist", dist, "--seed", str(seed), "--servers", str(servers)]
        self.ready_timeout = ready_timeout
        self.proc = None
        self.port = None
        self.final = None
        self.stderr_file = None

    @property
    def url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    def __enter__(self):
        self.stderr_file = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([queue_server_bin()] + self.args, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self.stderr_file,
                                     start_new_session=True)
        try:
            line = read_line_within(self.proc.stdout, self.ready_timeout)
            if line is None or not line.startswith("port "):
                raise AssertionError("queue_server printed %r instead of 'port P'; stderr: %s"
                                     % (line, self._stderr()))
            self.port = int(line.split()[1])
            if not 0 < self.port < 65536:
                raise AssertionError("queue_server reported port %d" % self.port)
        except BaseException:
            _kill_group(self.proc, signal.SIGKILL, 1)
            raise
        return self

    def _stderr(self):
        self.stderr_file.flush()
        self.stderr_file.seek(0)
        return self.stderr_file.read()[-4000:]

    def stats(self):
        """The server's counters and sojourn percentiles (GET /__stats, answered outside the
        queue and counted nowhere)."""
        if self.proc.poll() is not None:
            raise AssertionError("queue_server died (status %s); stderr: %s"
                                 % (self.proc.returncode, self._stderr()))
        status, body = http_get(self.port, "/__stats")
        if status != 200:
            raise AssertionError("/__stats answered %d: %r" % (status, body))
        return json.loads(body)

    def __exit__(self, exc_type, exc, tb):
        still_running = self.proc.poll() is None
        out = b""
        if still_running:
            self.proc.send_signal(signal.SIGTERM)
            try:
                out, _ = self.proc.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        _kill_group(self.proc, signal.SIGKILL, 1)
        code = self.proc.returncode
        err = self._stderr()
        self.stderr_file.close()
        if self.proc.stdout:
            self.proc.stdout.close()
        lines = out.decode("utf-8", "replace").strip().splitlines()
        if lines:
            try:
                self.final = json.loads(lines[-1])
            except ValueError:
                self.final = None
        if exc_type is None:
            if not still_running:
                raise AssertionError("queue_server exited by itself (status %s); stderr: %s"
                                     % (code, err))
            if code != 0 or self.final is None:
                raise AssertionError("queue_server did not exit 0 with its JSON statistics on "
                                     "SIGTERM (status %s, stdout %r); stderr: %s"
                                     % (code, out[-2000:], err))
        return False
