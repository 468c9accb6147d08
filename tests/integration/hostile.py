"""HostileServer: a small threaded HTTP/1 server for the misbehaviours a client meets in the wild
and `hail serve` never shows (bad framing, garbage, silence, resets, early answers, dribbles, huge
bodies). Loopback only, every thread and wait bounded; stopped by its context manager.

Two ways to use it:
  HostileServer()        each behaviour at its own path: GET /<name>[/anything] gets behaviour
                         <name> of BEHAVIOURS (an unknown name gets a 404 and keeps the connection)
  HostileServer("mode")  the old single-mode server (test_errors.py, test_cli.py): every path gets
                         the behaviour of that mode; see LEGACY_MODES

The server counts on its side what it received: stats() gives connections accepted and request
heads read, in total and per behaviour (a connection belongs to the behaviour of its first
request), so that tests can compare them with hail's report. counts() is (accepted, requests).
"""

import socket
import struct
import threading
import time

# Every name of hostile_behaviours is re-exported: the tests read hostile.OK, hostile.MALFORMED...
from hostile_behaviours import *  # noqa: F401,F403
from hostile_behaviours import (BEHAVIOURS, CHUNKED, CLOSE_DELIMITED, EARLY, GARBAGE, HUGE_CHUNK,
                                INTERIM, LEGACY_MODES, TRUNCATED, UNKNOWN, Request, behaviour_name)

LOOPBACK = "127.0.0.1"

# Bounds: connections served at once (more are closed at accept), how long a connection may sit
# without a byte from the client, and the send timeout of a stuck peer.
MAX_CONNECTIONS = 64
IDLE_LIMIT_S = 30.0
POLL_S = 0.1


class _Closed(Exception):
    """The client went away (or the server is stopping)."""


