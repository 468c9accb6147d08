"""Helpers of the fault and resource-limit tests (test_faults.py, test_limits.py): ServeProcess
(`hail serve` on a chosen port, which the test may stop or kill, optionally behind prlimit or
nsenter), stopping a process for sure, the kernel's view of TCP sockets, hail in the background,
and report helpers. Python 3 standard library only; everything is bounded in time.
"""

import json
import os
import re
import signal
import subprocess
import tempfile

from support import LOOPBACK, hail_bin, http_get, read_line_within, wait_until

TCP_ESTABLISHED = 1


class ServeProcess:
    """`hail serve --host 127.0.0.1 --port PORT --threads 1 [extra]`, optionally behind a command
    prefix (prlimit, nsenter). Unlike HailServer it may be killed or stopped by the test: on exit
    a server the test killed is only cleaned up, a live one gets SIGCONT and SIGTERM and must exit
    0. .pid is hail's own pid (prlimit and nsenter exec it)."""

    def __init__(self, *extra, port=0, prefix=(), ready_timeout=10.0):
        self.cmd = list(prefix) + [hail_bin(), "serve", "--host", LOOPBACK, "--port", str(port),
                                   "--threads", "1"] + [str(a) for a in extra]
        self.ready_timeout = ready_timeout
        self.proc = None
        self.port = None
        self.killed = False
        self.stderr_file = None

    @property
    def pid(self):
        return self.proc.pid

    @property
    def url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    def start(self):
        self.stderr_file = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=self.stderr_file, start_new_session=True)
        line = read_line_within(self.proc.stdout, self.ready_timeout) or ""
        m = re.fullmatch(r"listening on http://127\.0\.0\.1:(\d+)", line.strip())
        if not m:
            self._cleanup()
            raise AssertionError("%s printed %r instead of 'listening on ...'; stderr: %s"
                                 % (" ".join(self.cmd), line, self.stderr()))
        self.port = int(m.group(1))
        return self

    def stderr(self):
        if self.stderr_file is None:
            return ""
        self.stderr_file.flush()
        self.stderr_file.seek(0)
        return self.stderr_file.read()[-4000:]

    def stats(self):
        if self.proc.poll() is not None:
            raise AssertionError("hail serve died (status %s); stderr: %s"
                                 % (self.proc.returncode, self.stderr()))
        status, body = http_get(self.port, "/stats")
        if status != 200:
            raise AssertionError("/stats answered %d: %r" % (status, body))
        return json.loads(body)

    def kill(self):
        """SIGKILL (works on a stopped process too) and reap."""
        self.killed = True
        try:
            os.kill(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=10)

    def _cleanup(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait(timeout=10)
        self.proc.stdout.close()

    def __enter__(self):
        return self if self.proc is not None else self.start()

    def __exit__(self, exc_type, exc, tb):
        try:
            if self.killed or self.proc.poll() is not None:
                if exc_type is None and not self.killed:
                    raise AssertionError("hail serve exited by itself (status %s); stderr: %s"
                                         % (self.proc.returncode, self.stderr()))
                return False
            try:
                os.kill(self.proc.pid, signal.SIGCONT)
                self.proc.send_signal(signal.SIGTERM)
                code = self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                code = None
            if exc_type is None and code != 0:
                raise AssertionError("hail serve did not exit 0 on SIGTERM (status %s); "
                                     "stderr: %s" % (code, self.stderr()))
            return False
        finally:
            self._cleanup()
            self.stderr_file.close()


def stop_process(pid):
    """SIGSTOP, and wait until every thread of `pid` has really stopped: the signal is delivered
    asynchronously, and a thread still running could answer (or send) one more request."""
    os.kill(pid, signal.SIGSTOP)

    def all_stopped():
        for task in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/stat" % (pid, task)) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue  # a thread that just exited
            if state not in ("T", "t"):
                return False
        return True

    wait_until(all_stopped, 5, interval=0.005, what="process %d to stop" % pid)


def tcp_sockets(port):
    """IPv4 TCP sockets of this network namespace with `port` at either end, as tuples
    (local_port, remote_port, state, tx_queue, rx_queue) from /proc/net/tcp. rx_queue is what the
    owner has not read yet, tx_queue what the peer has not acknowledged."""
    found = []
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            remote_port = int(fields[2].rsplit(":", 1)[1], 16)
            if port not in (local_port, remote_port):
                continue
            tx, rx = (int(x, 16) for x in fields[4].split(":"))
            found.append((local_port, remote_port, int(fields[3], 16), tx, rx))
    return found


def server_side(port):
    """Established sockets the server on `port` accepted: (tx_queue, rx_queue) each."""
    return [(tx, rx) for lp, _, st, tx, rx in tcp_sockets(port)
            if lp == port and st == TCP_ESTABLISHED]


def start_hail(args):
    """hail ARGS in the background (stdout and stderr captured as text)."""
    return subprocess.Popen([hail_bin()] + [str(a) for a in args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc, timeout):
    """Waits for a background hail; kills it (and fails) if it overruns. Returns (out, err)."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate(timeout=5)
        raise AssertionError("hail did not finish within %ss (killed)\nstdout: %s\nstderr: %s"
                             % (timeout, out[-2000:], err[-2000:])) from None


def reap(proc):
    """Kills a background process the test left running (after a failure) and reaps it."""
    if proc is not None and proc.poll() is None:
        try:
            os.kill(proc.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        proc.kill()
        proc.communicate(timeout=5)


def one_report(test, proc, out, err):
    """The JSON report hail printed with --json -: stdout must be exactly one document."""
    try:
        return json.loads(out)
    except ValueError:
        test.fail("hail exited %s and stdout is not one JSON document\nstdout: %r\nstderr: %r"
                  % (proc.returncode, out[:2000], err[:2000]))


def nonzero(errors):
    return {k: v for k, v in errors.items() if v}


def reasons_of(report, error_class):
    return {k: v for k, v in report["error_reasons"].items()
            if k.startswith(error_class + ": ")}
