"""What hostile.py's HostileServer sends: the response bytes of every misbehaviour (module
constants, so that tests can compute the exact bytes_read), the malformed responses with the
reason hail reports, and the behaviour table (BEHAVIOURS: path name -> reply; LEGACY_MODES for the
single-mode server). Pure data and small functions: no sockets, no threads.
"""

import gzip

# --------------------------------------------------------------------------------------------
# Response bytes (module constants, so that tests can compute the exact bytes_read).


def ok_response(body=b"ok", extra=b"", status=b"200 OK", version=b"HTTP/1.1"):
    return (version + b" " + status + b"\r\nContent-Length: " + str(len(body)).encode()
            + b"\r\n" + extra + b"\r\n" + body)


OK = ok_response()
NOT_FOUND = ok_response(b"no such behaviour", status=b"404 Not Found")

# Chunk extensions (token, quoted string with ';' and an escaped quote, BWS before ';'), upper-case
# hex, leading zeros, an empty-looking data line, and a trailer section with an obs-fold line.
CHUNKED_EXT_TRAILERS = (
    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"5;name=value\r\nhello\r\n"
    b"1 ;q=\"a;b\\\"c\"\r\n \r\n"
    b"000A\r\n0123456789\r\n"
    b"0;last\r\nX-Checksum: abc\r\nX-Folded: one\r\n two\r\n\r\n")
UNTIL_CLOSE_BODY = b"u" * 500
UNTIL_CLOSE = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + UNTIL_CLOSE_BODY
HTTP10 = ok_response(b"hello", version=b"HTTP/1.0")
HTTP10_KEEPALIVE = ok_response(b"hello", extra=b"Connection: keep-alive\r\n", version=b"HTTP/1.0")
HTTP10_UNTIL_CLOSE = b"HTTP/1.0 200 OK\r\n\r\n" + UNTIL_CLOSE_BODY
# RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing; decode it, then
# close the connection, even though it asks for keep-alive.
HTTP10_CHUNKED = (b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
LF_ONLY = b"HTTP/1.1 200 OK\nContent-Length: 2\nX-A: b\n\nok"
LF_ONLY_CHUNKED = b"HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nok\n0\nX-T: t\n\n"
OBS_FOLD = ok_response(extra=b"X-Folded: first\r\n  second\r\n\tthird\r\nX-After: a\r\n")
INTERIM = b"HTTP/1.1 100 Continue\r\n\r\n" + OK
INTERIM_MANY = (b"HTTP/1.1 100 Continue\r\n\r\n"
                b"HTTP/1.1 102 Processing\r\n\r\n"
                b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n"
                + OK)
INTERIM_32 = b"HTTP/1.1 100 Continue\r\n\r\n" * 32 + OK
INTERIM_33 = b"HTTP/1.1 100 Continue\r\n\r\n" * 33 + OK
INTERIM_THEN_CLOSE = b"HTTP/1.1 100 Continue\r\n\r\n"
SWITCHING = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: hostile\r\nConnection: upgrade\r\n\r\n"
HEAD_LENGTH = 1000
HEAD_CL_HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % HEAD_LENGTH
HEAD_CHUNKED_HEAD = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
NO_CONTENT = b"HTTP/1.1 204 No Content\r\nX-A: b\r\n\r\n"
NO_CONTENT_TE = b"HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n"
NOT_MODIFIED = b"HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\nETag: \"x\"\r\n\r\n"
CLOSE = ok_response(extra=b"Connection: close\r\n")
DRIBBLE = ok_response(b"abcdefghijklmnopqrstuvwxyz")
LONG_HEADER = ok_response(extra=b"X-Long: " + b"l" * 60000 + b"\r\n")
LONG_HEADER_TOO_LARGE = ok_response(extra=b"X-Long: " + b"l" * 70000 + b"\r\n")
MANY_HEADERS = ok_response(extra=b"".join(b"X-Header-%04d: value\r\n" % i for i in range(2000)))
MANY_HEADERS_TOO_LARGE = ok_response(
    extra=b"".join(b"X-Header-%04d: value\r\n" % i for i in range(5000)))
LONG_STATUS_LINE = b"HTTP/1.1 200 " + b"r" * 70000 + b"\r\nContent-Length: 2\r\n\r\nok"
GZIP_PAYLOAD = b"hail hostile gzip body " * 200
GZIP_BODY = gzip.compress(GZIP_PAYLOAD, mtime=0)
GZIP = ok_response(GZIP_BODY, extra=b"Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n")
GZIP_CHUNKED = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                + b"%x\r\n" % len(GZIP_BODY) + GZIP_BODY + b"\r\n0\r\n\r\n")
TE_GZIP = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n" + GZIP_BODY
STATUS_600 = ok_response(b"", status=b"600 Beyond")
VERSION_12 = ok_response(version=b"HTTP/1.2")
# A body longer than its Content-Length: the rest is no response (RFC 9112 §6.3).
LONG_BODY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA BYTES"
# Two responses to one request.
EXTRA_RESPONSE = OK + OK
REQUEST_TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
# More than 4 GiB, so that a 32-bit length anywhere would show; streamed, never held in memory.
HUGE_BODY = (4 << 30) + 12345
HUGE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % HUGE_BODY
HUGE_CHUNK = 4 << 20
EARLY = OK
EARLY_BIG = ok_response(b"e" * (1 << 20))
TRUNCATED = (b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nContent-Type: text/plain\r\n\r\n"
             + b"0123456789")
