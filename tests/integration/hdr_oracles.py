"""HdrHistogram implementations other than hail's, as test oracles for test_hdr_interop.py
(Python 3 standard library only):
  histf_tool(mode, lines)       hail's own codec through the test-only histf_tool binary
  js_oracle(mode, lines, arg)   hdr-histogram-js (npm, pinned; ./run installs it under
                                build/interop) through hdr_js_oracle.js
  log_processor(hlog, tag)      HdrHistogram's Java HistogramLogProcessor (Debian
                                libhdrhistogram-java) on an interval log
  highest_equivalent(v)         HdrHistogram's slot arithmetic for (1 ns, 3 digits), in Python
Each oracle has a *_missing() function that says why it cannot run (None when it can), so that a
bare ctest on a machine without node or Java skips with that reason instead of failing.
"""

import glob
import json
import os
import shutil
import subprocess
import tempfile

from support import REPO

JS_PACKAGE = "hdr-histogram-js"
JS_VERSION = "3.0.1"  # what ./run installs; strings it makes are checked here
JAVA_JARS = ("/usr/share/java/hdrhistogram.jar", "/usr/share/java/HdrHistogram.jar")
HERE = os.path.dirname(os.path.abspath(__file__))


# --------------------------------------------------------------------------------------------
# HdrHistogram's layout for lowest discernible value 1 and 3 significant digits


def slot_shift(value):
    """log2 of the width of value's slot: 0 below 2048, then one more per doubling."""
    return max(0, value.bit_length() - 11)


def highest_equivalent(value):
    """The highest value of value's slot (what iterators and percentiles report)."""
    shift = slot_shift(value)
    return ((value >> shift) << shift) + (1 << shift) - 1


def expected_slots(pairs):
    """[(value, count)] -> the sorted [(slot's highest value, count)] a histogram holds."""
    slots = {}
    for value, count in pairs:
        if count:
            key = highest_equivalent(value)
            slots[key] = slots.get(key, 0) + count
    return sorted(slots.items())


def spec_line(pairs):
    return " ".join("%d:%d" % (v, c) for v, c in pairs)


def parse_histograms(text):
    """The output of `histf_tool decode` / `hdr_js_oracle.js decode`: a list with, per input
    line, either ("error", message) or (total, [(value, count), ...])."""
    out = []
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        if word == "error":
            out.append(("error", rest))
        elif word == "histogram":
            out.append((int(rest), []))
        else:
            out[-1][1].append((int(word), int(rest)))
    return out


# --------------------------------------------------------------------------------------------
# hail's codec


def histf_tool_path():
    env = os.environ.get("HAIL_HISTF_TOOL")
    if env:
        return env
    found = glob.glob(os.path.join(REPO, "build", "*", "tests", "integration", "histf_tool"))
    return max(found, key=os.path.getmtime) if found else None


def histf_tool(mode, lines):
    tool = histf_tool_path()
    if tool is None or not os.access(tool, os.X_OK):
        raise AssertionError("no histf_tool: set HAIL_HISTF_TOOL or build the target histf_tool")
    proc = subprocess.run([tool, mode], input="".join(l + "\n" for l in lines),
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise AssertionError("histf_tool %s exited %d: %s" % (mode, proc.returncode, proc.stderr))
    return proc.stdout


# --------------------------------------------------------------------------------------------
# hdr-histogram-js


def js_modules():
    base = os.environ.get("HAIL_INTEROP_DIR") or os.path.join(REPO, "build", "interop")
    return os.path.join(base, "node_modules")


def js_missing():
    if shutil.which("node") is None:
        return "node is not installed (hdr-histogram-js needs it)"
    package = os.path.join(js_modules(), JS_PACKAGE, "package.json")
    try:
        with open(package) as f:
            version = json.load(f).get("version")
    except OSError:
        return ("%s is not installed under %s (./run test installs it: npm install --prefix "
                "build/interop %s@%s)" % (JS_PACKAGE, js_modules(), JS_PACKAGE, JS_VERSION))
    if version != JS_VERSION:
        return "%s %s found, the tests pin %s" % (JS_PACKAGE, version, JS_VERSION)
    return None


def js_oracle(mode, lines=(), arg=None):
    cmd = ["node", os.path.join(HERE, "hdr_js_oracle.js"), mode] + ([arg] if arg else [])
    env = dict(os.environ, HDR_JS_MODULES=js_modules())
    proc = subprocess.run(cmd, input="".join(l + "\n" for l in lines), capture_output=True,
                          text=True, timeout=120, env=env)
    if proc.returncode != 0:
        raise AssertionError("hdr_js_oracle.js %s exited %d: %s"
                             % (mode, proc.returncode, proc.stderr[-3000:]))
    return proc.stdout


# --------------------------------------------------------------------------------------------
# HdrHistogram (Java)


def java_jar():
    return next((j for j in JAVA_JARS if os.path.isfile(j)), None)


def java_missing():
    if shutil.which("java") is None:
        return "java is not installed (Debian default-jre-headless)"
    if java_jar() is None:
        return "HdrHistogram's jar is not installed (Debian libhdrhistogram-java)"
    return None


def log_processor(hlog, tag):
    """Runs HistogramLogProcessor on the interval log `hlog` for `tag`, values in ns (CSV).
    Returns (intervals, distribution, stderr): intervals is one dict per interval histogram it
    read (its "Timestamp", "Int_Count", "Int_50%", ... columns as numbers), distribution the
    overall percentile rows as (value, percentile, total_count)."""
    out_dir = tempfile.mkdtemp(prefix="hail_hlog_")
    try:
        prefix = os.path.join(out_dir, "out")
        proc = subprocess.run(
            ["java", "-cp", java_jar(), "org.HdrHistogram.HistogramLogProcessor", "-i", hlog,
             "-tag", tag, "-csv", "-outputValueUnitRatio", "1", "-o", prefix],
            capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise AssertionError("HistogramLogProcessor exited %d: %s"
                                 % (proc.returncode, proc.stderr[-3000:]))
        intervals = []
        legend = None
        with open(prefix) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                if line.startswith('"'):
                    legend = [c.strip('"') for c in line.split(",")]
                    continue
                intervals.append(dict(zip(legend, (float(c) for c in line.split(",")))))
        distribution = []
        with open(prefix + ".hgrm") as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#") or line.startswith('"'):
                    continue
                value, percentile, total, _ = line.split(",")
                distribution.append((round(float(value)), float(percentile), int(total)))
        return intervals, distribution, proc.stderr
    finally:
        shutil.rmtree(out_dir, ignore_errors=True)
