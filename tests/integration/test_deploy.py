"""The scale-out examples in deploy/ (issue 19): the Kubernetes manifests parse and are wired as
the README says (Indexed Job, completions == parallelism == HAIL_SHARDS, the start reference from a
pod annotation through the downward API, the shared results volume), and the commands they hold
run here: the Kubernetes shard command with the variables Kubernetes sets, the Slurm batch script
with a stand-in srun that sets Slurm's, then the merge, against a local `hail serve` whose request
count the merged result must match."""

import glob
import json
import os
import re
import shlex
import stat
import subprocess
import tempfile
import time
import unittest

import yaml

from support import REPO, HailServer, check_accounting, hail_bin

DEPLOY = os.path.join(REPO, "deploy")
K8S = os.path.join(DEPLOY, "kubernetes")
SBATCH = os.path.join(DEPLOY, "slurm", "hail.sbatch")
ANNOTATION = "hail.io/start-ref"
TIMEOUT_S = 60  # any one step; the shards run 2 s after a 2 s wait


def load_yaml(name):
    with open(os.path.join(K8S, name)) as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def jobs():
    """{name: Job} of every Job in deploy/kubernetes."""
    found = {}
    for path in sorted(glob.glob(os.path.join(K8S, "*.yaml"))):
        for doc in load_yaml(os.path.basename(path)):
            if doc.get("kind") == "Job":
                found[doc["metadata"]["name"]] = doc
    return found


def container(job):
    containers = job["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1, containers
    return containers[0]


def env_of(c):
    return {e["name"]: e for e in c.get("env", [])}


def k8s_expand(word, env):
    """Kubernetes' $(VAR) expansion in a container's command and args."""
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)),
                  word)


def local_command(words, url, results_dir):
    """The manifest's hail command for this machine: the local server's URL, a 2 s run at a
    rate 2 cores hold, the results directory in a temp dir."""
    out = []
    replace = {"-d": "2s", "-R": "400", "-c": "4"}
    i = 0
    while i < len(words):
        w = words[i]
        if w in replace and i + 1 < len(words):
            out += [w, replace[w]]
            i += 2
            continue
        if w.startswith("http://") or w.startswith("https://"):
            w = url
        out.append(w.replace("/results/", results_dir + "/"))
        i += 1
    return out


class DeployTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = HailServer(threads=2)
        cls.server.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="hail_deploy_")
        self.dir = self.tmp.name
        # `hail` on PATH, as in the image and on the cluster's nodes.
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        os.symlink(os.path.abspath(hail_bin()), os.path.join(self.bin, "hail"))
        self.path = self.bin + os.pathsep + os.environ.get("PATH", "")

    def tearDown(self):
        self.tmp.cleanup()

    # --- the manifests ---------------------------------------------------------------------

    def test_every_yaml_parses(self):
        paths = glob.glob(os.path.join(DEPLOY, "**", "*.yaml"), recursive=True)
        self.assertGreaterEqual(len(paths), 3, paths)
        for path in paths:
            with open(path) as f:
                docs = [d for d in yaml.safe_load_all(f) if d is not None]
            self.assertTrue(docs, path)
            for doc in docs:
                self.assertIn("apiVersion", doc, path)
                self.assertIn("kind", doc, path)
                self.assertIn("name", doc.get("metadata", {}), path)

    def test_shard_job_is_an_indexed_job_of_hail_shards_pods(self):
        job = jobs()["hail-shards"]
        self.assertEqual(job["apiVersion"], "batch/v1")
        spec = job["spec"]
        self.assertEqual(spec["completionMode"], "Indexed")
        c = container(job)
        env = env_of(c)
        shards = int(env["HAIL_SHARDS"]["value"])
        self.assertGreater(shards, 1)
        self.assertEqual(spec["completions"], shards)
        self.assertEqual(spec["parallelism"], shards)
        self.assertEqual(spec["template"]["spec"]["restartPolicy"], "Never")
        # The start reference: stamped into the pod annotation, passed by the downward API.
        annotations = spec["template"]["metadata"]["annotations"]
        self.assertEqual(annotations[ANNOTATION], "${HAIL_START_REF}")
        self.assertEqual(env["HAIL_START_REF"]["valueFrom"]["fieldRef"]["fieldPath"],
                         "metadata.annotations['%s']" % ANNOTATION)
        words = c["command"] + c.get("args", [])
        self.assertEqual(words[0], "hail")
        self.assertIn("--start-at", words)
        self.assertTrue(words[words.index("--start-at") + 1].startswith("+"))
        self.assertIn("/results/shard-{shard}.json", words)
        self.assert_results_volume(job, c)

    def test_merge_job_reads_the_shards_results(self):
        job = jobs()["hail-merge"]
        c = container(job)
        script = " ".join(c["command"] + c.get("args", []))
        self.assertIn("hail merge /results/shard-*.json --json /results/merged.json", script)
        self.assert_results_volume(job, c)

    def assert_results_volume(self, job, c):
        mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
        volumes = {v["name"]: v for v in job["spec"]["template"]["spec"]["volumes"]}
        self.assertEqual(mounts, {"results": "/results"})
        claim = volumes["results"]["persistentVolumeClaim"]["claimName"]
        pvcs = [d for d in load_yaml("results-pvc.yaml") if d["kind"] == "PersistentVolumeClaim"]
        self.assertEqual([p["metadata"]["name"] for p in pvcs], [claim])
        self.assertIn("ReadWriteMany", pvcs[0]["spec"]["accessModes"])

    def test_run_sh_stamps_the_annotation_placeholder(self):
        with open(os.path.join(K8S, "run.sh")) as f:
            script = f.read()
        self.assertIn("date +%s", script)
        self.assertIn("${HAIL_START_REF}", script)
        self.assertIn("hail-merge.yaml", script)
        self.assertTrue(os.stat(os.path.join(K8S, "run.sh")).st_mode & stat.S_IXUSR)
        subprocess.run(["sh", "-n", os.path.join(K8S, "run.sh")], check=True, timeout=10)

    # --- running them here -----------------------------------------------------------------

    def merged_against_server(self, before, merged_path):
        after = self.server.stats()
        delta = HailServer.stats_delta(before, after)
        with open(merged_path) as f:
            merged = json.load(f)
        check_accounting(merged)
        req = merged["requests"]
        self.assertGreater(req["completed"], 0)
        self.assertGreaterEqual(delta["requests"], req["completed"], (delta, req))
        self.assertLessEqual(delta["requests"], req["completed"] + req["in_flight"], (delta, req))
        return merged

    def test_kubernetes_commands_run_as_kubernetes_would(self):
        shard_job, merge_job = jobs()["hail-shards"], jobs()["hail-merge"]
        c = container(shard_job)
        shards = int(env_of(c)["HAIL_SHARDS"]["value"])
        results = os.path.join(self.dir, "results")
        os.mkdir(results)
        # Stamped 28 s ago: --start-at +30s is 2 s from now.
        ref = str(int(time.time()) - 28)
        before = self.server.stats()
        procs = []
        for index in range(shards):
            env = dict(os.environ, PATH=self.path, JOB_COMPLETION_INDEX=str(index),
                       HAIL_SHARDS=str(shards), HAIL_START_REF=ref)
            words = [k8s_expand(w, env) for w in c["command"] + c.get("args", [])]
            cmd = local_command(words, self.server.url + "/bytes/16", results)
            procs.append(subprocess.Popen(cmd + ["-q"], env=env, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True))
        for index, proc in enumerate(procs):
            try:
                _, err = proc.communicate(timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                for p in procs:
                    p.kill()
                self.fail("shard %d did not finish within %ss" % (index, TIMEOUT_S))
            self.assertEqual(proc.returncode, 0, "shard %d: %s" % (index, err))
        for index in range(shards):
            with open(os.path.join(results, "shard-%d.json" % index)) as f:
                shard = json.load(f)
            self.assertEqual(shard["shard"]["index"], index)
            self.assertEqual(shard["shard"]["count"], shards)
            self.assertEqual(shard["shard"]["source"], "Kubernetes")
            self.assertEqual(shard["run_id"], "k8s-" + ref)
        m = container(merge_job)
        words = [w.replace("/results/", results + "/") for w in m["command"] + m.get("args", [])]
        run = subprocess.run(words, env=dict(os.environ, PATH=self.path), capture_output=True,
                             text=True, timeout=TIMEOUT_S)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertNotIn("missing", run.stderr)
        merged = self.merged_against_server(before, os.path.join(results, "merged.json"))
        self.assertEqual(merged["shards"]["present"], list(range(shards)))
        self.assertEqual(merged["shards"]["missing"], [])

    def test_slurm_batch_script_runs_with_slurms_variables(self):
        with open(SBATCH) as f:
            script = f.read()
        ntasks = int(re.search(r"^#SBATCH --ntasks=(\d+)$", script, re.M).group(1))
        self.assertGreater(ntasks, 1)
        self.assertRegex(script, r"(?m)^srun hail .*--start-at \+\d+s")
        self.assertIn("hail merge results/shard-*.json", script)
        # srun here: one task per --ntasks, each with the variables Slurm sets.
        srun = os.path.join(self.bin, "srun")
        with open(srun, "w") as f:
            f.write("#!/bin/sh\n"
                    "pids=''\n"
                    "i=0\n"
                    "while [ $i -lt %d ]; do\n"
                    "  SLURM_PROCID=$i SLURM_NTASKS=%d \"$@\" & pids=\"$pids $!\"\n"
                    "  i=$((i + 1))\n"
                    "done\n"
                    "status=0\n"
                    "for p in $pids; do wait $p || status=1; done\n"
                    "exit $status\n" % (ntasks, ntasks))
        os.chmod(srun, 0o755)
        start = int(time.time())
        plus = int(re.search(r"--start-at \+(\d+)s", script).group(1))
        env = dict(os.environ, PATH=self.path, URL=self.server.url + "/bytes/16", RATE="400",
                   CONNECTIONS="4", DURATION="2s", SLURM_JOB_ID="4242",
                   SLURM_JOB_START_TIME=str(start - plus + 2))
        for name in ("HAIL_START_REF", "HAIL_SHARDS", "JOB_COMPLETION_INDEX"):
            env.pop(name, None)
        before = self.server.stats()
        run = subprocess.run(["bash", SBATCH], cwd=self.dir, env=env, capture_output=True,
                             text=True, timeout=TIMEOUT_S)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertNotIn("missing", run.stderr)
        results = os.path.join(self.dir, "results")
        for index in range(ntasks):
            with open(os.path.join(results, "shard-%d.json" % index)) as f:
                shard = json.load(f)
            self.assertEqual((shard["shard"]["index"], shard["shard"]["source"]),
                             (index, "Slurm"))
            self.assertEqual(shard["run_id"], "slurm-4242")
        merged = self.merged_against_server(before, os.path.join(results, "merged.json"))
        self.assertEqual(merged["shards"]["present"], list(range(ntasks)))
        self.assertIn("shards started within", run.stdout)


if __name__ == "__main__":
    unittest.main()
