"""nginx from Debian for the integration tests: a private instance (config, logs, files, and with
tls=True HTTPS + HTTP/2 ports and a throw-away certificate) whose access log and stub_status count
what hail sent. Re-exported by support.py."""

import collections
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from support import (LOOPBACK, NGINX, _kill_group, check_accounting, describe, free_port, http_get,
                     make_self_signed, run_hail, wait_until, write_files)

NGINX_LOG_FORMAT = ("$status $request_method $uri $connection $connection_requests "
                    "$server_protocol $http_host $http_x_hail_test $msec r=$ssl_session_reused")
LogEntry = collections.namedtuple("LogEntry", "status method uri connection connection_requests "
                                              "protocol host x_hail_test msec reused")

NGINX_CONF = """\
{user}worker_processes 1;
worker_rlimit_nofile {nofile};
daemon off;
master_process on;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;

events {{
    worker_connections 12000;
    multi_accept on;
}}

http {{
    log_format hail_counts '{log_format}';
    access_log {dir}/access.log hail_counts;
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    default_type application/octet-stream;
    keepalive_requests 1000000000;
    keepalive_timeout 75s;
    sendfile on;
    tcp_nodelay on;

    server {{
        listen {host}:{port} backlog=4096;
        server_name localhost;
        root {dir}/www;

        location = /nginx_status {{
            stub_status;
            access_log off;
        }}
        location / {{
        }}
    }}
{tls_servers}}}
"""

# With Nginx(tls=True): HTTPS with HTTP/2 (ALPN h2, http/1.1), HTTPS offering only http/1.1,
# and cleartext prior-knowledge HTTP/2 (h2c), each on its own port, same files.
NGINX_TLS_SERVERS = """    ssl_certificate {dir}/cert.pem;
    ssl_certificate_key {dir}/key.pem;
    ssl_session_cache shared:hail:1m;
    server {{
        listen {host}:{tls_port} ssl http2;
        root {dir}/www;
    }}
    server {{
        listen {host}:{tls1_port} ssl;
        root {dir}/www;
    }}
    server {{
        listen {host}:{h2c_port} http2;
        root {dir}/www;
    }}
"""

# Static files every Nginx instance serves from its root (name -> size in bytes).
NGINX_FILES = {"1k.bin": 1024, "100.bin": 100, "16k.bin": 16 * 1024}


def nginx_available():
    return os.path.isfile(NGINX) and os.access(NGINX, os.X_OK)


def require_nginx():
    """Nginx is a hard requirement of the tests that use it: a clear failure, never a skip."""
    if not nginx_available():
        raise AssertionError("nginx is not installed (%s is missing): these tests need Debian's "
                             "nginx; `./run test` installs it (apt-get install nginx)" % NGINX)


