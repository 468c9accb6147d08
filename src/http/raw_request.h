// parse_raw_requests: the HTTP/1.x request text a wrk script's request() returns (one request, or
// several concatenated: wrk's way of pipelining) turned into request templates, per script call.
// Owned by the http layer (its user is the scripting layer). Pure function: any thread.
#pragma once

#include <string_view>
#include <vector>

#include "core/result.h"
#include "http/request.h"

namespace hail {

// Splits `bytes` into requests, one template each, in order. Each template's http1 is its exact
// bytes (sent verbatim on HTTP/1), so the templates' http1 concatenated are `bytes` again; method,
// path, authority (the Host value; empty without Host), scheme, body (chunked decoded), head and
// close_after are filled in, and h2_fields by the rules make_request_template follows
// (H2FieldsBuilder), from the fields as they appear.
//
// Accepted (what wrk's http_parser let scripts get away with, where it cannot mislead a server):
// - empty lines (CRLF or LF) before a request line; they stay in that request's bytes, and empty
//   lines after the last request join the last request's bytes;
// - request line: a method token (any, sent verbatim), SP, a request-target without whitespace or
//   control bytes, SP, "HTTP/1.1" or "HTTP/1.0";
// - field lines: token ":" value, in any order, no Host needed; values without control bytes
//   other than HTAB; lines end in CRLF or a bare LF;
// - body: chunked when the last Transfer-Encoding coding is "chunked" (trailers skipped), else
//   Content-Length bytes (repeated equal Content-Length fields are fine), else none.
// Rejected, with a one-line message naming the request ("request 2: ..."): empty input, a missing
// or malformed request line (HTTP/0.9 included), an invalid field line or obs-fold, a bad or
// conflicting Content-Length, Transfer-Encoding together with Content-Length or without chunked
// last, a bad chunked body, and bytes that do not end a request (head or body cut short).
//
// `out` is reused: its templates' strings and vectors keep their capacity, so parsing requests of
// the same shape again does not allocate. On error *out holds unspecified templates.
Status parse_raw_requests(std::string_view bytes, std::string_view scheme,
                          std::vector<RequestTemplate>* out);

}  // namespace hail