class HostileServer:
    """See the module docstring. .url is "http://127.0.0.1:PORT"."""

    # Old names, still used by test_errors.py.
    TRUNCATED = TRUNCATED
    CLOSE_DELIMITED = CLOSE_DELIMITED
    GARBAGE = GARBAGE
    CHUNKED = CHUNKED
    INTERIM = INTERIM
    EARLY = EARLY
    MODES = tuple(LEGACY_MODES)

    def __init__(self, mode=None):
        if mode is not None and mode not in LEGACY_MODES:
            raise ValueError(mode)
        self.mode = mode
        self.sock = None
        self.port = None
        self.lock = threading.Lock()
        self.accepted = 0
        self.requests = 0
        self.rejected = 0
        self.by_path = {}  # behaviour -> {"connections": n, "requests": n}
        self.clients = set()
        self.threads = []
        self.stopping = threading.Event()

    # ---- public

    def __enter__(self):
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
        return "http://%s:%d" % (LOOPBACK, self.port)

    def counts(self):
        """(connections accepted, request heads read), in total."""
        with self.lock:
            return self.accepted, self.requests

    def stats(self):
        """{"connections", "requests", "rejected",
            "by_path": {name: {"connections", "requests"}}}"""
        with self.lock:
            return {"connections": self.accepted, "requests": self.requests,
                    "rejected": self.rejected,
                    "by_path": {k: dict(v) for k, v in self.by_path.items()}}

    def active(self):
        """Connections still being served."""
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
        return False

    # ---- accepting

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
                    self.rejected += 1
                    conn.close()
                    continue
                self.accepted += 1
                self.clients.add(conn)
                t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
                self.threads = [x for x in self.threads if x.is_alive()]
                self.threads.append(t)
            t.start()

    # ---- socket helpers (every wait polls `stopping`)

    def _recv(self, conn, deadline=None):
        """Some bytes; b"" at EOF; None when `deadline` (monotonic) passed first."""
        quiet_since = time.monotonic()
        while True:
            if self.stopping.is_set():
                raise _Closed()
            try:
                return conn.recv(65536)
            except socket.timeout:
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    return None
                if now - quiet_since > IDLE_LIMIT_S:
                    raise _Closed()
            except OSError:
                raise _Closed() from None

    def _send(self, conn, data):
        view = memoryview(data)
        while view:
            if self.stopping.is_set():
                raise _Closed()
            try:
                n = conn.send(view)
            except socket.timeout:
                continue
            except OSError:
                raise _Closed() from None
            view = view[n:]

    def _send_reply(self, conn, data, step, delay, lead):
        if not step:
            self._send(conn, data)
            return
        self._send(conn, data[:lead])
        for i in range(lead, len(data), step):
            self._send(conn, data[i:i + step])
            if delay and self.stopping.wait(delay):
                raise _Closed()

    def _stream(self, conn, total):
        block = memoryview(b"x" * HUGE_CHUNK)
        while total > 0:
            n = min(total, len(block))
            self._send(conn, block[:n])
            total -= n

    def _drain(self, conn):
        """Reads (and discards) until the client closes."""
        while self._recv(conn):
            pass

    def _close(self, conn):
        """Shut down our side, then read until the client closes: a FIN, never a reset."""
        try:
            conn.shutdown(socket.SHUT_WR)
        except OSError:
            raise _Closed() from None
        self._drain(conn)

    @staticmethod
    def _reset(conn):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        conn.close()

    # ---- serving one connection

    def _count(self, req):
        with self.lock:
            self.requests += 1
            entry = self.by_path.setdefault(req.behaviour, {"connections": 0, "requests": 0})
            entry["requests"] += 1
            if req.index == 1:
                entry["connections"] += 1

    def _behaviour(self, name):
        if self.mode is not None:
            return BEHAVIOURS[LEGACY_MODES[self.mode]]
        return BEHAVIOURS.get(name, UNKNOWN)

    def _serve(self, conn):
        conn.settimeout(POLL_S)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        closed = False
        try:
            if self.mode == "early":
                self._send(conn, EARLY)
                # Read nothing for a while: the client's upload stalls once the socket buffers are
                # full, so its response surely arrives while the request is still being written.
                self.stopping.wait(1.0)
                self._drain(conn)
                return
            closed = self._serve_requests(conn)
        except _Closed:
            pass
        finally:
            with self.lock:
                self.clients.discard(conn)
            if not closed:
                try:
                    conn.close()
                except OSError:
                    pass

    def _serve_requests(self, conn):
        """Returns True when the socket is already closed (reset)."""
        buf = bytearray()
        index = 0
        idle = None  # seconds the connection may stay idle (the last reply's `idle`)
        while True:
            # Every complete request in the buffer forms one batch (pipelined requests): their
            # replies go out together, so that splits and dribbles cross response boundaries.
            batch = []
            early = False
            while True:
                end = buf.find(b"\r\n\r\n")
                if end < 0:
                    break
                lines = bytes(buf[:end]).split(b"\r\n")
                parts = lines[0].split(b" ")
                if len(parts) != 3:
                    raise _Closed()  # not a request hail sends: give up on the connection
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(b":")
                    headers[name.strip().lower().decode("latin-1")] = value.strip()
                length = int(headers.get("content-length", b"0") or 0)
                name = behaviour_name(parts[1])
                fn, early = self._behaviour(name)
                if not early and len(buf) < end + 4 + length:
                    break  # the body is not all in yet
                index += 1
                req = Request(parts[0].decode("latin-1"), parts[1], parts[2], headers, length,
                              index, name)
                self._count(req)
                del buf[:end + 4 if early else end + 4 + length]
                batch.append((fn, req))
                if early:
                    break
            if batch:
                replies = []
                for fn, req in batch:
                    replies.append(fn(req))
                    if replies[-1].then != "keep":
                        break  # requests behind it are never answered
                last = replies[-1]
                self._send_reply(conn, b"".join(r.data for r in replies), last.step, last.delay,
                                 last.lead if len(replies) == 1 else 0)
                if last.stream:
                    self._stream(conn, last.stream)
                if early:
                    # Read nothing for a while: the client's upload stalls once the socket buffers
                    # are full, so the answer surely arrives while the request is being written.
                    if self.stopping.wait(0.3):
                        raise _Closed()
                if last.then == "close":
                    self._close(conn)
                    return False
                if last.then == "rst":
                    self._reset(conn)
                    return True
                if last.then == "hold":
                    self._drain(conn)
                    return False
                idle = last.idle
                if buf.find(b"\r\n\r\n") >= 0:
                    continue  # more requests already buffered
            deadline = time.monotonic() + idle if idle is not None and not buf else None
            chunk = self._recv(conn, deadline)
            if chunk is None:
                self._close(conn)  # idle for too long: the server closes the keep-alive connection
                return False
            if not chunk:
                return False
            buf += chunk
