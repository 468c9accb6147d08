"""What hail's connections put on the wire, seen by the server's own kernel: TCP_INFO's count of
segments received on the accepted socket (tcpi_segs_in), read once the request (or the TLS
ClientHello) has arrived. The handshake's last ACK rides on hail's first bytes, so a new
connection costs the server one segment fewer than a client that acknowledges separately."""

import socket
import struct
import unittest

from capture_server import CaptureServer
from support import describe, run_hail
from test_io_backends import uring_available

TCPI_SEGS_IN_OFFSET = 140  # struct tcp_info (linux/tcp.h): after tcpi_segs_out, since Linux 4.2


class SegmentCountingServer(CaptureServer):
    """A CaptureServer that notes tcpi_segs_in on each connection once the request has arrived
    (with tls=True: the client's first bytes, the ClientHello; the plain answer that follows ends
    hail's handshake with an error, which these tests do not look at)."""

    def __init__(self, tls=False):
        super().__init__()
        self.tls = tls
        self.segs_in = []

    def _read_request(self, conn):
        data = conn.recv(65536) if self.tls else CaptureServer._read_request(conn)
        if data:
            info = conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 256)
            self.segs_in.append(struct.unpack_from("I", info, TCPI_SEGS_IN_OFFSET)[0])
        return data

    @property
    def url(self):
        return "%s://127.0.0.1:%d/" % ("https" if self.tls else "http", self.port)


class HandshakeAckTest(unittest.TestCase):
    def check_backend(self, io):
        with SegmentCountingServer() as srv:
            r = run_hail(["--io", io, "-c", "1", "-t", "1", "-n", "3", "--no-keepalive", "-q",
                          "--json", "-", srv.url])
        self.assertEqual(r.code, 0, describe(r))
        self.assertEqual(r.json["requests"]["completed"], 3, describe(r))
        # SYN, then the request carrying the handshake's ACK; a separate ACK would make it 3.
        self.assertEqual(srv.segs_in, [2, 2, 2])

    def test_epoll_sends_the_handshake_ack_with_the_request(self):
        self.check_backend("epoll")

    @unittest.skipUnless(uring_available(), "io_uring unavailable on this kernel")
    def test_io_uring_sends_the_handshake_ack_with_the_request(self):
        self.check_backend("uring")

    def test_tls_client_hello_carries_the_handshake_ack(self):
        with SegmentCountingServer(tls=True) as srv:
            # The server answers the ClientHello in plain HTTP: hail's connects fail and it tries
            # again until the run ends, which is fine; only what reached the server matters here.
            run_hail(["-c", "1", "-t", "1", "-d", "1s", "-q", srv.url], timeout=30)
        self.assertGreaterEqual(len(srv.segs_in), 1)
        self.assertEqual(set(srv.segs_in), {2}, srv.segs_in)


if __name__ == "__main__":
    unittest.main()
