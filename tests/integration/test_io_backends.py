"""--io: the io_uring and epoll backends, the choice reported (--version, JSON), HAIL_IO, and the
fallback when io_uring is forbidden (a seccomp filter, as container runtimes install, makes
io_uring_setup fail with EPERM). Server-side counts, not only hail's own."""

import ctypes
import json
import os
import platform
import struct
import subprocess
import unittest

from support import HailServer, NginxTestCase, check_accounting, describe, hail_bin, run_hail

# x86-64 syscall numbers of io_uring_setup, io_uring_enter, io_uring_register.
IO_URING_SYSCALLS = (425, 426, 427)
AUDIT_ARCH_X86_64 = 0xC000003E


def forbid_io_uring():
    """preexec_fn: installs a seccomp filter that fails the io_uring system calls with EPERM
    (what Docker's default profile does), for this child and what it execs."""
    libc = ctypes.CDLL(None, use_errno=True)
    ld_arch, ld_nr, jeq, ret = 0x20, 0x20, 0x15, 0x06
    errno_eperm = 0x00050000 | 1
    allow = 0x7FFF0000
    n = len(IO_URING_SYSCALLS)
    # [0] A = arch; [1] arch != x86-64: allow; [2] A = nr; [3..] nr == io_uring_*: EPERM; allow.
    prog = [(ld_arch, 0, 0, 4), (jeq, 1, 0, AUDIT_ARCH_X86_64), (ld_nr, 0, 0, 0)]
    for i, nr in enumerate(IO_URING_SYSCALLS):
        prog.append((jeq, n - i, 0, nr))  # jump to the EPERM return past the rest and the allow
    prog += [(ret, 0, 0, allow), (ret, 0, 0, errno_eperm)]
    # The arch mismatch jumps over the nr load and the checks to the allow: patch its offset.
    prog[1] = (jeq, 0, 1 + n + 0, AUDIT_ARCH_X86_64)
    raw = b"".join(struct.pack("HBBI", *f) for f in prog)
    buf = ctypes.create_string_buffer(raw)

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog), ctypes.addressof(buf))
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
    if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
        raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")


def auto_env():
    """The environment without HAIL_IO, so that --io auto means what it does by default, whatever
    pass of the suite this is."""
    env = dict(os.environ)
    env.pop("HAIL_IO", None)
    return env


def run_forbidden(args, timeout=30):
    proc = subprocess.run([hail_bin()] + [str(a) for a in args], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout, env=auto_env(),
                          preexec_fn=forbid_io_uring)
    return proc


def uring_available():
    out = subprocess.run([hail_bin(), "--version"], capture_output=True, text=True, timeout=10,
                         env=auto_env()).stdout
    return "io_uring (--io auto)" in out


def x86_64():
    return platform.machine() == "x86_64"


