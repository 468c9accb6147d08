"""Scale-out on a real launcher: Open MPI's mpirun (Debian openmpi-bin) starts 4 shards of one
test against nginx with one start time; the server counts exactly the merged total, the merged
rate is the asked one, and the server sees one process's plan, not 4 bursts. Also --start-at on
its own: the connections are open before the start and no request goes out before it."""

import glob
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from support import Nginx, hail_bin, require_nginx, run_hail, wait_until

MPIRUN = shutil.which("mpirun")


def mpirun_base(n):
    if MPIRUN is None:
        raise AssertionError("mpirun is missing: ./run installs Debian's openmpi-bin")
    cmd = [MPIRUN, "--oversubscribe", "-n", str(n)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    return cmd


class ScaleOutTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_nginx()
        cls.nginx = Nginx().__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.nginx.__exit__(None, None, None)

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="hail-scale-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def mpirun_shards(self, rate, seconds, extra=()):
        """4 shards under mpirun with one start reference; returns (their results, server-side
        request count, the access-log entries)."""
        before = self.nginx.stub_status()
        mark = self.nginx.log_mark()
        cmd = mpirun_base(4) + ["-x", "HAIL_START_REF=%d" % int(time.time()), hail_bin(),
                                self.nginx.url + "/100.bin", "-R", str(rate), "-d",
                                "%ds" % seconds, "-c", "8", "--start-at", "+3s", "-q",
                                "--run-id", "mpi-test", "--json",
                                os.path.join(self.dir, "shard-{shard}.json")] + list(extra)
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=seconds + 60)
        self.assertEqual(proc.returncode, 0, "mpirun: %s\n%s" % (proc.stdout, proc.stderr))
        after = self.nginx.quiesce()
        files = sorted(glob.glob(os.path.join(self.dir, "shard-*.json")))
        self.assertEqual(len(files), 4, "one result per shard: %s" % files)
        shards = [json.load(open(f)) for f in files]
        return files, shards, Nginx.stub_delta(before, after)["requests"], \
            self.nginx.log_entries(mark)

    def test_four_mpirun_shards_are_one_test(self):
        files, shards, server_requests, _ = self.mpirun_shards(4000, 5)
        # Each shard knows its place from Open MPI's environment, and runs its part.
        self.assertEqual(sorted(s["shard"]["index"] for s in shards), [0, 1, 2, 3])
        for s in shards:
            self.assertEqual(s["shard"]["count"], 4)
            self.assertEqual(s["shard"]["source"], "Open MPI")
            self.assertEqual(s["connections"], 2)
            self.assertAlmostEqual(s["rate"]["target_per_s"], 1000.0)
            self.assertEqual(s["run_id"], "mpi-test")
        # Started together: the same planned instant on every shard, each a few ms late at most.
        self.assertEqual(len({s["start_unix_s"] for s in shards}), 1)
        merged_path = os.path.join(self.dir, "merged.json")
        merge = run_hail(["merge"] + files + ["--json", merged_path])
        self.assertEqual(merge.code, 0, merge.stderr)
        merged = json.load(open(merged_path))
        req = merged["requests"]
        # The server counted exactly what the merged result says was sent. Each shard's last
        # request goes 1 ms before its end; on a loaded machine its response may come after the
        # end and is counted in flight, never lost (at most one per connection: 4 x 2).
        self.assertEqual(req["attempted"], server_requests)
        self.assertEqual(req["completed"] + req["in_flight"], server_requests)
        self.assertLessEqual(req["in_flight"], 8)
        # 4000 req/s for 5 s: the plan is exact (what a shard stalled by the machine had not sent
        # by its end is reported as its backlog, CI saw 68), the achieved rate within 1%.
        backlog = merged["rate"]["backlog"]
        self.assertEqual(server_requests + backlog, 20000)
        self.assertEqual(sum(s["rate"]["backlog"] for s in shards), backlog)
        self.assertLessEqual(backlog, 200)
        self.assertAlmostEqual(merged["rate"]["target_per_s"], 4000.0)
        self.assertLess(abs(merged["throughput"]["requests_per_s"] / 4000.0 - 1), 0.01)
        # The merge reports how far apart the shards started.
        info = merged["shards"]
        self.assertEqual(info["count"], 4)
        self.assertEqual(info["missing"], [])
        self.assertGreaterEqual(info["start_skew_ms"], 0)
        self.assertLess(info["start_skew_ms"], 100)
        self.assertIn("started within", merge.stdout + merge.stderr)

    def test_server_sees_one_plan_not_four_bursts(self):
        # 400 req/s over 4 shards: one process's plan sends every 2.5 ms. Four unaligned shards
        # (each every 10 ms at the same instants) would arrive in bursts: 3 gaps of ~0 ms, then
        # 10 ms. nginx logs arrival times to the millisecond, enough to tell them apart here.
        _, shards, server_requests, entries = self.mpirun_shards(400, 3)
        self.assertEqual(server_requests, 1200)
        times = sorted(e.msec for e in entries)
        gaps = [b - a for a, b in zip(times, times[1:])]
        near_zero = sum(1 for g in gaps if g < 0.0005)
        long = sum(1 for g in gaps if g > 0.0055)
        # Millisecond rounding turns 2.5 ms gaps into 2 or 3 ms ones; a burst pattern would have
        # three quarters of the gaps at 0 and a quarter at 10 ms. The bounds leave room for a
        # busy machine (a starved generator sends late requests together).
        self.assertLess(near_zero / len(gaps), 0.4, "gaps: %s" % gaps[:40])
        self.assertLess(long / len(gaps), 0.15, "gaps: %s" % gaps[:40])

    def test_start_at_opens_connections_first(self):
        before = self.nginx.stub_status()
        mark = self.nginx.log_mark()
        start = time.time() + 2.5
        out = os.path.join(self.dir, "run.json")
        proc = subprocess.Popen([hail_bin(), self.nginx.url + "/100.bin", "-R", "200", "-d",
                                 "1s", "-c", "5", "-t", "1", "--start-at", "%.3f" % start, "-q",
                                 "--json", out], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            # Before the start: 5 connections open (and the stub_status one), no request logged.
            wait_until(lambda: self.nginx.stub_status()["active"] >= 6, 2.0,
                       what="hail's 5 connections to be open before --start-at")
            self.assertLess(time.time(), start, "the machine was too slow to check in time")
            self.assertEqual(self.nginx.log_entries(mark), [])
            self.assertEqual(proc.wait(timeout=15), 0, proc.stderr.read())
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            proc.stderr.close()
        after = self.nginx.quiesce()
        delta = Nginx.stub_delta(before, after)
        entries = self.nginx.log_entries(mark)
        self.assertEqual(len(entries), 200)
        self.assertEqual(delta["requests"], 200)
        self.assertEqual(delta["accepts"], 5)
        # No request before the instant (nginx logs at the response, to the millisecond).
        self.assertGreaterEqual(min(e.msec for e in entries), start - 0.001)
        result = json.load(open(out))
        self.assertAlmostEqual(result["start_unix_s"], start, places=2)
        self.assertLess(result["start_late_ms"], 50)

    def test_bad_shard_flags_and_environment_are_usage_errors(self):
        url = self.nginx.url + "/100.bin"
        cases = [
            (["--shard", "4/4"], {}, "--shard"),
            (["--shard", "x"], {}, "--shard"),
            (["--start-at", "+5s"], {}, "HAIL_START_REF"),
            (["--start-at", "tomorrow"], {}, "--start-at"),
            (["--shards", "3"], {}, "JOB_COMPLETION_INDEX"),
            ([], {"SLURM_PROCID": "1"}, "SLURM_NTASKS"),
            ([], {"JOB_COMPLETION_INDEX": "1"}, "HAIL_SHARDS"),
            ([], {"OMPI_COMM_WORLD_RANK": "9", "OMPI_COMM_WORLD_SIZE": "4"}, "OMPI_COMM_WORLD_RANK"),
            (["-c", "3", "--shard", "3/4"], {}, "-c 3 split over 4 shards leaves shard 3 none"),
            (["-n", "2", "--shard", "2/4"], {}, "-n 2 split over 4 shards"),
        ]
        for args, env, needle in cases:
            full_env = dict(os.environ, **env)
            proc = subprocess.run([hail_bin(), url, "-d", "1s", "-q"] + args, env=full_env,
                                  capture_output=True, text=True, timeout=20)
            self.assertEqual(proc.returncode, 2, (args, env, proc.stderr))
            self.assertIn(needle, proc.stderr, (args, env))
            self.assertEqual(proc.stderr.count("\n"), 1, proc.stderr)

    def test_slurm_environment_and_shard_file_names(self):
        # Two "tasks" started by hand with Slurm's variables: each runs its half, writes its file.
        ref = int(time.time())
        procs = []
        for i in range(2):
            env = dict(os.environ, SLURM_PROCID=str(i), SLURM_NTASKS="2",
                       SLURM_JOB_START_TIME=str(ref))
            procs.append(subprocess.Popen(
                [hail_bin(), self.nginx.url + "/100.bin", "-n", "301", "-c", "3", "--start-at",
                 "+2s", "-q", "--json", os.path.join(self.dir, "s-{shard}.json")], env=env,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        for p in procs:
            _, err = p.communicate(timeout=30)
            self.assertEqual(p.returncode, 0, err)
        parts = [json.load(open(os.path.join(self.dir, "s-%d.json" % i))) for i in range(2)]
        self.assertEqual([p["requests"]["completed"] for p in parts], [151, 150])
        self.assertEqual([p["connections"] for p in parts], [2, 1])
        self.assertEqual([p["shard"]["source"] for p in parts], ["Slurm", "Slurm"])
        self.assertEqual({p["start_unix_s"] for p in parts}, {ref + 2.0})


if __name__ == "__main__":
    unittest.main()