TRUNCATED_HEAD = b"HTTP/1.1 200 OK\r\nContent-Len"
TRUNCATED_CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"
RST_BODY = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"r" * 1000
DRIP_HEAD = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
DRIP_BODY = b"d" * 100
GARBAGE = b"THIS IS NOT HTTP AT ALL\r\n\r\n"


def bad_head(status_line, fields=b"Content-Length: 2\r\n"):
    return status_line + b"\r\n" + fields + b"\r\nok"


# Malformed responses: name -> (bytes, the reason hail reports, after "parse: ").
MALFORMED = {
    "garbage": (GARBAGE, "malformed status line"),
    "binary": (b"\x00\x01\x02\xff\xfe binary\r\n\r\n", "malformed status line"),
    "lowercase_http": (bad_head(b"http/1.1 200 OK"), "malformed status line"),
    "status_2digit": (bad_head(b"HTTP/1.1 20 OK"), "invalid status code"),
    "status_4digit": (bad_head(b"HTTP/1.1 2000 OK"), "invalid status code"),
    "status_leading_zero": (bad_head(b"HTTP/1.1 099 Low"), "invalid status code"),
    "status_letters": (bad_head(b"HTTP/1.1 2x0 OK"), "invalid status code"),
    "status_two_spaces": (bad_head(b"HTTP/1.1  200 OK"), "invalid status code"),
    "version_2": (bad_head(b"HTTP/2.0 200 OK"), "unsupported HTTP version"),
    "bare_cr": (b"HTTP/1.1 200 OK\rX-A: b\r\nContent-Length: 2\r\n\r\nok",
                "bare CR in header section"),
    "cl_conflict": (bad_head(b"HTTP/1.1 200 OK", b"Content-Length: 2\r\nContent-Length: 3\r\n"),
                    "Duplicate Content-Length"),
    "cl_duplicate_equal": (bad_head(b"HTTP/1.1 200 OK",
                                    b"Content-Length: 2\r\nContent-Length: 2\r\n"),
                           "Duplicate Content-Length"),
    "cl_list": (bad_head(b"HTTP/1.1 200 OK", b"Content-Length: 2, 2\r\n"),
                "Invalid character in Content-Length"),
    "cl_negative": (bad_head(b"HTTP/1.1 200 OK", b"Content-Length: -2\r\n"),
                    "Invalid character in Content-Length"),
    "cl_overflow": (bad_head(b"HTTP/1.1 200 OK", b"Content-Length: 99999999999999999999999\r\n"),
                    "Content-Length overflow"),
    "cl_and_te": (bad_head(b"HTTP/1.1 200 OK",
                           b"Content-Length: 2\r\nTransfer-Encoding: chunked\r\n"),
                  "Content-Length can't be present with Transfer-Encoding"),
    "obs_fold_cl": (bad_head(b"HTTP/1.1 200 OK", b"Content-Length: 2\r\n 2\r\n"),
                    "obs-fold in a framing field"),
    "cl_empty_folded": (bad_head(b"HTTP/1.1 200 OK", b"Content-Length:\r\n 2\r\n"),
                        "Empty Content-Length"),
    "obs_fold_te": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,\r\n chunked\r\n\r\n0\r\n\r\n",
                    "obs-fold in a framing field"),
    "obs_fold_first": (bad_head(b"HTTP/1.1 200 OK", b" X-A: b\r\nContent-Length: 2\r\n"),
                       "whitespace before the first field line"),
    "chunk_bad_size": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                       "bad chunk size"),
    "chunk_negative": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n",
                       "bad chunk size"),
    "chunk_hex_prefix": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n",
                         "bad chunk size"),
    "chunk_empty_size": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\nhello\r\n",
                         "bad chunk size"),
    # 2^64: one more hex digit than 64 bits hold.
    "chunk_overflow": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                       b"10000000000000000\r\nx\r\n", "chunk size too large"),
    # 2^62 + 1: fits in 64 bits, above the decoder's bound.
    "chunk_too_large": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                        b"4000000000000001\r\nx\r\n", "chunk size too large"),
    "chunk_ext_too_long": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                           b"2;" + b"e" * 5000 + b"\r\nok\r\n0\r\n\r\n",
                           "chunk size line too long"),
    "trailer_too_large": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n"
                          + b"".join(b"X-Trailer-%05d: value\r\n" % i for i in range(4000))
                          + b"\r\n", "trailer section too large"),
    "chunk_missing_crlf": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                           b"2\r\nokX\r\n0\r\n\r\n", "missing CRLF after chunk data"),
    "long_header_too_large": (LONG_HEADER_TOO_LARGE, "header section too large"),
    "many_headers_too_large": (MANY_HEADERS_TOO_LARGE, "header section too large"),
    "long_status_line": (LONG_STATUS_LINE, "header section too large"),
    "interim_33": (INTERIM_33, "too many interim responses"),
}


