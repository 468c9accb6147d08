"""wrk's own example scripts (Debian's wrk package ships them in /usr/share/doc/wrk/examples/
scripts; ./run installs it), run unmodified by real wrk and by hail side by side against the same
servers: what each script prints and what the server sees (paths, methods, headers, counts) must
match in kind and, where the script makes it deterministic, in number."""

import collections
import http.server
import os
import re
import socketserver
import subprocess
import threading
import time
import unittest

from support import HailServer, NginxTestCase, describe, run_hail

WRK_SCRIPTS = "/usr/share/doc/wrk/examples/scripts"
# The real wrk (a `wrk` alias of hail earlier in PATH would compare hail with itself).
WRK = "/usr/bin/wrk" if os.access("/usr/bin/wrk", os.X_OK) else None


def wrk_script(name):
    return os.path.join(WRK_SCRIPTS, name)


def run_wrk(args, timeout=30):
    proc = subprocess.run([WRK] + [str(a) for a in args], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)
    return proc


def requires_wrk(cls):
    if WRK is None or not os.path.isdir(WRK_SCRIPTS):
        return unittest.skip("wrk and its example scripts are not installed (./run installs them)")(
            cls)
    return cls


class TokenServer:
    """A keep-alive HTTP/1.1 server for auth.lua: /authenticate answers with an X-Token header,
    every other path with 200; it records (path, X-Token) of each request."""

    def __init__(self):
        self.seen = collections.Counter()
        self.lock = threading.Lock()

    def __enter__(self):
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                with owner.lock:
                    owner.seen[(self.path, self.headers.get("X-Token"))] += 1
                body = b"ok"
                self.send_response(200)
                if self.path == "/authenticate":
                    self.send_header("X-Token", "secret-42")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def take(self):
        with self.lock:
            seen = dict(self.seen)
            self.seen.clear()
        return seen

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@requires_wrk
class WrkScriptsServeTest(unittest.TestCase):
    def both(self, script, args, url):
        """(wrk's stdout, hail's stdout, server-side requests of each)."""
        outs, counts = [], []
        with HailServer() as srv:
            for tool in ("wrk", "hail"):
                before = srv.stats()
                full = ["-s", wrk_script(script)] + args + [url(srv)]
                if tool == "wrk":
                    p = run_wrk(full)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    outs.append(p.stdout)
                else:
                    r = run_hail(full)
                    self.assertEqual(r.code, 0, describe(r))
                    outs.append(r.stdout)
                time.sleep(0.2)
                counts.append(srv.stats_delta(before, srv.stats())["requests"])
        return outs, counts

    def test_setup_lua(self):
        outs, counts = self.both("setup.lua", ["-t2", "-c4", "-d1s"], lambda s: s.url + "/bytes/10")
        for out, served in zip(outs, counts):
            self.assertEqual(sorted(re.findall(r"^thread (\d) created$", out, re.M)), ["1", "2"],
                             out)
            rows = re.findall(r"^thread (\d) made (\d+) requests and got (\d+) responses$", out,
                              re.M)
            self.assertEqual([r[0] for r in rows], ["1", "2"], out)
            responses = sum(int(r[2]) for r in rows)
            made = sum(int(r[1]) for r in rows)
            # Requests made = sent + wrk's one verification call on thread 1; every response
            # the server sent was seen, give or take those in flight at the end.
            self.assertLessEqual(abs(responses - served), 4, out)
            self.assertLessEqual(made - responses, 2 + 4, out)

    def test_report_lua(self):
        outs, _ = self.both("report.lua", ["-t1", "-c2", "-d1s"], lambda s: s.url + "/bytes/10")
        for out in outs:
            tail = out.split("------------------------------\n", 1)[1]
            labels = [line.split(",")[0] for line in tail.strip().splitlines()]
            self.assertEqual(labels, ["50%", "90%", "99%", "99.999%"], out)
            values = [int(line.split(",")[1]) for line in tail.strip().splitlines()]
            self.assertEqual(values, sorted(values))
            self.assertGreater(values[0], 0)

    def test_stop_lua(self):
        outs, counts = self.both("stop.lua", ["-t1", "-c1", "-d5s"], lambda s: s.url + "/bytes/10")
        self.assertEqual(counts[1], 100)
        self.assertEqual(counts[0], counts[1])
        self.assertIn("100 requests in", outs[1])

    def test_addr_lua(self):
        outs, _ = self.both("addr.lua", ["-t2", "-c2", "-d1s"], lambda s: s.url + "/bytes/1")
        for out in outs:
            self.assertEqual(len(re.findall(r"^thread addr: 127\.0\.0\.1:\d+$", out, re.M)), 2, out)

    def test_delay_lua(self):
        # 10-50 ms before each request: one connection makes about 33 a second with either tool.
        _, counts = self.both("delay.lua", ["-t1", "-c1", "-d2s"], lambda s: s.url + "/bytes/1")
        for n in counts:
            self.assertGreater(n, 40)
            self.assertLess(n, 110)
        self.assertLess(abs(counts[0] - counts[1]), 0.3 * counts[0], counts)


