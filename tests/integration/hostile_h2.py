"""HostileH2Server: a small threaded HTTP/2 server that writes raw frames (no HTTP/2 library: the
standard library only), for the misbehaviours a client meets in the wild and a well-behaved server
library refuses to produce: GOAWAY below streams in flight, refused and reset streams, stream
limits lowered mid-run, windows that never open, WINDOW_UPDATE overflow, PING and SETTINGS floods,
huge or broken HPACK blocks, CONTINUATION floods, DATA on closed streams, no server preface,
connections that go silent. Loopback only, every thread and wait bounded; stopped by its context
manager. Cleartext (prior knowledge, hail --h2) or TLS with ALPN h2 (tls=True).

HostileH2Server(name) serves every connection with the behaviour BEHAVIOURS[name] (a function of
one H2Conn). The server counts on its side what the client did: connections, requests (streams
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
        self.behaviour = BEHAVIOURS[behaviour] if isinstance(behaviour, str) else behaviour
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


# --------------------------------------------------------------------------------------------
# Behaviours: each serves one connection. The preface is the server's SETTINGS (RFC 9113 §3.4).

def ok(c):
    c.settings(max_concurrent_streams=100)
    while True:
        for sid in c.requests():
            c.respond(sid)


def goaway_low(c):
    """Waits for a batch of streams, sends GOAWAY with the second lowest as the last stream id
    (the streams above it are refused: never processed), answers the two below, and keeps the
    connection open until the client closes it."""
    c.settings(max_concurrent_streams=100)
    batch = sorted(c.requests(gather=0.1))
    last = batch[min(1, len(batch) - 1)]
    c.goaway(last)
    for sid in batch:
        if sid <= last:
            c.respond(sid)
    c.drain()


def goaway_close(c):
    """The same, then closes at once after the answers (a graceful shutdown done in a hurry)."""
    c.settings(max_concurrent_streams=100)
    batch = sorted(c.requests(gather=0.1))
    last = batch[0]
    c.goaway(last)
    c.respond(last)
    c.close()


def goaway_close_unanswered(c):
    """GOAWAY that accepts the lowest stream, then a close without answering it."""
    c.settings(max_concurrent_streams=100)
    batch = sorted(c.requests(gather=0.1))
    c.goaway(batch[0])
    c.close()


def refuse_first(c):
    """RST_STREAM REFUSED_STREAM to the first request of each connection, then answers."""
    c.settings(max_concurrent_streams=100)
    first = True
    while True:
        for sid in c.requests():
            if first:
                c.rst(sid, REFUSED_STREAM)
                first = False
            else:
                c.respond(sid)


def refuse_all(c):
    c.settings(max_concurrent_streams=100)
    while True:
        for sid in c.requests():
            c.rst(sid, REFUSED_STREAM)


def rst_internal(c):
    c.settings(max_concurrent_streams=100)
    while True:
        for sid in c.requests():
            c.rst(sid, INTERNAL_ERROR)


def streams_lowered(c):
    """Allows 8 streams; after the first batch, lowers the limit to 1 (and answers the batch):
    the client must never have more than one stream open once it acknowledged that."""
    c.settings(max_concurrent_streams=8)
    batch = c.requests(gather=0.1)
    c.settings(max_concurrent_streams=1)
    for sid in batch:
        c.respond(sid)
    while True:
        for sid in c.requests(gather=0.02):
            c.respond(sid)


def streams_zero(c):
    """Answers the first batch, then allows no streams at all."""
    c.settings(max_concurrent_streams=8)
    batch = c.requests(gather=0.1)
    c.settings(max_concurrent_streams=0)
    for sid in batch:
        c.respond(sid)
    c.drain()


def window_zero(c):
    """A stream window of 0 that never opens: a request body can never be sent."""
    c.settings(max_concurrent_streams=100, initial_window_size=0)
    c.credit = False
    c.drain()


def window_tiny(c):
    c.settings(max_concurrent_streams=100, initial_window_size=10)
    c.credit = False
    c.drain()


def window_overflow_connection(c):
    """A WINDOW_UPDATE that takes the connection window past 2^31-1 (RFC 9113 §6.9.1)."""
    c.settings(max_concurrent_streams=100)
    c.requests()
    c.send(frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0x7FFFFFFF)))
    c.drain()


def window_overflow_stream(c):
    c.settings(max_concurrent_streams=100)
    while True:
        for sid in c.requests():
            c.send(frame(WINDOW_UPDATE, 0, sid, struct.pack(">I", 0x7FFFFFFF)))


PING_FLOOD = 20000


def ping_flood(c):
    """Thousands of PINGs before each answer, reading the client's acknowledgements."""
    c.settings(max_concurrent_streams=100)
    while True:
        for sid in c.requests():
            c.send(b"".join(frame(PING, 0, 0, struct.pack(">Q", i)) for i in range(PING_FLOOD)))
            c.respond(sid)


