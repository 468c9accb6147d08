"""A tiny HTTP/1.1 test server for the soak verdict (test_monitor.py): with --leak BYTES it keeps
BYTES of touched memory per request forever (a leak), without it it keeps nothing. Listens on
127.0.0.1, port 0 unless --port; prints "PORT\\n" once ready; runs until SIGTERM."""

import argparse
import http.server
import sys

KEPT = []


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    leak_bytes = 0

    def do_GET(self):
        if self.leak_bytes:
            # Filled, not zeroed: zero pages would not count in RSS until written.
            KEPT.append(b"\x01" * self.leak_bytes)
        body = b"ok\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--leak", type=int, default=0, help="bytes kept per request")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    Handler.leak_bytes = args.leak
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