@requires_wrk
class WrkScriptsNginxTest(NginxTestCase):
    def both(self, script, args, path="/"):
        """Per tool: (stdout, nginx access-log entries of its run)."""
        runs = []
        for tool in ("wrk", "hail"):
            mark = self.nginx.log_mark()
            full = ["-s", wrk_script(script)] + args + [self.nginx.url + path]
            if tool == "wrk":
                p = run_wrk(full)
                self.assertEqual(p.returncode, 0, p.stderr)
                out = p.stdout
            else:
                r = run_hail(full)
                self.assertEqual(r.code, 0, describe(r))
                out = r.stdout
            self.nginx.quiesce()
            runs.append((out, self.nginx.log_entries(mark)))
        return runs

    def test_post_lua(self):
        for out, entries in self.both("post.lua", ["-t1", "-c2", "-d1s"], "/1k.bin"):
            self.assertGreater(len(entries), 10)
            # nginx answers POST to a static file with 405: the method is what counts.
            self.assertEqual({(e.method, e.status) for e in entries}, {("POST", 405)})

    def test_counter_lua(self):
        for out, entries in self.both("counter.lua", ["-t1", "-c1", "-d1s"]):
            uris = [e.uri for e in entries]
            self.assertGreater(len(uris), 10)
            # One counter per thread: paths /1, /2, ... in order on the one connection (/0 went
            # to the verification call), each once.
            self.assertEqual(uris, ["/%d" % i for i in range(1, len(uris) + 1)], uris[:5])

    def test_pipeline_lua(self):
        results = self.both("pipeline.lua", ["-t1", "-c2", "-d1s"])
        for out, entries in results:
            counts = collections.Counter(e.uri for e in entries)
            self.assertEqual(set(counts), {"/"})  # $uri drops the query string
            self.assertGreater(len(entries), 30)
            # Pipelined three at a time: each connection's count is a multiple of three, give or
            # take the last group cut by the end of the run.
            per_conn = collections.Counter(e.connection for e in entries)
            self.assertEqual(len(per_conn), 2)


@requires_wrk
class WrkAuthScriptTest(unittest.TestCase):
    def test_auth_lua(self):
        with TokenServer() as srv:
            url = "http://127.0.0.1:%d/" % srv.port
            for tool in ("wrk", "hail"):
                args = ["-s", wrk_script("auth.lua"), "-t1", "-c1", "-d1s", url]
                if tool == "wrk":
                    p = run_wrk(args)
                    self.assertEqual(p.returncode, 0, p.stderr)
                else:
                    r = run_hail(args)
                    self.assertEqual(r.code, 0, describe(r))
                time.sleep(0.2)
                seen = srv.take()
                self.assertEqual(seen.get(("/authenticate", None)), 1, (tool, seen))
                paths = {k for k in seen if k[0] != "/authenticate"}
                self.assertEqual(paths, {("/resource", "secret-42")}, (tool, seen))


if __name__ == "__main__":
    unittest.main()
