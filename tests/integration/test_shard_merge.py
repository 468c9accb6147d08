"""hail merge of execution shards (issue 19): four `--shard I/4` processes against one `hail serve`
add up to what the server counted; a shard killed mid-run is named missing with its exact share of
the load."""

import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

from support import HailServer, check_accounting, hail_bin, run_hail

SHARDS = 4
RATE = 400  # the whole test's rate: 100 req/s per shard


class ShardMergeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = HailServer(threads=2)
        cls.server.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="hail_shards_")
        self.dir = self.tmp.name
        self.procs = []

    def tearDown(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
        self.tmp.cleanup()

    def start_shard(self, index, start_ref):
        """`hail URL --shard I/4 -R 400 -d 3s --start-at +2s --json DIR/shard-{shard}.json`, the
        start instant shared through HAIL_START_REF as a launcher would."""
        env = dict(os.environ, HAIL_START_REF=str(start_ref))
        args = [hail_bin(), self.server.url + "/bytes/16", "--shard", "%d/%d" % (index, SHARDS),
                "-R", str(RATE), "-c", "4", "-t", "1", "-d", "3s", "--start-at", "+2s",
                "--run-id", "it-%d" % start_ref,
                "--json", os.path.join(self.dir, "shard-{shard}.json"), "-q"]
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env)
        self.procs.append(proc)
        return proc

    def finish(self, proc, timeout=30):
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            self.fail("a shard did not finish within %ss: %s" % (timeout, err))
        return proc.returncode, out, err

    def shard_file(self, index):
        return os.path.join(self.dir, "shard-%d.json" % index)

    def test_four_shards_add_up_to_the_server_count(self):
        before = self.server.stats()
        ref = int(time.time())
        procs = [self.start_shard(i, ref) for i in range(SHARDS)]
        for i, proc in enumerate(procs):
            code, _, err = self.finish(proc)
            self.assertEqual(code, 0, "shard %d: %s" % (i, err))
        after = self.server.stats()
        delta = HailServer.stats_delta(before, after)
        for i in range(SHARDS):
            with open(self.shard_file(i)) as f:
                shard = json.load(f)
            self.assertEqual(shard["shard"]["index"], i)
            self.assertEqual(shard["shard"]["count"], SHARDS)
            self.assertEqual(shard["shard"]["whole"]["rate_per_s"], RATE)
            self.assertEqual(shard["run_id"], "it-%d" % ref)
            self.assertIn("start_at_unix_s", shard)
        merged_path = os.path.join(self.dir, "merged.json")
        run = run_hail(["merge"] + [self.shard_file(i) for i in range(SHARDS)]
                       + ["--json", merged_path], timeout=30)
        self.assertEqual(run.code, 0, run.stderr)
        self.assertNotIn("missing", run.stderr)
        self.assertIn("shards started within", run.stdout)
        self.assertIn("after --start-at", run.stdout)
        with open(merged_path) as f:
            merged = json.load(f)
        check_accounting(merged)
        req = merged["requests"]
        # What the server counted, exactly: a request still in flight at a shard's end may have
        # been answered and counted by the server (none is at 100 req/s on loopback, nearly).
        self.assertGreaterEqual(delta["requests"], req["completed"], (delta, req))
        self.assertLessEqual(delta["requests"], req["completed"] + req["in_flight"], (delta, req))
        if req["in_flight"] == 0:
            self.assertEqual(delta["requests"], req["completed"])
        self.assertAlmostEqual(req["completed"], RATE * 3, delta=RATE * 3 * 0.1)
        shards = merged["shards"]
        self.assertEqual(shards["count"], SHARDS)
        self.assertEqual(shards["present"], list(range(SHARDS)))
        self.assertEqual(shards["missing"], [])
        self.assertEqual(shards["not_offered_share"], 0.0)
        self.assertEqual(len(shards["inputs"]), SHARDS)
        self.assertLess(shards["start_skew_ms"], 500)
        self.assertNotIn("shard", merged)  # the merge is the test, not a shard of it

    def test_a_killed_shard_is_named_missing(self):
        ref = int(time.time())
        procs = {i: self.start_shard(i, ref) for i in range(SHARDS)}
        # Shard 2 dies mid-run (after its start at +2 s, during its 3 s): it writes no file.
        time.sleep(max(0.0, ref + 2 - time.time()) + 1.0)
        procs[2].send_signal(signal.SIGKILL)
        procs[2].communicate(timeout=10)
        for i in (0, 1, 3):
            code, _, err = self.finish(procs[i])
            self.assertEqual(code, 0, "shard %d: %s" % (i, err))
        # hail opens its --json file when it starts: the killed shard leaves it empty, no report.
        self.assertFalse(os.path.exists(self.shard_file(2))
                         and os.path.getsize(self.shard_file(2)) > 0)
        line = "shard 2 of 4 missing: 25.0% of the load was not offered (100 of 400 req/s)"
        run = run_hail(["merge"] + [self.shard_file(i) for i in (0, 1, 3)] + ["--json", "-"],
                       timeout=30)
        self.assertEqual(run.code, 0, run.stderr)
        self.assertIn("hail merge: warning: " + line, run.stderr)
        self.assertIn(line, run.json["notes"])
        self.assertEqual(run.json["shards"]["missing"], [2])
        self.assertEqual(run.json["shards"]["present"], [0, 1, 3])
        self.assertEqual(run.json["shards"]["not_offered_share"], 0.25)
        self.assertEqual(run.json["shards"]["not_offered"],
                         {"amount": 100.0, "whole": 400.0, "unit": "req/s"})
        # As a launcher's merge step runs it, every file of the directory: the empty one is
        # skipped with a warning, and shard 2 named missing all the same.
        if os.path.exists(self.shard_file(2)):
            run = run_hail(["merge"] + [self.shard_file(i) for i in range(SHARDS)]
                           + ["--json", "-"], timeout=30)
            self.assertEqual(run.code, 0, run.stderr)
            self.assertIn("hail merge: warning: \"%s\" is empty (its run did not finish): "
                          "skipped" % self.shard_file(2), run.stderr)
            self.assertIn("hail merge: warning: " + line, run.stderr)
            self.assertEqual(run.json["shards"]["missing"], [2])

    def test_the_same_shard_twice_is_refused(self):
        ref = int(time.time())
        proc = self.start_shard(1, ref)
        code, _, err = self.finish(proc)
        self.assertEqual(code, 0, err)
        copy = os.path.join(self.dir, "copy.json")
        with open(self.shard_file(1)) as src, open(copy, "w") as dst:
            dst.write(src.read())
        run = run_hail(["merge", self.shard_file(1), copy], timeout=30)
        self.assertEqual(run.code, 2, run.stderr)
        self.assertEqual(run.stderr.strip(),
                         "hail merge: %s and %s are both shard 1 of 4: its load would count "
                         "twice (merge one of them)" % (self.shard_file(1), copy))


if __name__ == "__main__":
    unittest.main()