class BackendChoiceTest(unittest.TestCase):
    def test_bad_values_are_usage_errors(self):
        r = run_hail(["--io", "iouring", "-n", "1", "http://127.0.0.1:9/"])
        self.assertEqual(r.code, 2, describe(r))
        self.assertIn("--io", r.stderr)
        env_run = subprocess.run([hail_bin(), "-n", "1", "http://127.0.0.1:9/"],
                                 capture_output=True, text=True, timeout=10,
                                 env=dict(os.environ, HAIL_IO="fast"))
        self.assertEqual(env_run.returncode, 2)
        self.assertIn("HAIL_IO", env_run.stderr)

    def test_each_backend_runs_and_says_so(self):
        backends = ["epoll"] + (["uring"] if uring_available() else [])
        with HailServer() as srv:
            for io in backends:
                before = srv.stats()["requests"]
                r = run_hail(["--io", io, "-c", "8", "-t", "2", "-n", "4000", "-q", "--json", "-",
                              srv.url + "/bytes/1024"])
                self.assertEqual(r.code, 0, describe(r))
                self.assertEqual(r.json["client"]["io"], io)
                self.assertEqual(r.json["requests"]["completed"], 4000, describe(r))
                check_accounting(r.json)
                self.assertEqual(srv.stats()["requests"] - before, 4000)

    def test_hail_io_sets_what_auto_means_for_every_front_end(self):
        with HailServer() as srv:
            env = dict(os.environ, HAIL_IO="epoll")
            proc = subprocess.run([hail_bin(), "-n", "100", "-c", "2", "-q", "--json", "-",
                                   srv.url + "/"], capture_output=True, text=True, timeout=30,
                                  env=env)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn('"io": "epoll"', proc.stdout)

    def test_auto_keeps_epoll_beyond_1024_connections_a_worker(self):
        # io_uring's completion queue and shared receive buffers serve ~1,000 connections a loop
        # well; beyond that auto keeps epoll (3.6x cheaper per request at 10,000: RESULTS.md).
        env = auto_env()
        with HailServer() as srv:
            for threads, expected in ((1, "epoll"), (2, "uring" if uring_available() else "epoll")):
                before = srv.stats()["requests"]
                proc = subprocess.run([hail_bin(), "-t", str(threads), "-c", "1100", "-n", "3300",
                                       "-q", "--json", "-", srv.url + "/bytes/100"],
                                      capture_output=True, text=True, timeout=60, env=env)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                result = json.loads(proc.stdout)
                self.assertEqual(result["client"]["io"], expected, (threads, proc.stderr))
                self.assertEqual(result["requests"]["completed"], 3300)
                self.assertEqual(srv.stats()["requests"] - before, 3300)

    def test_auto_takes_io_uring_for_a_connection_per_request(self):
        # On Linux 6.18 the ring costs 0.90x epoll's CPU per request here (RESULTS.md), so auto no
        # longer keeps epoll for --no-keepalive runs.
        env = auto_env()
        with HailServer() as srv:
            before = srv.stats()
            proc = subprocess.run([hail_bin(), "-t", "1", "-c", "5", "-n", "200", "--no-keepalive",
                                   "-q", "--json", "-", srv.url + "/bytes/100"],
                                  capture_output=True, text=True, timeout=60, env=env)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            result = json.loads(proc.stdout)
            self.assertEqual(result["client"]["io"], "uring" if uring_available() else "epoll")
            self.assertEqual(result["requests"]["completed"], 200)
            delta = srv.stats_delta(before, srv.stats())
            self.assertEqual((delta["requests"], delta["connections"]), (200, 200))

    @unittest.skipUnless(x86_64(), "the seccomp filter here is written for x86-64")
    def test_io_uring_forbidden_falls_back_to_epoll(self):
        version = run_forbidden(["--version"])
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertIn("epoll (io_uring unavailable:", version.stdout)
        with HailServer() as srv:
            before = srv.stats()["requests"]
            proc = run_forbidden(["-c", "4", "-n", "2000", "-q", "--json", "-",
                                  srv.url + "/bytes/100"])
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn('"io": "epoll"', proc.stdout)
            self.assertIn('"completed": 2000', proc.stdout)
            self.assertEqual(srv.stats()["requests"] - before, 2000)
            # Asking for io_uring by name where it cannot be had: an error that says why.
            asked = run_forbidden(["--io", "uring", "-n", "10", "-q", srv.url + "/"])
            self.assertEqual(asked.returncode, 1, asked.stderr)
            self.assertIn("io_uring is not available here", asked.stderr)
            self.assertEqual(srv.stats()["requests"] - before, 2000)


@unittest.skipUnless(uring_available(), "io_uring unavailable on this kernel")
class UringLargeBodiesTest(unittest.TestCase):
    def test_large_bodies_bypass_the_ring_and_arrive_whole(self):
        # 16 KiB goes through the ring's buffers, 100 KiB and 1 MiB are dropped from the socket
        # uncopied: every byte is accounted for either way.
        with HailServer() as srv:
            for size in (16 * 1024, 100 * 1024, 1 << 20):
                before = srv.stats()["requests"]
                r = run_hail(["--io", "uring", "-c", "10", "-n", "300", "-q", "--json", "-",
                              "%s/bytes/%d" % (srv.url, size)], timeout=60)
                self.assertEqual(r.code, 0, describe(r))
                self.assertEqual(r.json["requests"]["completed"], 300, describe(r))
                self.assertGreaterEqual(r.json["throughput"]["bytes_read"], 300 * size)
                self.assertLess(r.json["throughput"]["bytes_read"], 300 * (size + 1024))
                self.assertEqual(srv.stats()["requests"] - before, 300)


@unittest.skipUnless(uring_available(), "io_uring unavailable on this kernel")
class UringAgainstNginxTest(NginxTestCase):
    """io_uring against a real server, counted by nginx: keep-alive and not, HTTP/2 over TLS
    (readiness through the ring, bytes by OpenSSL)."""

    NGINX_TLS = True

    def run_counted(self, args, url, n):
        run, entries = self.load(["--io", "uring", "-n", str(n)] + args + [url])
        self.assertEqual(run.json["client"]["io"], "uring")
        self.assertEqual(run.json["requests"]["completed"], n, describe(run))
        self.assertEqual(len(entries), n)
        self.assertTrue(all(e.status == 200 for e in entries))
        return run, entries

    def test_keep_alive(self):
        for path in ("/1k.bin", "/16k.bin"):
            run, entries = self.run_counted(["-c", "20", "-t", "2"], self.nginx.url + path, 3000)
            self.assertEqual(len({e.connection for e in entries}), 20)

    def test_new_connection_per_request(self):
        run, entries = self.run_counted(["-c", "10", "--no-keepalive"],
                                        self.nginx.url + "/1k.bin", 1000)
        self.assertEqual(len({e.connection for e in entries}), 1000)

    def test_http2_over_tls(self):
        run, entries = self.run_counted(["-c", "4", "--streams", "8"],
                                        self.nginx.https_url + "/1k.bin", 2000)
        self.assertTrue(all(e.protocol == "HTTP/2.0" for e in entries))


if __name__ == "__main__":
    unittest.main()
