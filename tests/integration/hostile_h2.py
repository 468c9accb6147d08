"""HostileH2Server: a small threaded HTTP/2 server that writes raw frames (no HTTP/2 library: the
standard library only), for the misbehaviours a client meets in the wild and a well-behaved server
library refuses to produce: GOAWAY below streams in flight, refused and reset streams, stream
limits lowered mid-run, windows that never open, WINDOW_UPDATE overflow, PING and SETTINGS floods,
huge or broken HPACK blocks, CONTINUATION floods, DATA on closed streams, no server preface,
connections that go silent. Loopback only, every thread and wait bounded; stopped by its context
manager. Cleartext (prior knowledge, hail --h2) or TLS with ALPN h2 (tls=True).

HostileH2Server(name) serves every connection with the behaviour BEHAVIOURS[name] of
hostile_h2_behaviours.py (a function of one H2Conn), or with a function given instead of a name. The server counts on its side what the client did: connections, requests (streams
the client opened), the streams it answered, reset or refused by GOAWAY, the RST_STREAM and GOAWAY
codes the client sent, PING and SETTINGS acknowledgements, and streams the client opened beyond
an acknowledged SETTINGS_MAX_CONCURRENT_STREAMS (stats()).
"""

import os
import socket
import ssl
import struct
import subprocess
import tempfile
import threading
import time

LOOPBACK = "127.0.0.1"
MAX_CONNECTIONS = 64
IDLE_LIMIT_S = 30.0
POLL_S = 0.05
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# Frame types and flags (RFC 9113 §6).
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, \
    CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
# Settings and error codes.
MAX_CONCURRENT_STREAMS, INITIAL_WINDOW_SIZE = 0x3, 0x4
CODES = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
         "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
         "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
NO_ERROR, PROTOCOL_ERROR, INTERNAL_ERROR, FLOW_CONTROL_ERROR = 0, 1, 2, 3
REFUSED_STREAM, CANCEL = 7, 8


def frame(ftype, flags, sid, payload=b""):
    return (struct.pack(">I", len(payload))[1:] + bytes([ftype, flags])
            + struct.pack(">I", sid & 0x7FFFFFFF) + payload)


def settings_frame(**values):
    ids = {"max_concurrent_streams": MAX_CONCURRENT_STREAMS,
           "initial_window_size": INITIAL_WINDOW_SIZE}
    return frame(SETTINGS, 0, 0, b"".join(struct.pack(">HI", ids[k], v)
                                          for k, v in values.items()))


def hpack_int(value, prefix_bits, first=0):
    """An HPACK integer (RFC 7541 §5.1) with the high bits of its first byte `first`."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out = bytearray([first | limit])
    value -= limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def literal(name, value):
    """A literal header field without indexing, new name (RFC 7541 §6.2.2), no Huffman."""
    return (b"\x00" + hpack_int(len(name), 7) + name + hpack_int(len(value), 7) + value)


STATUS_200 = b"\x88"  # indexed :status 200 (static table entry 8)
BODY = b"hostile h2 ok"
RESPONSE_BLOCK = STATUS_200 + b"\x0f\x0d" + bytes([len(str(len(BODY)))]) + str(len(BODY)).encode()


def response_frames(sid, body=BODY):
    return (frame(HEADERS, END_HEADERS, sid, RESPONSE_BLOCK)
            + frame(DATA, END_STREAM, sid, body))


class _Closed(Exception):
    """The client went away (or the server is stopping)."""


def make_certificate(directory):
    """cert.pem and key.pem in `directory`: a throw-away self-signed pair for 127.0.0.1."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                    "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", key, "-out", cert],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    return cert, key