# --------------------------------------------------------------------------------------------
# Behaviours


class Request:
    __slots__ = ("method", "target", "version", "headers", "body_length", "index", "behaviour")

    def __init__(self, method, target, version, headers, body_length, index, behaviour):
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers          # lower-case name -> value (the last one)
        self.body_length = body_length  # from Content-Length
        self.index = index              # 1 for the first request of its connection
        self.behaviour = behaviour


class Reply:
    """What to do with one request.
    data   bytes to send (whole with sendall, or in `step`-byte pieces `delay` seconds apart, after
           the first `lead` bytes went whole)
    then   "keep" (read the next request), "close" (shut down our side, then read until the
           client closes: a clean FIN, never a reset), "rst" (a TCP reset: SO_LINGER 0 and close),
           "hold" (never answer again; read until the client closes)
    idle   with "keep": close (as "close") when no next request arrives within `idle` seconds
    stream after data, that many more body bytes, streamed in large writes
    """
    __slots__ = ("data", "step", "delay", "lead", "then", "idle", "stream")

    def __init__(self, data=b"", then="keep", step=0, delay=0.0, lead=0, idle=None, stream=0):
        self.data = data
        self.then = then
        self.step = step
        self.delay = delay
        self.lead = lead
        self.idle = idle
        self.stream = stream


def _fixed(data, then="keep", **kw):
    return lambda req: Reply(data, then, **kw)


def _head_aware(head, body):
    """HEAD gets the head alone (with the framing fields a GET would get), GET head + body."""
    return lambda req: Reply(head if req.method == "HEAD" else head + body)


def _close_every(k):
    """Every k-th response of a connection says Connection: close, and the server closes."""
    return lambda req: Reply(CLOSE, "close") if req.index % k == 0 else Reply(OK)


def _close_after(k):
    """Answers the first k requests of a connection; on the next one it closes without a word
    (a keep-alive connection timed out by the server just as the client reused it)."""
    return lambda req: Reply(OK) if req.index <= k else Reply(b"", "close")