def settings_flood(c):
    c.settings(max_concurrent_streams=100)
    while True:
        for sid in c.requests():
            c.send(frame(SETTINGS, 0, 0) * PING_FLOOD)
            c.respond(sid)


def ping_flood_unread(c):
    """PINGs without end, never reading the acknowledgements (until the client gives up)."""
    c.settings(max_concurrent_streams=100)
    c.requests()
    block = b"".join(frame(PING, 0, 0, struct.pack(">Q", i)) for i in range(4096))
    while True:
        c.send(block)


def huge_header(c):
    """A header field of 1 MiB over CONTINUATION frames of 16 KiB."""
    c.settings(max_concurrent_streams=100)
    block = STATUS_200 + literal(b"x-huge", b"h" * (1 << 20))
    while True:
        for sid in c.requests():
            c.send(_header_block(sid, block, 16384))


def many_headers(c):
    """4,000 small fields (about 100 KiB) in one block, over CONTINUATION frames."""
    c.settings(max_concurrent_streams=100)
    block = STATUS_200 + b"".join(literal(b"x-h%04d" % i, b"v" * 16) for i in range(4000))
    while True:
        for sid in c.requests():
            c.send(_header_block(sid, block, 16384) + frame(DATA, END_STREAM, sid, b""))


def bad_hpack(c):
    """An indexed field past the end of both tables (RFC 7541 §2.3.3: a decoding error)."""
    c.settings(max_concurrent_streams=100)
    while True:
        for sid in c.requests():
            c.send(frame(HEADERS, END_HEADERS | END_STREAM, sid, b"\xff\xff\x7f"))


def continuation_flood(c):
    """HEADERS without END_HEADERS, then empty CONTINUATION frames without end."""
    c.settings(max_concurrent_streams=100)
    sid = c.requests()[0]
    c.send(frame(HEADERS, 0, sid, STATUS_200))
    block = frame(CONTINUATION, 0, sid, b"") * 4096
    while True:
        c.send(block)


def data_closed(c):
    """Each response followed by a DATA frame on its stream, which the END_STREAM closed."""
    c.settings(max_concurrent_streams=100)
    while True:
        for sid in c.requests():
            c.open.discard(sid)
            c.server.bump("answered")
            c.send(response_frames(sid) + frame(DATA, 0, sid, b"stray"))


def no_preface(c):
    """Reads everything and never sends a byte: no SETTINGS, no answer."""
    c.ack = False
    c.drain()


def goaway_at_preface(c):
    """SETTINGS and GOAWAY in one write: the server takes no request at all."""
    c.send(settings_frame(max_concurrent_streams=100) + frame(GOAWAY, 0, 0, bytes(8)))
    c.drain()


def http1_preface(c):
    """An HTTP/1.1 server's answer where the SETTINGS should be."""
    c.send(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    c.close()


def silent_after2(c):
    """Answers two requests, then reads on and never answers again (a dropped connection)."""
    c.settings(max_concurrent_streams=100)
    answered = 0
    while answered < 2:
        for sid in c.requests():
            if answered < 2:
                c.respond(sid)
                answered += 1
    c.ack = False
    c.drain()


def close_notify_mid(c):
    """The head and half of a body promised by content-length, then the close (over TLS: a
    close_notify, a clean end of the TLS stream in the middle of the response)."""
    c.settings(max_concurrent_streams=100)
    sid = c.requests()[0]
    block = STATUS_200 + b"\x0f\x0d\x03100"
    c.send(frame(HEADERS, END_HEADERS, sid, block) + frame(DATA, 0, sid, b"x" * 50))
    c.close()


def _header_block(sid, block, size):
    chunks = [block[i:i + size] for i in range(0, len(block), size)] or [b""]
    out = [frame(HEADERS, END_HEADERS if len(chunks) == 1 else 0, sid, chunks[0])]
    for i, chunk in enumerate(chunks[1:], 1):
        out.append(frame(CONTINUATION, END_HEADERS if i == len(chunks) - 1 else 0, sid, chunk))
    return b"".join(out)


BEHAVIOURS = {f.__name__: f for f in (
    ok, goaway_low, goaway_close, goaway_close_unanswered, refuse_first, refuse_all, rst_internal,
    streams_lowered, streams_zero, window_zero, window_tiny, window_overflow_connection,
    window_overflow_stream, ping_flood, settings_flood, ping_flood_unread, huge_header,
    many_headers, bad_hpack, continuation_flood, data_closed, no_preface, goaway_at_preface,
    http1_preface,
    silent_after2, close_notify_mid)}
