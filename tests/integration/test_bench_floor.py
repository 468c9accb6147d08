"""bench/floor_client.cc and bench/floor_uring.cc, the floors that bench/compare.py runs beside
wrk and hail (tools `floor` and `floor-uring`): each builds without a warning, the requests it
claims are the ones `hail serve` counted (keep-alive and a new connection per request), and a
response other than 200 stops it with exit 1, so its numbers are for complete, successful requests
only. floor_uring is skipped where this process cannot make an io_uring (seccomp, sysctl)."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from support import HailServer

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench")
CONNS = 4


class FloorChecks:
    """The checks every floor passes; subclasses name the source and its libraries."""
    SOURCE = None
    LIBS = []

    @classmethod
    def setUpClass(cls):
        if not shutil.which("g++"):
            raise unittest.SkipTest("g++ not installed")
        cls.dir = tempfile.mkdtemp(prefix="hail-floor-test-")
        cls.bin = os.path.join(cls.dir, "floor")
        # compare.py's flags, with warnings as errors: the tool must stay clean
        build = subprocess.run(["g++", "-O2", "-std=c++20", "-Wall", "-Wextra", "-Wshadow", "-Werror",
                                "-o", cls.bin, os.path.join(BENCH, cls.SOURCE)] + cls.LIBS,
                               capture_output=True, text=True, timeout=120)
        if build.returncode != 0:
            shutil.rmtree(cls.dir, ignore_errors=True)
            raise AssertionError("%s did not build:\n%s" % (cls.SOURCE, build.stderr))
        cls.server = HailServer(threads=1)
        cls.server.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_floor(self, path, *args):
        """(exit code, requests it claims, stdout+stderr, server delta) of a 1 s run."""
        before = self.server.stats()
        run = subprocess.run([self.bin, "-c%d" % CONNS, "-d1"] + list(args) + [self.server.url + path],
                             capture_output=True, text=True, timeout=30)
        delta = HailServer.stats_delta(before, self.server.stats())
        m = re.search(r"^(\d+) requests in ", run.stdout, re.M)
        return run.returncode, int(m.group(1)) if m else None, run.stdout + run.stderr, delta

    def test_keep_alive_count_is_the_servers(self):
        code, done, out, delta = self.run_floor("/bytes/1024")
        self.assertEqual(code, 0, out)
        self.assertGreater(done, 100, out)
        self.assertRegex(out, r"Requests/sec: [\d.]+")
        # one request per connection may be in flight when it stops
        self.assertGreaterEqual(delta["requests"], done, (delta, out))
        self.assertLessEqual(delta["requests"], done + CONNS, (delta, out))
        self.assertEqual(delta["connections"], CONNS, (delta, out))

    def test_connection_per_request_count_is_the_servers(self):
        code, done, out, delta = self.run_floor("/bytes/1024", "--close")
        self.assertEqual(code, 0, out)
        self.assertGreater(done, 100, out)
        self.assertGreaterEqual(delta["requests"], done, (delta, out))
        self.assertLessEqual(delta["requests"], done + CONNS, (delta, out))
        # a connection per request: the completed ones and at most one open per slot at the end
        self.assertGreaterEqual(delta["connections"], done, (delta, out))
        self.assertLessEqual(delta["connections"], done + CONNS, (delta, out))

    def test_a_response_other_than_200_stops_it(self):
        code, done, out, _ = self.run_floor("/status/503")
        self.assertEqual(code, 1, out)
        self.assertIsNone(done, out)
        self.assertIn("not 200", out)

    def test_refused_connect_exits_1(self):
        run = subprocess.run([self.bin, "-c2", "-d1", "http://127.0.0.1:1/"], capture_output=True,
                             text=True, timeout=10)
        self.assertEqual(run.returncode, 1, run.stderr)
        self.assertIn("refused", run.stderr)

    def test_usage_error_exits_2(self):
        run = subprocess.run([self.bin, "-c4", "-d1", "http://localhost:1/"], capture_output=True,
                             text=True, timeout=10)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("usage:", run.stderr)


class FloorClientTest(FloorChecks, unittest.TestCase):
    SOURCE = "floor_client.cc"


class FloorUringTest(FloorChecks, unittest.TestCase):
    SOURCE = "floor_uring.cc"
    LIBS = ["-luring"]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        probe = subprocess.run([cls.bin, "-c1", "-d0.1", cls.server.url + "/bytes/1"],
                               capture_output=True, text=True, timeout=10)
        if "io_uring_queue_init" in probe.stderr or "register_files" in probe.stderr:
            cls.tearDownClass()
            raise unittest.SkipTest("no io_uring here: " + probe.stderr.strip())


if __name__ == "__main__":
    unittest.main()