# name -> (function(Request) -> Reply, early). early: the reply goes out as soon as the request
# head is in, before its body is read (a server rejecting an upload).
BEHAVIOURS = {
    # Framing a client must get right: each one completes.
    "ok": (_fixed(OK), False),
    "chunked_ext_trailers": (_fixed(CHUNKED_EXT_TRAILERS), False),
    "until_close": (_fixed(UNTIL_CLOSE, "close"), False),
    "http10": (_fixed(HTTP10), False),  # no keep-alive, yet the server leaves it open
    "http10_keepalive": (_fixed(HTTP10_KEEPALIVE), False),
    "http10_until_close": (_fixed(HTTP10_UNTIL_CLOSE, "close"), False),
    "http10_chunked": (_fixed(HTTP10_CHUNKED), False),
    "lf_only": (_fixed(LF_ONLY), False),
    "lf_only_chunked": (_fixed(LF_ONLY_CHUNKED), False),
    "obs_fold": (_fixed(OBS_FOLD), False),
    "interim": (_fixed(INTERIM), False),
    "interim_many": (_fixed(INTERIM_MANY), False),
    "interim_32": (_fixed(INTERIM_32), False),
    "switching": (_fixed(SWITCHING, "hold"), False),
    "head_cl": (_head_aware(HEAD_CL_HEAD, b"h" * HEAD_LENGTH), False),
    "head_chunked": (_head_aware(HEAD_CHUNKED_HEAD, b"5\r\nhello\r\n0\r\n\r\n"), False),
    "no_content": (_fixed(NO_CONTENT), False),
    "no_content_te": (_fixed(NO_CONTENT_TE), False),
    "not_modified": (_fixed(NOT_MODIFIED), False),
    "close_every3": (_close_every(3), False),
    "ignore_close": (_fixed(OK), False),  # keep-alive whatever the request's Connection says
    "close_after2": (_close_after(2), False),
    "idle_close": (_fixed(OK, idle=0.1), False),
    "dribble": (_fixed(DRIBBLE, step=1, delay=0.001), False),
    "dribble_chunked": (_fixed(CHUNKED_EXT_TRAILERS, step=1, delay=0.001), False),
    "dribble_interim": (_fixed(INTERIM_MANY, step=1, delay=0.0005), False),
    "split7": (_fixed(OK, step=7, delay=0.001), False),
    "long_header": (_fixed(LONG_HEADER), False),
    "many_headers": (_fixed(MANY_HEADERS), False),
    "gzip": (_fixed(GZIP), False),
    "gzip_chunked": (_fixed(GZIP_CHUNKED), False),
    "te_gzip": (_fixed(TE_GZIP, "close"), False),
    "status_600": (_fixed(STATUS_600), False),
    "version_12": (_fixed(VERSION_12), False),
    # Bytes with no request outstanding, each sent with the response in one write.
    "long_body": (_fixed(LONG_BODY), False),
    "extra_response": (_fixed(EXTRA_RESPONSE), False),
    # A 408 on a connection left idle for 100 ms after its response, then the close.
    "idle_408": (_fixed(OK + REQUEST_TIMEOUT, "close", lead=len(OK), step=len(REQUEST_TIMEOUT),
                        delay=0.1), False),
    "huge": (lambda req: Reply(HUGE_HEAD, stream=HUGE_BODY), False),
    "early": (_fixed(EARLY, "hold"), True),
    "early_big": (_fixed(EARLY_BIG, "hold"), True),
    # Failures: each request has one error.
    "truncated": (_fixed(TRUNCATED, "close"), False),
    "truncated_head": (_fixed(TRUNCATED_HEAD, "close"), False),
    "truncated_chunked": (_fixed(TRUNCATED_CHUNKED, "close"), False),
    "interim_then_close": (_fixed(INTERIM_THEN_CLOSE, "close"), False),
    "no_response": (_fixed(b"", "close"), False),
    "rst_body": (_fixed(RST_BODY, "rst"), False),
    "rst_at_once": (_fixed(b"", "rst"), False),
    "silent": (_fixed(b"", "hold"), False),
    # Slow drip past any sane timeout: the head at once, then a body byte every 100 ms.
    "drip": (_fixed(DRIP_HEAD + DRIP_BODY, "close", step=1, delay=0.1, lead=len(DRIP_HEAD)),
             False),
}
# Malformed responses are sent whole; the server then waits for the client to close.
for _name, (_data, _reason) in MALFORMED.items():
    BEHAVIOURS[_name] = (_fixed(_data, "hold"), False)

# The single-mode server of earlier tests: mode -> behaviour for every path. "early" answers as soon
# as a connection is accepted, before reading anything.
LEGACY_MODES = {
    "truncated": "truncated",
    "close_delimited": "close_delimited",
    "garbage": "garbage",
    "silent": "silent",
    "chunked": "chunked",
    "interim": "interim",
    "early": None,
}
CLOSE_DELIMITED = (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n"
                   + b"x" * 500)
CHUNKED = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"5\r\nhello\r\n1;ext=1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\n\r\n")
BEHAVIOURS["close_delimited"] = (_fixed(CLOSE_DELIMITED, "close"), False)
BEHAVIOURS["chunked"] = (_fixed(CHUNKED), False)
# An unknown name: a 404, and the connection is kept.
UNKNOWN = (_fixed(NOT_FOUND), False)


def behaviour_name(target):
    """'/name/rest?query' -> 'name'."""
    path = target.split(b"?", 1)[0].decode("latin-1")
    return path.strip("/").split("/", 1)[0]
