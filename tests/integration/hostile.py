"""HostileServer: a tiny threaded HTTP server for the misbehaviours `hail serve` never shows
(truncated bodies, garbage, silence, early answers). Loopback only; stopped by its context manager."""

import socket
import threading

LOOPBACK = "127.0.0.1"


class HostileServer:
    """A tiny HTTP server in threads, for what `hail serve` never does. Modes:
      "truncated"  reads a request head, answers "Content-Length: 1000" with 10 body bytes, closes
      "close_delimited"  reads a request head, answers a valid response whose body (500 bytes)
                   is delimited by closing the connection (no Content-Length), closes
      "garbage"    reads a request head, answers a line that is not HTTP, keeps the connection open
      "silent"     accepts, reads, never answers; keeps the connection open
      "chunked"    keep-alive; answers every request with a valid chunked body ("hello world")
      "interim"    keep-alive; answers every request with "100 Continue", then a 200 with "ok"
      "early"      answers "200 ok" as soon as it accepts, before reading anything, waits 1 s, then
                   reads and discards until the client closes (a server rejecting an upload early)
    .accepted counts accepted connections, .requests request heads read."""

    TRUNCATED = (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nContent-Type: text/plain\r\n\r\n"
                 + b"0123456789")
    CLOSE_DELIMITED = (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n"
                       + b"x" * 500)
    GARBAGE = b"THIS IS NOT HTTP AT ALL\r\n\r\n"
    CHUNKED = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"5\r\nhello\r\n1;ext=1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\n\r\n")
    INTERIM = (b"HTTP/1.1 100 Continue\r\n\r\n"
               b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    EARLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    MODES = ("truncated", "close_delimited", "garbage", "silent", "chunked", "interim", "early")

    def __init__(self, mode):
        if mode not in self.MODES:
            raise ValueError(mode)
        self.mode = mode
        self.sock = None
        self.port = None
        self.lock = threading.Lock()
        self.accepted = 0
        self.requests = 0
        self.clients = []
        self.threads = []
        self.stopping = threading.Event()

    def __enter__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((LOOPBACK, 0))
        self.sock.listen(128)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        t = threading.Thread(target=self._accept_loop, daemon=True)
        t.start()
        self.threads.append(t)
        return self

    @property
    def url(self):
        return "http://%s:%d" % (LOOPBACK, self.port)

    def counts(self):
        with self.lock:
            return self.accepted, self.requests

    def _accept_loop(self):
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                if self.stopping.is_set():
                    conn.close()
                    return
                self.accepted += 1
                self.clients.append(conn)
                t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
                self.threads.append(t)
            t.start()

    def _read_head(self, conn, buf):
        """Reads until the end of a request head; returns the bytes after it, or None on EOF."""
        while b"\r\n\r\n" not in buf:
            try:
                chunk = conn.recv(65536)
            except socket.timeout:
                if self.stopping.is_set():
                    return None
                continue
            except OSError:
                return None
            if not chunk:
                return None
            buf += chunk
        with self.lock:
            self.requests += 1
        return buf.split(b"\r\n\r\n", 1)[1]

    def _serve(self, conn):
        conn.settimeout(0.2)
        try:
            buf = b""
            if self.mode == "early":
                conn.sendall(self.EARLY)
                # Read nothing for a while: the client's upload stalls once the socket buffers are
                # full, so its response surely arrives while the request is still being written.
                self.stopping.wait(1.0)
                self._drain(conn)
                return
            while not self.stopping.is_set():
                buf = self._read_head(conn, buf)
                if buf is None:
                    return
                if self.mode in ("truncated", "close_delimited"):
                    conn.sendall(self.TRUNCATED if self.mode == "truncated"
                                 else self.CLOSE_DELIMITED)
                    conn.shutdown(socket.SHUT_WR)
                    # Drain until the client closes, so that our close never turns into a reset.
                    self._drain(conn)
                    return
                if self.mode == "garbage":
                    conn.sendall(self.GARBAGE)
                    self._drain(conn)
                    return
                if self.mode in ("chunked", "interim"):
                    conn.sendall(self.CHUNKED if self.mode == "chunked" else self.INTERIM)
                    continue  # keep-alive: the next request on the same connection
                # silent: keep reading (a client may pipeline nothing more), never answer
                self._drain(conn)
                return
        except OSError:
            return
        finally:
            try:
                conn.close()
            except OSError:
                pass

    def _drain(self, conn):
        while not self.stopping.is_set():
            try:
                if not conn.recv(65536):
                    return
            except socket.timeout:
                continue
            except OSError:
                return

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
        for c in clients:
            try:
                c.close()
            except OSError:
                pass
        return False
