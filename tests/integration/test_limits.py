"""Resource limits around a run: the file-descriptor limit (hail and `hail serve` under
prlimit) and the ephemeral-port range (narrowed in a network namespace of its own). Every count
is checked against what can be known exactly; everything is bounded in time and cleaned up.
"""

import json
import os
import shutil
import socket
import subprocess
import time
import unittest

from faults_support import ServeProcess, nonzero, reasons_of
from support import LOOPBACK, HailServer, check_accounting, free_port, hail_bin, summary, wait_until

EADDRNOTAVAIL_REASON = "connect: Cannot assign requested address"
PRLIMIT = shutil.which("prlimit")


# --------------------------------------------------------------------------------------------
# 1. The file-descriptor limit (hail under prlimit)


@unittest.skipUnless(PRLIMIT, "prlimit (util-linux) is not installed")
class FdLimitTest(unittest.TestCase):
    # Every way to ask for more connections than 256 descriptors allow: refused before anything
    # starts (test_cli.py checks the plain -c case with setrlimit).
    BEYOND = [
        ("-c", ["-c", "5000", "-d", "5s"]),
        ("-c with threads", ["-c", "300", "-t", "4", "-d", "5s"]),
        ("--max-connections", ["-R", "100", "-c", "10", "--max-connections", "5000", "-d", "5s"]),
        ("--stages peak", ["--stages", "1s:10,4s:5000"]),
        ("--ladder top", ["--ladder", "1000:1000:5000", "--step-duration", "1s"]),
    ]

    def prlimited(self, args, nofile=256, timeout=30):
        cmd = [PRLIMIT, "--nofile=%d:%d" % (nofile, nofile), hail_bin()] + [str(a) for a in args]
        start = time.monotonic()
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
        return proc, time.monotonic() - start

    def test_beyond_the_limit_is_refused_before_starting(self):
        port = free_port()  # nothing listens: a run that started would fail differently
        for name, args in self.BEYOND:
            with self.subTest(name):
                proc, seconds = self.prlimited(args + ["-q", "http://127.0.0.1:%d/" % port])
                self.assertEqual(proc.returncode, 1, proc.stderr)
                lines = proc.stderr.splitlines()
                self.assertEqual(len(lines), 1, proc.stderr)
                self.assertTrue(lines[0].startswith("hail: "), lines[0])
                self.assertIn("RLIMIT_NOFILE allows 256", lines[0])
                self.assertIn("ulimit -n", lines[0])
                self.assertEqual(proc.stdout, "", "nothing ran, so no report")
                self.assertLess(seconds, 3.0, "refused only after %.1fs" % seconds)

    def test_within_the_limit_runs(self):
        # 100 connections + descriptor slack fit in 256: the check must not be stricter.
        with HailServer() as srv:
            proc, _ = self.prlimited(["-c", "100", "-t", "1", "-n", "1000", "--json", "-", "-q",
                                      srv.url + "/bytes/10"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        r = json.loads(proc.stdout)
        check_accounting(r)
        self.assertEqual(r["requests"]["completed"], 1000, summary(r))
        self.assertEqual(r["connections_opened"], 100, summary(r))

    def test_serve_sheds_connections_beyond_its_descriptors(self):
        """hail serve with 32 descriptors: it warns at start, accepts what it can hold, and
        closes the rest at once (counted in rejected_connections) instead of leaving them
        hanging in the backlog; it serves again once descriptors are free."""
        clients = []
        with ServeProcess(prefix=[PRLIMIT, "--nofile=32:32"]) as srv:
            self.assertIn("warning", srv.stderr())
            for _ in range(40):
                s = socket.create_connection((LOOPBACK, srv.port), timeout=5)
                clients.append(s)
            for s in clients:
                s.sendall(b"GET /bytes/1 HTTP/1.1\r\nHost: x\r\n\r\n")
            served, shed = [], 0
            for s in clients:
                data = b""
                try:
                    while not data.endswith(b"\r\n\r\na"):
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        data += chunk
                except ConnectionResetError:
                    pass
                if data.endswith(b"\r\n\r\na"):
                    served.append(s)
                else:
                    self.assertEqual(data, b"", "a shed connection got part of an answer")
                    shed += 1
            for s in clients:
                s.close()
            failed_reads = []

            def stats():
                try:
                    return srv.stats()
                except OSError as e:  # descriptors not yet given back: shed as well
                    failed_reads.append(e)
                    return None

            after = wait_until(stats, 5, interval=0.1, what="/stats to be served again")
        self.assertGreaterEqual(len(served), 10, "only %d of 40 served" % len(served))
        self.assertGreaterEqual(shed, 1, "all 40 served with 32 descriptors?")
        self.assertEqual(len(served) + shed, 40)
        self.assertEqual(after["connections"], len(served) + 1, after)
        self.assertGreaterEqual(after["rejected_connections"], shed, after)
        self.assertLessEqual(after["rejected_connections"], shed + len(failed_reads), after)
        self.assertEqual(after["requests"], len(served), after)


# --------------------------------------------------------------------------------------------
# 2. Beyond the ephemeral-port range (a network namespace of its own)


def netns_mode():
    """How this machine lets us make a network namespace: "root" (unshare -n), "user"
    (unshare -rn: a user namespace too), or None."""
    if not (shutil.which("unshare") and shutil.which("nsenter") and shutil.which("ip")):
        return None
    for mode, flags in (("root", "-n"), ("user", "-rn")):
        try:
            probe = subprocess.run(["unshare", flags, "sh", "-c", "ip link set lo up"],
                                   capture_output=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return mode
    return None


NETNS = netns_mode()

# Fetches /stats from inside the namespace from a fixed source port (outside the narrowed
# ephemeral range, so it works even when the range is used up).
STATS_PROBE = r"""
import socket, sys
port, source = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket()
s.settimeout(5)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", source))
s.connect(("127.0.0.1", port))
s.sendall(b"GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
data = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
sys.stdout.write(data.split(b"\r\n\r\n", 1)[1].decode())
"""


class NetNamespace:
    """A fresh network namespace held by a `sleep`; commands run in it through nsenter."""

    def __enter__(self):
        flags = "-n" if NETNS == "root" else "-rn"
        self.holder = subprocess.Popen(["unshare", flags, "sleep", "300"],
                                       stdin=subprocess.DEVNULL, start_new_session=True)
        pid = self.holder.pid
        ours = os.readlink("/proc/self/ns/net")

        def entered():
            try:
                return os.readlink("/proc/%d/ns/net" % pid) != ours
            except OSError:
                return False

        try:
            wait_until(entered, 5, what="the namespace holder")
            self.prefix = ["nsenter", "-t", str(pid), "-n"] + (["-U"] if NETNS == "user" else [])
            self.run("ip", "link", "set", "lo", "up")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        self.probes = 0
        return self

    def run(self, *cmd):
        subprocess.run(self.prefix + list(cmd), check=True, capture_output=True, timeout=10)

    def sysctl(self, key, value):
        self.run("sh", "-c", "echo '%s' > /proc/sys/%s" % (value, key.replace(".", "/")))

    def stats(self, port):
        self.probes += 1
        out = subprocess.run(self.prefix + ["python3", "-c", STATS_PROBE, str(port),
                                            str(45000 + self.probes)],
                             check=True, capture_output=True, text=True, timeout=10).stdout
        return json.loads(out)

    def hail(self, args, timeout=30):
        cmd = self.prefix + [hail_bin()] + [str(a) for a in args]
        start = time.monotonic()
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=timeout)
        return proc, time.monotonic() - start

    def __exit__(self, *exc):
        if self.holder.poll() is None:
            self.holder.kill()
        self.holder.wait(timeout=10)
        return False


@unittest.skipUnless(NETNS, "cannot create a network namespace here (unshare -n / -rn failed, "
                            "or unshare, nsenter or ip is missing)")
class EphemeralPortTest(unittest.TestCase):
    """ip_local_port_range narrowed to 100 ports in a namespace of our own; the server listens
    on port 8080, outside the range, so only hail's connects need ephemeral ports."""
    PORT = 8080
    RANGE = "40000 40099"
    C = 150

    def run_in_namespace(self, extra):
        with NetNamespace() as ns:
            ns.sysctl("net.ipv4.ip_local_port_range", self.RANGE)
            with ServeProcess(port=self.PORT, prefix=ns.prefix):
                before = ns.stats(self.PORT)
                proc, seconds = ns.hail(["-c", self.C, "-t", "1", "-d", "2s", "--timeout", "2s",
                                         "-q", "--json", "-"] + extra
                                        + ["http://127.0.0.1:%d/bytes/10" % self.PORT])
                after = ns.stats(self.PORT)
        try:
            r = json.loads(proc.stdout)
        except ValueError:
            self.fail("exit %d, stdout %r, stderr %r" % (proc.returncode, proc.stdout[:2000],
                                                         proc.stderr[:2000]))
        msg = "%s\nstderr: %s\nserver before %s after %s" % (summary(r), proc.stderr, before,
                                                              after)
        self.assertEqual(proc.returncode, 0, msg)
        self.assertLess(seconds, 8.0, "a 2 s run took %.1fs: %s" % (seconds, msg))
        check_accounting(r, msg)
        delta = {"requests": after["requests"] - before["requests"],
                 "connections": after["connections"] - before["connections"] - 1}
        return r, delta, msg

    def test_keepalive_connections_beyond_the_port_range(self):
        """150 keep-alive connections, 100 ports: exactly 100 connect, the other 50 fail with
        EADDRNOTAVAIL (and keep retrying with backoff) for the whole run."""
        r, delta, msg = self.run_in_namespace([])
        errors = r["errors"]
        self.assertEqual(r["connections_opened"], 100, msg)
        self.assertEqual(delta["connections"], 100, msg)
        self.assertGreaterEqual(errors["connect"], self.C - 100, msg)
        self.assertEqual(r["error_reasons"], {EADDRNOTAVAIL_REASON: errors["connect"]}, msg)
        self.assertEqual(nonzero(errors), {"connect": errors["connect"]}, msg)
        req = r["requests"]
        self.assertGreater(req["completed"], 0, msg)
        self.assertLessEqual(req["in_flight"], 100, msg)
        self.assertGreaterEqual(delta["requests"], req["completed"], msg)
        self.assertLessEqual(delta["requests"], req["completed"] + req["in_flight"], msg)

    def test_no_keepalive_beyond_the_port_range(self):
        """A new connection per request, 150 at once over 100 ports: the connects beyond the
        range fail with EADDRNOTAVAIL (at least 50 at the start, with one thread), ports are
        reused as connections close, the run ends on time with exact accounting."""
        r, delta, msg = self.run_in_namespace(["--no-keepalive"])
        errors = r["errors"]
        req = r["requests"]
        self.assertGreaterEqual(reasons_of(r, "connect").get(EADDRNOTAVAIL_REASON, 0),
                                self.C - 100, msg)
        self.assertEqual(set(nonzero(errors)), {"connect"}, msg)
        self.assertGreater(req["completed"], self.C, msg)
        self.assertGreaterEqual(r["connections_opened"], req["completed"], msg)
        # The server may have accepted a few connects still in progress when the run stopped.
        self.assertGreaterEqual(delta["connections"], r["connections_opened"], msg)
        self.assertLessEqual(delta["connections"], r["connections_opened"] + self.C, msg)
        self.assertGreaterEqual(delta["requests"], req["completed"], msg)
        self.assertLessEqual(delta["requests"], req["completed"] + req["in_flight"], msg)


if __name__ == "__main__":
    unittest.main()
