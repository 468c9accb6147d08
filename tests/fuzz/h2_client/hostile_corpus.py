#!/usr/bin/env python3
"""Writes the hostile_* seeds of this corpus: the frame sequences of the HTTP/2 hostile server
(tests/integration/hostile_h2.py) as fuzz_h2_client inputs. Byte 0: options (bits 0-3 requests - 1,
bit 5 POST), byte 1: chunk seed (0: one piece), then what the server sends; the first frame is the
server's SETTINGS, fed alone. Client streams are 1, 3, 5, 7. Run it from anywhere; it rewrites
only hostile_* files.
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
import hostile_h2 as h  # noqa: E402
import hostile_h2_behaviours as hb  # noqa: E402

F = h.frame
SETTINGS = h.settings_frame(max_concurrent_streams=4)
OK = h.response_frames


def rst(sid, code):
    return F(h.RST_STREAM, 0, sid, struct.pack(">I", code))


def goaway(last, code=0):
    return F(h.GOAWAY, 0, 0, struct.pack(">II", last, code))


def wu(sid, inc):
    return F(h.WINDOW_UPDATE, 0, sid, struct.pack(">I", inc))


SEEDS = {
    # (options, seed, server bytes after its SETTINGS)
    "goaway_low": (3, 0, goaway(3) + OK(1) + OK(3)),
    "goaway_low_split": (3, 7, goaway(3) + OK(1) + OK(3)),
    "goaway_close": (3, 0, goaway(1) + OK(1)),
    "goaway_zero": (1, 0, goaway(0)),
    "refused": (3, 0, rst(1, h.REFUSED_STREAM) + OK(3) + rst(5, h.REFUSED_STREAM) + OK(7)),
    "rst_internal": (1, 0, rst(1, h.INTERNAL_ERROR) + OK(3)),
    "streams_lowered": (3, 0, h.settings_frame(max_concurrent_streams=1) + OK(1) + OK(3)
                        + OK(5) + OK(7)),
    "streams_zero": (3, 0, h.settings_frame(max_concurrent_streams=0) + OK(1)),
    "window_zero_post": (32 | 1, 0, h.settings_frame(initial_window_size=0) + F(h.PING, 0, 0,
                                                                                  b"\0" * 8)),
    "window_tiny_post": (32, 3, h.settings_frame(initial_window_size=10) + OK(1)),
    "window_overflow_conn": (0, 0, wu(0, 0x7FFFFFFF) + OK(1)),
    "window_overflow_stream": (1, 0, wu(1, 0x7FFFFFFF) + OK(3)),
    "ping_flood": (0, 0, b"".join(F(h.PING, 0, 0, struct.pack(">Q", i)) for i in range(1200))
                   + OK(1)),
    "settings_flood": (0, 0, F(h.SETTINGS, 0, 0) * 1500 + OK(1)),
    "huge_header": (0, 0, hb._header_block(1, h.STATUS_200 + h.literal(b"x-huge", b"h" * 70000),
                                          16384)),
    "many_headers": (0, 0, hb._header_block(1, h.STATUS_200 + b"".join(
        h.literal(b"x-h%04d" % i, b"v" * 16) for i in range(3000)), 16384)
                     + F(h.DATA, h.END_STREAM, 1, b"")),
    "bad_hpack": (0, 0, F(h.HEADERS, h.END_HEADERS | h.END_STREAM, 1, b"\xff\xff\x7f")),
    "continuation_flood": (0, 0, F(h.HEADERS, 0, 1, h.STATUS_200)
                           + F(h.CONTINUATION, 0, 1, b"") * 64),
    "data_closed": (1, 0, OK(1) + F(h.DATA, 0, 1, b"stray") + OK(3)),
    "close_mid_body": (0, 0, F(h.HEADERS, h.END_HEADERS, 1, h.STATUS_200 + b"\x0f\x0d\x03100")
                       + F(h.DATA, 0, 1, b"x" * 50)),
}


def main():
    for name, (options, seed, body) in SEEDS.items():
        with open(os.path.join(HERE, "corpus", "hostile_" + name), "wb") as f:
            f.write(bytes([options, seed]) + SETTINGS + body)
    # Not a preface at all: an HTTP/1 answer (its "first frame" is read whole).
    with open(os.path.join(HERE, "corpus", "hostile_http1_preface"), "wb") as f:
        f.write(b"\0\0HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


if __name__ == "__main__":
    main()
