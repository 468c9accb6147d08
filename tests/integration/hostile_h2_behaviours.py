"""The behaviours of hostile_h2.py's HostileH2Server: one function per misbehaviour, each serving
one connection (an H2Conn) from the server's preface on, and BEHAVIOURS (name -> function).
Frames are written raw with hostile_h2's helpers. No sockets of their own, no threads.
"""

import struct

from hostile_h2 import (CONTINUATION, DATA, END_HEADERS, END_STREAM, GOAWAY, HEADERS,
                        INTERNAL_ERROR, PING, REFUSED_STREAM, SETTINGS, STATUS_200, WINDOW_UPDATE,
                        frame, literal, response_frames, settings_frame)

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
