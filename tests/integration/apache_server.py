"""Apache httpd from Debian (apache2 with mod_http2 and mod_ssl) for the integration tests: a
private instance (config, logs, files, a throw-away certificate) whose access log and mod_status
count what hail sent, so that hail is judged against a second real server besides nginx.

One Apache serves, on two loopback ports picked by binding to 0:
  url        cleartext, `Protocols h2c http/1.1` with H2Direct (prior-knowledge h2c accepted)
  https_url  TLS, `Protocols h2 http/1.1` (ALPN picks h2 unless the client offers only http/1.1)
and on both /100.bin, /1k.bin, /16k.bin and /cgi/count, a CGI script that reads the request body
(CONTENT_LENGTH bytes) and answers 200 with the number of bytes it read, as the X-Received
response header (logged) and as the body."""

import collections
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time

from support import (LOOPBACK, _kill_group, free_port, http_get, make_self_signed, wait_until,
                     write_files)

APACHE = "/usr/sbin/apache2"
APACHE_MODULES = "/usr/lib/apache2/modules"
# (module identifier, file): Debian compiles log_config, logio and unixd in (`apache2 -l`), so
# their LoadModule lines are guarded by <IfModule !...> and the same config works either way.
APACHE_LOAD = (("mpm_event_module", "mod_mpm_event.so"),
               ("unixd_module", "mod_unixd.so"),
               ("log_config_module", "mod_log_config.so"),
               ("logio_module", "mod_logio.so"),
               ("authz_core_module", "mod_authz_core.so"),
               ("status_module", "mod_status.so"),
               ("cgid_module", "mod_cgid.so"),
               ("socache_shmcb_module", "mod_socache_shmcb.so"),
               ("ssl_module", "mod_ssl.so"),
               ("http2_module", "mod_http2.so"))

# One access-log line per request, fields separated by single spaces ("-" when absent): the client
# port names the connection (see ApacheLogEntry), %k counts the earlier requests on it (HTTP/1.x),
# %I the bytes received for the request, head and body (mod_logio; with the bytes Apache peeked
# at, see test_apache), X-Received what the CGI read of the body.
APACHE_LOG_FORMAT = ("%>s %m %U %H %{remote}p %k %X %I %O %{Content-Length}i %{X-Received}o "
                     "%{SSL_PROTOCOL}x %{SSL_SESSION_RESUMED}x %{local}p")
ApacheLogEntry = collections.namedtuple(
    "ApacheLogEntry", "status method path protocol port keepalives conn_status bytes_in bytes_out "
                      "content_length received tls resumed local_port")
ApacheLogEntry.__doc__ = """One access-log line. `port` is the client's port: over a few hundred
connections it names one connection, as the kernel moves on through its ephemeral range before it
hands out a port again (a 1 s --no-keepalive run of ~7,500 connections did reuse some); tests
check it by `keepalives` (%k) running 0, 1, ... on each port."""

# The CGI reads exactly CONTENT_LENGTH bytes (what the server passes on) and says how many came.
COUNT_CGI = """#!/bin/sh
n=$(head -c "${CONTENT_LENGTH:-0}" | wc -c)
printf 'Content-Type: text/plain\\r\\nX-Received: %s\\r\\n\\r\\n%s\\n' "$n" "$n"
"""

APACHE_CONF = """\
ServerRoot {dir}
ServerName 127.0.0.1
PidFile {dir}/httpd.pid
DefaultRuntimeDir {dir}
Mutex file:{dir} default
ErrorLog {dir}/error.log
LogLevel warn
{load_modules}
{user}
ScriptSock {dir}/cgid.sock
SSLSessionCache shmcb:{dir}/ssl_scache(512000)

# One child process, enough threads for every connection the tests open at once (event MPM:
# idle keep-alive connections hold no thread).
StartServers 1
ServerLimit 1
ThreadLimit 64
ThreadsPerChild 64
MaxRequestWorkers 64
MinSpareThreads 1
MaxSpareThreads 128
# Connections end when hail ends them, not after a request count or a short idle time.
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout 60
Timeout 30

Listen {host}:{port}
Listen {host}:{tls_port}
Protocols h2c http/1.1
H2Direct on
# Without it mod_status's Total Accesses stays 0 (Apache counts requests only then).
ExtendedStatus on
LogFormat "{log_format}" hail
# Our own status requests stay out: settle() watches the log stop growing while it polls them.
CustomLog {dir}/access.log hail "expr=%{{REQUEST_URI}} != '{status_path}'"
DocumentRoot {dir}/www
<Directory {dir}/www>
    Require all granted
</Directory>
<Directory {dir}/www/cgi>
    Options +ExecCGI
    SetHandler cgi-script
</Directory>
<Location {status_path}>
    SetHandler server-status
</Location>

<VirtualHost {host}:{tls_port}>
    SSLEngine on
    SSLCertificateFile {dir}/cert.pem
    SSLCertificateKeyFile {dir}/key.pem
    Protocols h2 http/1.1
</VirtualHost>
"""