class H2Conn:
    """One client connection, frame by frame. Behaviours call requests() to wait for requests and
    the send helpers to answer; client SETTINGS and PINGs are acknowledged as they are read (unless
    ack=False), and DATA is credited back with WINDOW_UPDATE (unless credit=False)."""

    def __init__(self, server, sock):
        self.server = server
        self.sock = sock
        self.buf = bytearray()
        self.preface_seen = False
        self.done = []      # stream ids whose request ended, not yet returned by requests()
        self.open = set()   # streams the client opened and that are neither answered nor reset
        self.index = 0      # requests opened on this connection
        self.limit = None   # an acknowledged SETTINGS_MAX_CONCURRENT_STREAMS
        self.pending_limit = []  # limits sent, waiting for their ACK (in order)
        self.ack = True
        self.credit = True
        self.eof = False

    # ---- sending

    def send(self, data):
        view = memoryview(data)
        while view:
            if self.server.stopping.is_set():
                raise _Closed()
            try:
                n = self.sock.send(view)
            except (socket.timeout, ssl.SSLWantWriteError):
                continue
            except (OSError, ssl.SSLError):
                raise _Closed() from None
            view = view[n:]

    def settings(self, **values):
        if "max_concurrent_streams" in values:
            self.pending_limit.append(values["max_concurrent_streams"])
        self.send(settings_frame(**values))

    def respond(self, sid, body=BODY):
        self.open.discard(sid)
        self.server.bump("answered")
        self.send(response_frames(sid, body))

    def rst(self, sid, code):
        self.open.discard(sid)
        self.server.bump("reset_" + CODES[code])
        self.send(frame(RST_STREAM, 0, sid, struct.pack(">I", code)))

    def goaway(self, last_sid, code=NO_ERROR):
        """GOAWAY; the open streams above last_sid are refused (counted)."""
        for sid in [s for s in self.open if s > last_sid]:
            self.open.discard(sid)
            self.server.bump("refused")
        self.send(frame(GOAWAY, 0, 0, struct.pack(">II", last_sid, code)))

    def close(self):
        """Shut down our side, then read until the client closes: a FIN, never a reset."""
        try:
            if isinstance(self.sock, ssl.SSLSocket):
                self.sock.unwrap()
            else:
                self.sock.shutdown(socket.SHUT_WR)
        except (OSError, ssl.SSLError, ValueError):
            raise _Closed() from None
        self.drain()

    def drain(self):
        """Reads (and handles) frames until the client closes."""
        while not self.eof:
            self.pump()

    # ---- receiving

    def _recv(self, timeout):
        """Some bytes; b"" at EOF; None when `timeout` passed first."""
        deadline = time.monotonic() + timeout if timeout is not None else None
        quiet_since = time.monotonic()
        while True:
            if self.server.stopping.is_set():
                raise _Closed()
            try:
                return self.sock.recv(65536)
            except (socket.timeout, ssl.SSLWantReadError):
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    return None
                if now - quiet_since > IDLE_LIMIT_S:
                    raise _Closed()
            except (OSError, ssl.SSLError):
                raise _Closed() from None

    def pump(self, timeout=None):
        """Reads once and handles every whole frame; False when nothing came within `timeout`."""
        chunk = self._recv(timeout)
        if chunk is None:
            return False
        if not chunk:
            self.eof = True
            raise _Closed()
        self.buf += chunk
        self._frames()
        return True

    def _frames(self):
        if not self.preface_seen:
            if len(self.buf) < len(PREFACE):
                return
            if bytes(self.buf[:len(PREFACE)]) != PREFACE:
                raise _Closed()  # not an HTTP/2 client
            del self.buf[:len(PREFACE)]
            self.preface_seen = True
        while len(self.buf) >= 9:
            length = int.from_bytes(self.buf[:3], "big")
            if len(self.buf) < 9 + length:
                return
            ftype, flags = self.buf[3], self.buf[4]
            sid = int.from_bytes(self.buf[5:9], "big") & 0x7FFFFFFF
            payload = bytes(self.buf[9:9 + length])
            del self.buf[:9 + length]
            self._frame(ftype, flags, sid, payload)

    def _frame(self, ftype, flags, sid, payload):
        srv = self.server
        if ftype == HEADERS:
            if sid not in self.open and sid > 0:
                self.index += 1
                self.open.add(sid)
                srv.bump("requests")
                if self.limit is not None and len(self.open) > self.limit:
                    srv.bump("over_limit")
                srv.max_open = max(srv.max_open, len(self.open))
            if flags & END_STREAM:
                self.done.append(sid)
        elif ftype == DATA:
            srv.bump("data_bytes", len(payload))
            if self.credit and payload:
                inc = struct.pack(">I", len(payload))
                self.send(frame(WINDOW_UPDATE, 0, 0, inc) + frame(WINDOW_UPDATE, 0, sid, inc))
            if flags & END_STREAM:
                self.done.append(sid)
        elif ftype == RST_STREAM:
            code = struct.unpack(">I", payload)[0]
            srv.bump("client_rst_" + (CODES[code] if code < len(CODES) else str(code)))
            self.open.discard(sid)
            self.done = [s for s in self.done if s != sid]
        elif ftype == SETTINGS:
            if flags & ACK:
                srv.bump("settings_acked")
                if self.pending_limit:
                    self.limit = self.pending_limit.pop(0)
            elif self.ack:
                self.send(frame(SETTINGS, ACK, 0))
        elif ftype == PING:
            if flags & ACK:
                srv.bump("pings_acked")
            elif self.ack:
                self.send(frame(PING, ACK, 0, payload))
        elif ftype == GOAWAY:
            code = struct.unpack(">I", payload[4:8])[0]
            srv.bump("client_goaway_" + (CODES[code] if code < len(CODES) else str(code)))

    def requests(self, gather=0.0, timeout=None):
        """Stream ids of the requests that ended since the last call: waits for at least one, then
        for `gather` seconds of quiet (so that a batch of streams comes back as one list). [] when
        `timeout` seconds passed without one."""
        deadline = time.monotonic() + timeout if timeout is not None else None
        while not self.done:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return []
            self.pump(left)
        while gather and self.pump(gather):
            pass
        out, self.done = self.done, []
        return out


