"""SIGINT / SIGTERM stop a run early: prompt exit 0, a report of the partial run, exact accounting."""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from support import HailServer, check_accounting, hail_bin, wait_until


class SignalTest(unittest.TestCase):
    def interrupt(self, sig):
        tmp = tempfile.mkdtemp(prefix="hail-signal-")
        try:
            path = os.path.join(tmp, "report.json")
            with HailServer() as srv:
                before = srv.stats()
                cmd = [hail_bin(), "-c", "8", "-t", "1", "-d", "30s", "-q", "--json", path,
                       srv.url + "/bytes/100"]
                start = time.monotonic()
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
                try:
                    # Readiness: the load is really flowing (the server answers), and a second
                    # of the run has passed.
                    wait_until(lambda: srv.stats()["requests"] - before["requests"] >= 100
                               or proc.poll() is not None, 10, interval=0.05,
                               what="hail's requests to reach the server")
                    if proc.poll() is not None:
                        self.fail("hail exited (status %s) before the signal: %s"
                                  % (proc.returncode, proc.communicate(timeout=5)))
                    time.sleep(max(0.0, 1.0 - (time.monotonic() - start)))
                    sent = time.monotonic()
                    proc.send_signal(sig)
                    try:
                        out, err = proc.communicate(timeout=10)
                    except subprocess.TimeoutExpired:
                        proc.kill()
                        out, err = proc.communicate(timeout=5)
                        self.fail("hail did not exit within 10 s of %s; stdout %r stderr %r"
                                  % (sig.name, out, err))
                    waited = time.monotonic() - sent
                finally:
                    if proc.poll() is None:
                        proc.kill()
                        proc.communicate(timeout=5)
                after = srv.stats()
            delta = HailServer.stats_delta(before, after)
            self.assertEqual(proc.returncode, 0, "stdout %r stderr %r" % (out, err))
            self.assertLessEqual(waited, 2.0, "hail took %.2fs to exit after %s"
                                 % (waited, sig.name))
            self.assertIn("Requests/sec:", out)
            self.assertIn("interrupted", out)
            self.assertNotIn("MISMATCH", out)
            with open(path) as f:
                report = json.load(f)
            msg = json.dumps(report, indent=1)
            check_accounting(report, msg)
            self.assertIs(report["interrupted"], True, msg)
            req = report["requests"]
            self.assertGreater(req["completed"], 0, msg)
            self.assertEqual(req["attempted"], req["completed"] + req["in_flight"], msg)
            self.assertEqual({k: v for k, v in report["errors"].items() if v}, {}, msg)
            self.assertLessEqual(req["in_flight"], 8, msg)
            # The measured duration ends at the signal, not at 30 s.
            self.assertGreaterEqual(report["duration_s"], 0.9, msg)
            self.assertLess(report["duration_s"], 1.0 + 5.0, msg)
            self.assertGreaterEqual(delta["requests"], req["completed"], (delta, msg))
            self.assertLessEqual(delta["requests"], req["completed"] + req["in_flight"],
                                 (delta, msg))
            self.assertEqual(report["connections_opened"], 8, msg)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_sigint(self):
        self.interrupt(signal.SIGINT)

    def test_sigterm(self):
        self.interrupt(signal.SIGTERM)


if __name__ == "__main__":
    unittest.main()