class Nginx:
    """Debian's nginx in a private temp dir (config, pid, logs, temp paths, static files), on
    127.0.0.1 and a port picked by binding to 0. One worker process. Every request except
    /nginx_status is logged with NGINX_LOG_FORMAT; log_mark()/log_entries() count them, and
    stub_status()/quiesce() read stub_status (each call is one connection and one request,
    which stub_delta() subtracts)."""

    def __init__(self, attempts=5, ready_timeout=10.0, tls=False):
        self.tls = tls
        self.tls_port = self.tls1_port = self.h2c_port = None
        self.attempts = attempts
        self.ready_timeout = ready_timeout
        self.dir = None
        self.proc = None
        self.port = None
        self.status_calls = 0

    def __enter__(self):
        require_nginx()
        self.dir = tempfile.mkdtemp(prefix="hail-nginx-")
        try:
            www = os.path.join(self.dir, "www")
            os.mkdir(www)
            write_files(www, NGINX_FILES)
            if self.tls:
                make_self_signed(self.dir)
            last_error = ""
            for _ in range(self.attempts):
                if self._start(free_port()):
                    return self
                last_error = self.error_log()
            raise AssertionError("nginx did not start in %d attempts; error.log:\n%s"
                                 % (self.attempts, last_error))
        except BaseException:
            self._cleanup()
            raise

    def _start(self, port):
        is_root = os.geteuid() == 0
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        nofile = 30000 if is_root or hard == resource.RLIM_INFINITY else min(30000, hard)
        tls_servers = ""
        if self.tls:
            self.tls_port, self.tls1_port, self.h2c_port = free_port(), free_port(), free_port()
            tls_servers = NGINX_TLS_SERVERS.format(dir=self.dir, host=LOOPBACK,
                                                   tls_port=self.tls_port,
                                                   tls1_port=self.tls1_port,
                                                   h2c_port=self.h2c_port)
        conf = NGINX_CONF.format(user="user root;\n" if is_root else "", nofile=nofile,
                                 dir=self.dir, log_format=NGINX_LOG_FORMAT, host=LOOPBACK,
                                 port=port, tls_servers=tls_servers)
        conf_path = os.path.join(self.dir, "nginx.conf")
        with open(conf_path, "w") as f:
            f.write(conf)
        for name in ("access.log", "error.log"):
            open(os.path.join(self.dir, name), "w").close()
        self.proc = subprocess.Popen(
            [NGINX, "-p", self.dir + "/", "-e", os.path.join(self.dir, "error.log"),
             "-c", conf_path],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break  # failed (e.g. the port was taken meanwhile): the caller retries
            try:
                status, _ = http_get(port, "/nginx_status", timeout=1)
                if status == 200:
                    self.port = port
                    self.status_calls = 1
                    return True
            except OSError:
                pass
            time.sleep(0.02)
        _kill_group(self.proc, signal.SIGTERM, 5)
        self.proc = None
        return False

    @property
    def url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    @property
    def https_url(self):
        return "https://%s:%d" % (LOOPBACK, self.tls_port)

    @property
    def https_h1_url(self):
        """HTTPS on a port whose ALPN offers only http/1.1."""
        return "https://%s:%d" % (LOOPBACK, self.tls1_port)

    @property
    def h2c_url(self):
        return "http://%s:%d" % (LOOPBACK, self.h2c_port)

    def error_log(self):
        try:
            with open(os.path.join(self.dir, "error.log")) as f:
                return f.read()[-4000:]
        except OSError:
            return ""

    # -- access log
    def log_mark(self):
        """The current end of the access log; log_entries(mark) returns what came after."""
        return os.path.getsize(os.path.join(self.dir, "access.log"))

    def log_entries(self, mark=0):
        with open(os.path.join(self.dir, "access.log"), "rb") as f:
            f.seek(mark)
            data = f.read().decode("utf-8", "replace")
        entries = []
        for line in data.splitlines():
            fields = line.split(" ")
            if len(fields) != len(LogEntry._fields):
                raise AssertionError("unexpected access-log line %r" % line)
            entries.append(LogEntry(int(fields[0]), fields[1], fields[2], int(fields[3]),
                                    int(fields[4]), *fields[5:8], float(fields[8]),
                                    fields[9] == "r=r"))
        return entries

    # -- stub_status
    def stub_status(self):
        """{"active", "accepts", "handled", "requests", "reading", "writing", "waiting",
        "calls"}: calls counts stub_status requests so far, this one included."""
        if self.proc is None or self.proc.poll() is not None:
            raise AssertionError("nginx is not running; error.log:\n%s" % self.error_log())
        status, body = http_get(self.port, "/nginx_status")
        self.status_calls += 1
        text = body.decode()
        if status != 200:
            raise AssertionError("stub_status answered %d: %r" % (status, text))
        m = re.search(r"Active connections:\s*(\d+)\s+server accepts handled requests\s+"
                      r"(\d+)\s+(\d+)\s+(\d+)\s+Reading:\s*(\d+)\s+Writing:\s*(\d+)\s+"
                      r"Waiting:\s*(\d+)", text)
        if not m:
            raise AssertionError("cannot parse stub_status: %r" % text)
        keys = ("active", "accepts", "handled", "requests", "reading", "writing", "waiting")
        snap = dict(zip(keys, map(int, m.groups())))
        snap["calls"] = self.status_calls
        return snap

    def quiesce(self, timeout=10.0):
        """Waits until nginx has no connection but the stub_status one (so every request of a
        finished client has been logged: nginx logs a request before it closes or parks its
        connection) and returns that stub_status snapshot."""
        return wait_until(lambda: (lambda s: s if s["active"] == 1 else None)(self.stub_status()),
                          timeout, interval=0.05, what="nginx to close every client connection")

    @staticmethod
    def stub_delta(before, after):
        """Accepted connections and requests between two snapshots, without the stub_status
        calls made after `before` (each one connection and one request)."""
        calls = after["calls"] - before["calls"]
        return {"accepts": after["accepts"] - before["accepts"] - calls,
                "requests": after["requests"] - before["requests"] - calls}

    def _cleanup(self):
        if self.proc is not None:
            _kill_group(self.proc, signal.SIGTERM, 10)
            self.proc = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __exit__(self, exc_type, exc, tb):
        self._cleanup()
        return False


class NginxTestCase(unittest.TestCase):
    """Test classes sharing one private nginx for all their tests (NGINX_TLS = True adds the HTTPS,
    HTTP/2 and h2c ports); load() runs hail and returns (run, the access-log entries it caused)."""

    NGINX_TLS = False

    @classmethod
    def setUpClass(cls):
        require_nginx()
        cls.nginx = Nginx(tls=cls.NGINX_TLS).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.nginx.__exit__(None, None, None)

    def load(self, args, timeout=60, code=0):
        mark = self.nginx.log_mark()
        r = run_hail(list(args) + ["-q", "--json", "-"], timeout=timeout)
        self.assertEqual(r.code, code, describe(r))
        check_accounting(r.json)
        self.nginx.quiesce()
        return r, self.nginx.log_entries(mark)
