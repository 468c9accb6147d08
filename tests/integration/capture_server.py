"""CaptureServer: a loopback server that records the exact bytes of every request it gets.

Accepts one connection at a time (ab's and webbench's runs in these tests wait for each answer),
reads one request (the head, then a Content-Length body; for HTTP/0.9 the request line alone),
answers as an HTTP/1.0 server does (the head alone to HEAD; the bare body to an HTTP/0.9 request),
closes its side and waits for the client to close. Also a stand-in for a proxy: it records the request as sent.
"""

import re
import socket
import threading

RESPONSE_HEAD = b"HTTP/1.0 200 OK\r\nServer: capture\r\nContent-Length: 2\r\n\r\n"
RESPONSE = RESPONSE_HEAD + b"ok"


def _is_http09(data):
    return b" HTTP/" not in data.split(b"\r\n", 1)[0]


class CaptureServer:
    def __init__(self):
        self.sock = None
        self.requests = []  # the bytes of each request, in arrival order
        self.empty = 0      # connections closed without a byte (webbench's check connection)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.thread = None

    def __enter__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.sock.settimeout(0.1)  # accept() polls `stopping` this often
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self.sock.close()
        self.thread.join(timeout=5)
        return False

    @property
    def port(self):
        return self.sock.getsockname()[1]

    @staticmethod
    def _read_request(conn):
        data = b""
        while b"\r\n\r\n" not in data:
            if data.endswith(b"\r\n") and _is_http09(data):
                return data  # HTTP/0.9: the request line alone
            chunk = conn.recv(65536)
            if not chunk:
                return data
            data += chunk
        m = re.search(rb"\r\ncontent-length: *(\d+)", data, re.IGNORECASE)
        length = int(m.group(1)) if m else 0
        while len(data.split(b"\r\n\r\n", 1)[1]) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        return data

    def _loop(self):
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                data = b""
                try:
                    data = self._read_request(conn)
                    if data:
                        if _is_http09(data):
                            conn.sendall(b"ok")
                        elif data.startswith(b"HEAD "):
                            conn.sendall(RESPONSE_HEAD)  # a body here would be no response
                        else:
                            conn.sendall(RESPONSE)
                        conn.shutdown(socket.SHUT_WR)
                        while conn.recv(65536):
                            pass
                except OSError:
                    pass
                with self.lock:
                    if data:
                        self.requests.append(data)
                    else:
                        self.empty += 1