# Static files every Apache instance serves from its root (name -> size in bytes).
APACHE_FILES = {"100.bin": 100, "1k.bin": 1024, "16k.bin": 16 * 1024}
STATUS_PATH = "/server-status"


def apache_missing():
    """Why Apache cannot be run here (a sentence), or None when it can."""
    if not (os.path.isfile(APACHE) and os.access(APACHE, os.X_OK)):
        return ("apache2 is not installed (%s is missing); `./run test` installs it "
                "(apt-get install apache2)" % APACHE)
    built_in = subprocess.run([APACHE, "-l"], stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=10).stdout.split()
    missing = [f for _, f in APACHE_LOAD if f[:-3] + ".c" not in built_in
               and not os.path.isfile(os.path.join(APACHE_MODULES, f))]
    if missing:
        return "apache2's modules %s are missing from %s" % (", ".join(missing), APACHE_MODULES)
    return None


def _reachable_by_others(path):
    """Whether every directory from / down to `path` lets other users through (o+x)."""
    path = os.path.abspath(path)
    while True:
        if not os.stat(path).st_mode & stat.S_IXOTH:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


class Apache:
    """Debian's apache2 (event MPM, one child process) in a private temp dir, in the foreground
    as its own process group. As root its children and the CGI run as www-data (else nobody),
    so the temp dir is made readable by them; otherwise everything runs as the caller.

    Every request except those to /server-status (ours) is logged with APACHE_LOG_FORMAT;
    log_mark() / settle() / log_entries() read what a client caused, and status() and
    idle_status() read mod_status (Total Accesses, BusyWorkers): each call is one connection and
    one request, which accesses_delta() subtracts."""

    def __init__(self, attempts=5, ready_timeout=15.0):
        self.attempts = attempts
        self.ready_timeout = ready_timeout
        self.dir = None
        self.proc = None
        self.port = self.tls_port = None
        self.status_calls = 0

    def __enter__(self):
        why = apache_missing()
        if why:
            raise AssertionError(why)
        is_root = os.geteuid() == 0
        base = None
        if is_root and not _reachable_by_others(tempfile.gettempdir()):
            base = "/tmp"  # the unprivileged children must reach the docroot and the CGI
        self.dir = tempfile.mkdtemp(prefix="hail-apache-", dir=base)
        try:
            os.chmod(self.dir, 0o755)
            www = os.path.join(self.dir, "www")
            os.makedirs(os.path.join(www, "cgi"))
            write_files(www, APACHE_FILES)
            cgi = os.path.join(www, "cgi", "count")
            with open(cgi, "w") as f:
                f.write(COUNT_CGI)
            os.chmod(cgi, 0o755)
            make_self_signed(self.dir)
            last_error = ""
            for _ in range(self.attempts):
                if self._start(is_root):
                    return self
                last_error = self.error_log()
            raise AssertionError("apache2 did not start in %d attempts; its output and "
                                 "error.log:\n%s" % (self.attempts, last_error))
        except BaseException:
            self._cleanup()
            raise

    def _start(self, is_root):
        """Starts Apache on two fresh ports; False when it did not come up (typically a port
        taken between free_port() and Apache's bind: Apache exits, the caller retries)."""
        port = free_port()
        tls_port = free_port()
        while tls_port == port:
            tls_port = free_port()
        user = ""
        if is_root:
            try:
                pw = pwd.getpwnam("www-data")
            except KeyError:
                pw = pwd.getpwnam("nobody")
            user = "User #%d\nGroup #%d" % (pw.pw_uid, pw.pw_gid)
        load = "\n".join("<IfModule !%s>\n    LoadModule %s %s\n</IfModule>"
                         % (ident, ident, os.path.join(APACHE_MODULES, so))
                         for ident, so in APACHE_LOAD)
        conf = APACHE_CONF.format(dir=self.dir, host=LOOPBACK, port=port, tls_port=tls_port,
                                  load_modules=load, user=user, log_format=APACHE_LOG_FORMAT,
                                  status_path=STATUS_PATH)
        conf_path = os.path.join(self.dir, "httpd.conf")
        with open(conf_path, "w") as f:
            f.write(conf)
        for name in ("access.log", "error.log"):
            open(os.path.join(self.dir, name), "w").close()
        # Apache reports config and bind errors on stderr before its error log is open.
        with open(os.path.join(self.dir, "stderr.log"), "w") as err:
            self.proc = subprocess.Popen([APACHE, "-d", self.dir, "-f", conf_path, "-DFOREGROUND"],
                                         stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                                         start_new_session=True)
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                status, body = http_get(port, STATUS_PATH + "?auto", timeout=1)
                # Our Apache, not whoever else took the port: it names its MPM.
                if status == 200 and b"ServerMPM: event" in body:
                    self.port, self.tls_port = port, tls_port
                    self.status_calls = 1
                    return True
            except OSError:
                pass
            time.sleep(0.05)
        _kill_group(self.proc, signal.SIGTERM, 5)
        self.proc = None
        return False

    @property
    def url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    @property
    def https_url(self):
        return "https://%s:%d" % (LOOPBACK, self.tls_port)

    def error_log(self):
        text = ""
        for name in ("stderr.log", "error.log"):
            try:
                with open(os.path.join(self.dir, name)) as f:
                    text += f.read()[-3000:]
            except OSError:
                pass
        return text

    # -- mod_status
    def status(self):
        """mod_status's machine-readable page as {"accesses", "busy_workers", "calls"}: calls
        counts status() requests so far, this one included (Apache counts it in the next
        snapshot's accesses, once it is done)."""
        if self.proc is None or self.proc.poll() is not None:
            raise AssertionError("apache2 is not running; error.log:\n%s" % self.error_log())
        code, body = http_get(self.port, STATUS_PATH + "?auto")
        self.status_calls += 1
        text = body.decode("utf-8", "replace")
        if code != 200:
            raise AssertionError("server-status answered %d: %r" % (code, text[:500]))
        fields = dict(re.findall(r"^([A-Za-z ]+): (.*)$", text, re.M))
        try:
            return {"accesses": int(fields["Total Accesses"]),
                    "busy_workers": int(fields["BusyWorkers"]), "calls": self.status_calls}
        except (KeyError, ValueError):
            raise AssertionError("cannot parse server-status: %r" % text[:1000]) from None

    def idle_status(self, timeout=10.0):
        """A status() snapshot taken when no worker but its own was busy. Apache counts a request
        in Total Accesses after its answer went out, but before the worker turns idle: so such
        a snapshot counts every request Apache has read so far (over HTTP/1.x; see test_apache
        for HTTP/2)."""
        return wait_until(lambda: (lambda s: s if s["busy_workers"] == 1 else None)(self.status()),
                          timeout, interval=0.05, what="apache2's workers to go idle")

    @staticmethod
    def accesses_delta(before, after):
        """Requests Apache counted between two idle_status() snapshots, without the status calls
        (each counted once it has finished, so the `after` one is not among them yet)."""
        return after["accesses"] - before["accesses"] - (after["calls"] - before["calls"])

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
            if len(fields) != len(ApacheLogEntry._fields):
                raise AssertionError("unexpected access-log line %r" % line)
            num = [int(v) for v in fields[4:6]]
            opt = [None if v == "-" else int(v) for v in fields[9:11]]
            entries.append(ApacheLogEntry(int(fields[0]), *fields[1:4], *num, fields[6],
                                          int(fields[7]), int(fields[8]), *opt, *fields[11:13],
                                          int(fields[13])))
        return entries

    def settle(self, mark, at_least, timeout=15.0):
        """The access-log entries after `mark`, once Apache has finished with a client that has
        exited: Apache logs a request after its response went out, so hail may be gone before
        the line is written. Waits (bounded) until there are `at_least` entries, no worker but
        our status request is busy, and the log did not grow since the previous look."""
        deadline = time.monotonic() + timeout
        size = -1
        while True:
            new_size = self.log_mark()
            grew, size = new_size != size, new_size
            entries = self.log_entries(mark)
            if not grew and len(entries) >= at_least and self.status()["busy_workers"] == 1:
                return entries
            if time.monotonic() >= deadline:
                raise AssertionError("after %ss apache2 has logged %d requests (expected at least "
                                     "%d), busy workers: %d" % (timeout, len(entries), at_least,
                                                                self.status()["busy_workers"]))
            time.sleep(0.1)

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