class HostileH2Server:
    """See the module docstring. .url is "http(s)://127.0.0.1:PORT"."""

    def __init__(self, behaviour, tls=False):
        if isinstance(behaviour, str):
            from hostile_h2_behaviours import BEHAVIOURS  # they import this module's helpers
            behaviour = BEHAVIOURS[behaviour]
        self.behaviour = behaviour
        self.tls = tls
        self.context = None
        self.tmp = None
        self.sock = None
        self.port = None
        self.lock = threading.Lock()
        self.counts = {}
        self.max_open = 0
        self.clients = set()
        self.threads = []
        self.stopping = threading.Event()

    def __enter__(self):
        if self.tls:
            self.tmp = tempfile.TemporaryDirectory(prefix="hail-hostile-h2-")
            self.cert, key = make_certificate(self.tmp.name)
            self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.context.load_cert_chain(self.cert, key)
            self.context.set_alpn_protocols(["h2"])
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((LOOPBACK, 0))
        self.sock.listen(128)
        self.sock.settimeout(POLL_S)
        self.port = self.sock.getsockname()[1]
        t = threading.Thread(target=self._accept_loop, daemon=True)
        t.start()
        self.threads.append(t)
        return self

    @property
    def url(self):
        return "%s://%s:%d" % ("https" if self.tls else "http", LOOPBACK, self.port)

    def bump(self, key, n=1):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + n

    def stats(self):
        with self.lock:
            out = dict(self.counts)
            out["max_open"] = self.max_open
            return out

    def active(self):
        with self.lock:
            return len(self.clients)

    def __exit__(self, exc_type, exc, tb):
        self.stopping.set()
        try:
            self.sock.close()
        except OSError:
            pass
        with self.lock:
            clients = list(self.clients)
            threads = list(self.threads)
        for c in clients:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in threads:
            t.join(timeout=5)
        if self.tmp is not None:
            self.tmp.cleanup()
        return False

    def _accept_loop(self):
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                if self.stopping.is_set() or len(self.clients) >= MAX_CONNECTIONS:
                    self.counts["rejected"] = self.counts.get("rejected", 0) + 1
                    conn.close()
                    continue
                self.counts["connections"] = self.counts.get("connections", 0) + 1
                self.clients.add(conn)
                t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
                self.threads = [x for x in self.threads if x.is_alive()]
                self.threads.append(t)
            t.start()

    def _serve(self, raw):
        sock = raw
        try:
            raw.settimeout(POLL_S)
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.context is not None:
                raw.settimeout(5.0)
                sock = self.context.wrap_socket(raw, server_side=True)
                sock.settimeout(POLL_S)
            self.behaviour(H2Conn(self, sock))
        except (_Closed, OSError, ssl.SSLError):
            pass
        finally:
            with self.lock:
                self.clients.discard(raw)
            try:
                sock.close()
            except OSError:
                pass
