#include "http/raw_request.h"

#include <cstdint>
#include <string>

#include "http/chunked_decoder.h"
#include "http/field_syntax.h"

namespace hail {

namespace {

using http_syntax::iequals;
using http_syntax::is_field_value;
using http_syntax::is_token;
using http_syntax::trim_ows;

// The line at `pos` without its line end (LF, or CRLF); false when no LF ends it.
bool next_line(std::string_view bytes, size_t pos, std::string_view* line, size_t* next) {
  const size_t lf = bytes.find('\n', pos);
  if (lf == std::string_view::npos) return false;
  *line = bytes.substr(pos, lf - pos);
  if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
  *next = lf + 1;
  return true;
}

// Past the complete empty lines at `pos`.
size_t skip_empty_lines(std::string_view bytes, size_t pos) {
  for (;;) {
    std::string_view line;
    size_t next = 0;
    if (!next_line(bytes, pos, &line, &next) || !line.empty()) return pos;
    pos = next;
  }
}

// Content-Length: 1+ digits, nothing else, below 2^63 (a body that size is not in memory anyway).
bool parse_content_length(std::string_view value, uint64_t* out) {
  if (value.empty() || value.size() > 18) return false;
  uint64_t n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = n;
  return true;
}

void append_body(void* ctx, const char* data, size_t len) {
  static_cast<std::string*>(ctx)->append(data, len);
}

class RequestParser {
 public:
  RequestParser(std::string_view bytes, std::string_view scheme) : bytes_(bytes), scheme_(scheme) {}

  // Parses the request whose bytes start at `start` (empty lines, then the request line) into
  // *t; *end is where the next request starts.
  Status parse(size_t number, size_t start, RequestTemplate* t, size_t* end) {
    number_ = number;
    size_t pos = skip_empty_lines(bytes_, start);
    std::string_view line;
    size_t next = 0;
    if (!next_line(bytes_, pos, &line, &next)) return incomplete(start);
    if (Status s = parse_request_line(line, t); !s.ok()) return s;
    pos = next;

    H2FieldsBuilder h2(t);
    bool has_length = false;
    uint64_t length = 0;
    bool has_te = false;
    bool chunked = false;
    for (;;) {
      if (!next_line(bytes_, pos, &line, &next)) return incomplete(start);
      pos = next;
      if (line.empty()) break;
      if (line.front() == ' ' || line.front() == '\t') {
        return fail("obs-fold (a field line starting with whitespace) in " + quote(line));
      }
      const size_t colon = line.find(':');
      const std::string_view name = line.substr(0, colon);
      if (colon == std::string_view::npos || !is_token(name)) {
        return fail("invalid header line " + quote(line));
      }
      const std::string_view value = trim_ows(line.substr(colon + 1));
      if (!is_field_value(value)) return fail("invalid value in header " + quote(name));
      if (iequals(name, "content-length")) {
        uint64_t n = 0;
        if (!parse_content_length(value, &n)) return fail("bad Content-Length " + quote(value));
        if (has_length && n != length) return fail("conflicting Content-Length fields");
        has_length = true;
        length = n;
      } else if (iequals(name, "transfer-encoding")) {
        // Codings of all Transfer-Encoding fields form one list: the last one decides.
        const size_t comma = value.rfind(',');
        has_te = true;
        chunked = iequals(
            trim_ows(comma == std::string_view::npos ? value : value.substr(comma + 1)), "chunked");
      }
      h2.add(name, value);
    }

    t->body.clear();
    if (has_te) {
      if (has_length) return fail("both Transfer-Encoding and Content-Length");
      if (!chunked) return fail("Transfer-Encoding without chunked as the last coding");
      ChunkedDecoder decoder;
      const ChunkedDecoder::Result r =
          decoder.feed(bytes_.data() + pos, bytes_.size() - pos, &append_body, &t->body);
      if (r.status == ChunkedDecoder::Status::kError) {
        return fail(std::string("bad chunked body: ") + decoder.error_reason());
      }
      if (r.status == ChunkedDecoder::Status::kNeedMore) {
        return fail("truncated chunked body (" + std::to_string(bytes_.size() - start) +
                    " bytes after the last complete request)");
      }
      pos += r.consumed;
    } else if (has_length) {
      if (length > bytes_.size() - pos) {
        return fail("truncated body: Content-Length " + std::to_string(length) + " but " +
                    std::to_string(bytes_.size() - pos) + " bytes follow the head");
      }
      t->body.assign(bytes_.substr(pos, static_cast<size_t>(length)));
      pos += static_cast<size_t>(length);
    }
    h2.finish();  // needs the body: content-length for a chunked one

    // Empty lines after the last request go out with it: the bytes sent stay the script's.
    if (skip_empty_lines(bytes_, pos) == bytes_.size()) pos = bytes_.size();
    t->http1.assign(bytes_.substr(start, pos - start));
    t->scheme.assign(scheme_);
    t->head = t->method == "HEAD";
    t->close_after = request_asks_to_close(t->http1);
    t->asks_upgrade = request_asks_to_upgrade(t->http1);
    t->idempotent = is_idempotent_method(t->method);
    *end = pos;
    return ok_status();
  }

 private:
  Status parse_request_line(std::string_view line, RequestTemplate* t) {
    const size_t sp1 = line.find(' ');
    const std::string_view method = line.substr(0, sp1);
    if (sp1 == std::string_view::npos || !is_token(method)) {
      return fail("invalid request line " + quote(line));
    }
    const std::string_view rest = line.substr(sp1 + 1);
    const size_t sp2 = rest.find(' ');
    const std::string_view target = rest.substr(0, sp2);
    if (target.empty()) return fail("invalid request line " + quote(line));
    for (char ch : target) {
      const auto c = static_cast<unsigned char>(ch);
      if (c < 0x20 || c == 0x7f) return fail("invalid request target " + quote(target));
    }
    if (sp2 == std::string_view::npos) {
      return fail("no HTTP version in the request line " + quote(line) +
                  " (HTTP/0.9 requests are not supported)");
    }
    const std::string_view version = rest.substr(sp2 + 1);
    if (version != "HTTP/1.1" && version != "HTTP/1.0") {
      return fail("unsupported HTTP version " + quote(version) + " (HTTP/1.0 or HTTP/1.1)");
    }
    t->method.assign(method);
    t->path.assign(target);
    return ok_status();
  }

  Status incomplete(size_t start) const {
    return fail("incomplete request: " + std::to_string(bytes_.size() - start) +
                " bytes after the last complete one");
  }

  Status fail(const std::string& what) const {
    return make_error("request " + std::to_string(number_) + ": " + what);
  }

  std::string_view bytes_;
  std::string_view scheme_;
  size_t number_ = 0;
};

}  // namespace

Status parse_raw_requests(std::string_view bytes, std::string_view scheme,
                          std::vector<RequestTemplate>* out) {
  if (bytes.empty()) return make_error("empty request: the script gave no bytes");
  if (skip_empty_lines(bytes, 0) == bytes.size()) {
    return make_error("request 1: no request line, only empty lines");
  }
  RequestParser parser(bytes, scheme);
  size_t count = 0;
  for (size_t pos = 0; pos < bytes.size();) {
    if (count == out->size()) out->emplace_back();
    if (Status s = parser.parse(count + 1, pos, &(*out)[count], &pos); !s.ok()) return s;
    ++count;
  }
  out->resize(count);
  return ok_status();
}

}  // namespace hail
