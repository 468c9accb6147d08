// Differential fuzz target: parse_response_head and Http1ResponseParser against the llhttp-based
// oracle (tests/unit/http/llhttp_reference.h: the client's parser as it was before). Byte 0 picks
// the options (HEAD request, capture, EOF at the end), byte 1 a split point; the rest is the
// stream.
// 1. Head by head (interim 1xx heads and the final one): both must agree on complete / incomplete
//    / error and, when complete, on length, version, status, framing facts, the framing decision
//    and keep-alive (for GET and HEAD), and in capture mode on the fields. The only exceptions are
//    the deliberate differences D1-D6 of head_parser.h (the new parser rejects what llhttp took),
//    each checked against the bytes (D6: version and status errors that llhttp let through until
//    the head was complete), and errors llhttp reported at the bad byte while the new parser waits
//    for the line's end: appending "\r\n\r\n" must then make it fail too.
// 2. The whole stream through both response parsers: the traces must be equal, or differ only
//    where step 1 explains it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/head_parser.h"
#include "http/response_parser.h"
#include "unit/http/llhttp_reference.h"
#include "unit/http/response_trace.h"

namespace {

using hail::HeadParseResult;
using hail::HeadParseStatus;
using hail::ResponseHead;
using hail::test::RefHead;
using Fields = std::vector<std::pair<std::string, std::string>>;

const std::string kTerminator = "\r\n\r\n";

std::string escaped(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 600)) {
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c < 0x20 || c >= 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

[[noreturn]] void die(const std::string& what, std::string_view input) {
  std::cerr << "fuzz_head_diff: " << what << "\n  input: \"" << escaped(input) << "\"\n";
  std::abort();
}

const char* status_name(HeadParseStatus s) {
  switch (s) {
    case HeadParseStatus::kComplete:
      return "complete";
    case HeadParseStatus::kIncomplete:
      return "incomplete";
    case HeadParseStatus::kError:
      return "error";
  }
  return "?";
}

// RFC 9112 §6.3 as Http1ResponseParser applies it, from either parser's facts.
struct Decision {
  enum Kind : uint8_t { kNoBody, kLength, kChunked, kUntilClose } kind;
  uint64_t length;
  bool keep_alive;
  bool operator==(const Decision&) const = default;
};

Decision decide(int status, int minor, bool te, bool chunked, bool has_cl, uint64_t cl, bool close,
                bool keep_alive_token, bool head_request) {
  bool ka = !close && (minor == 1 || keep_alive_token);
  if (head_request || status < 200 || status == 204 || status == 304) {
    return {Decision::kNoBody, 0, ka && status != 101};
  }
  if (te) {
    if (minor == 0) ka = false;
    return chunked ? Decision{Decision::kChunked, 0, ka}
                   : Decision{Decision::kUntilClose, 0, false};
  }
  if (has_cl) return {Decision::kLength, cl, ka};
  return {Decision::kUntilClose, 0, false};
}

Decision decide_new(const ResponseHead& h, bool head_request) {
  return decide(h.status, h.http_minor, h.transfer_encoding, h.chunked, h.has_content_length,
                h.content_length, h.connection_close, h.connection_keep_alive, head_request);
}

Decision decide_old(const RefHead& r, bool head_request) {
  return decide(r.status_code, r.http_minor, (r.flags & F_TRANSFER_ENCODING) != 0,
                (r.flags & F_CHUNKED) != 0, (r.flags & F_CONTENT_LENGTH) != 0, r.content_length,
                (r.flags & F_CONNECTION_CLOSE) != 0, (r.flags & F_CONNECTION_KEEP_ALIVE) != 0,
                head_request);
}

void collect_field(void* ctx, std::string_view name, std::string_view value) {
  auto* fields = static_cast<Fields*>(ctx);
  std::string v;
  for (char c : value) {
    if (c != '\r' && c != '\n') v.push_back(c);  // as Http1ResponseParser joins obs-fold
  }
  fields->emplace_back(std::string(name), std::move(v));
}

HeadParseResult parse_new(std::string_view s, ResponseHead* h, Fields* fields) {
  if (fields == nullptr) return hail::parse_response_head(s.data(), s.size(), h);
  const hail::HeadFieldSink sink{&collect_field, fields};
  return hail::parse_response_head(s.data(), s.size(), h, &sink);
}

bool ieq(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] + 32) : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

// Is the new parser's rejection of s explained by head_parser.h's deliberate differences? Checked
// against the bytes, not only the reason. llhttp may have accepted s, or not be done with it yet.
bool deliberate(std::string_view s, const HeadParseResult& n) {
  const std::string_view reason = n.reason;
  const size_t at = n.consumed;
  const char c = at < s.size() ? s[at] : '\0';
  size_t line = 0;  // the status line (empty lines before it are skipped by both)
  while (line < s.size() && (s[line] == '\r' || s[line] == '\n')) ++line;
  if (reason == "unsupported HTTP version") {
    // D6: llhttp read the digits (0.9 and 2.0 even passed) and our wrapper rejected every major
    // version but 1 once the head was complete.
    return at == line + 5;
  }
  if (reason == "invalid status code") {
    // D1 (not exactly 3 digits) or D6 (outside 100..599: rejected once complete). llhttp took 1+
    // digits up to 999, or none ("HTTP/1.1  OK" was status 0).
    const size_t first = line + 9;
    if (at < first) return false;
    size_t d = first;
    while (d < s.size() && s[d] >= '0' && s[d] <= '9') ++d;
    const size_t digits = d - first;
    const bool run_ended = d < s.size();
    return (digits > 0 && (s[first] == '0' || s[first] > '5')) || digits >= 4 ||
           (run_ended && digits != 3);
  }
  if (reason == "Empty Content-Length") {
    // llhttp waited for the next line: an obs-fold there (D5 for us) would have given the value.
    const size_t lf = s.find('\n', at);
    return lf == std::string_view::npos || lf + 1 == s.size() || s[lf + 1] == ' ' ||
           s[lf + 1] == '\t';
  }
  if (reason == "invalid character in field name") return c == ' ';  // D2 (llhttp's loose TOKEN)
  if (reason == "empty field name") return c == ':';                 // D3
  if (reason == "whitespace before the first field line") return c == ' ';  // D4
  if (reason == "obs-fold in a framing field") {                            // D5
    if (c != ' ' && c != '\t') return false;
    if (at == 0 || s[at - 1] != '\n') return false;
    size_t line_end = at - 1;
    size_t start = s.rfind('\n', line_end - (line_end > 0 ? 1 : 0));
    start = start == std::string_view::npos ? 0 : start + 1;
    const size_t colon = s.find(':', start);
    if (colon == std::string_view::npos || colon > line_end) return false;
    const std::string_view name = s.substr(start, colon - start);
    return ieq(name, "content-length") || ieq(name, "transfer-encoding") ||
           ieq(name, "connection") || ieq(name, "proxy-connection");
  }
  return false;
}

enum class Verdict { kAgree, kExplained };

// Compares one head at the start of s, and the heads after it while both see interim responses.
Verdict compare_heads(std::string_view s, bool capture) {
  for (int depth = 0; depth <= 40; ++depth) {
    ResponseHead h;
    Fields fields;
    const HeadParseResult n = parse_new(s, &h, capture ? &fields : nullptr);
    const RefHead o = hail::test::ref_parse_head(s.data(), s.size(), capture);
    if (n.status == HeadParseStatus::kError && o.status != HeadParseStatus::kError) {
      if (deliberate(s, n)) return Verdict::kExplained;
      die(std::string("new parser rejects (") + n.reason + ") what llhttp " +
              status_name(o.status) + "s",
          s);
    }
    if (o.status == HeadParseStatus::kError && n.status == HeadParseStatus::kIncomplete) {
      // llhttp saw a bad byte at once; the new parser must see it once the line is complete.
      const std::string longer = std::string(s) + kTerminator;
      ResponseHead h2;
      const HeadParseResult n2 = parse_new(longer, &h2, nullptr);
      if (n2.status == HeadParseStatus::kError) return Verdict::kExplained;
      die(std::string("llhttp rejects (") + o.reason + ") what the new parser accepts", longer);
    }
    if (n.status != o.status) {
      die(std::string("new ") + status_name(n.status) + ", llhttp " + status_name(o.status), s);
    }
    if (n.status != HeadParseStatus::kComplete) return Verdict::kAgree;

    if (n.consumed != o.consumed) die("head lengths differ", s);
    if (h.http_major != o.http_major || h.http_minor != o.http_minor) die("versions differ", s);
    if (h.status != o.status_code) die("status codes differ", s);
    const bool te = (o.flags & F_TRANSFER_ENCODING) != 0;
    if (h.transfer_encoding != te) die("Transfer-Encoding presence differs", s);
    if (te && h.chunked != ((o.flags & F_CHUNKED) != 0)) die("chunked differs", s);
    if (h.has_content_length != ((o.flags & F_CONTENT_LENGTH) != 0)) {
      die("Content-Length presence differs", s);
    }
    if (h.has_content_length && h.content_length != o.content_length) {
      die("Content-Length differs", s);
    }
    if (h.connection_close != ((o.flags & F_CONNECTION_CLOSE) != 0)) die("close differs", s);
    if (h.connection_keep_alive != ((o.flags & F_CONNECTION_KEEP_ALIVE) != 0)) {
      die("keep-alive token differs", s);
    }
    for (bool head_request : {false, true}) {
      if (!(decide_new(h, head_request) == decide_old(o, head_request))) {
        die("framing decisions differ", s);
      }
    }
    if (capture && fields != o.fields) die("captured fields differ", s);
    if (h.status >= 200 || h.status == 101) return Verdict::kAgree;
    s.remove_prefix(n.consumed);  // interim: the next head follows
  }
  return Verdict::kAgree;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2 || size > (1 << 18)) return 0;
  hail::test::FeedOptions opt;
  opt.head_request = (data[0] & 1) != 0;
  opt.capture = (data[0] & 2) != 0;
  opt.eof = (data[0] & 4) != 0;
  const std::string input(reinterpret_cast<const char*>(data + 2), size - 2);

  // 1. The first head (and the interim heads after it), alone.
  compare_heads(input, opt.capture);

  // 2. The whole stream through both response parsers.
  const hail::test::Trace now = hail::test::run_parser(input, {}, opt, nullptr);
  hail::test::Trace before =
      hail::test::run_parser<hail::test::LlhttpResponseParser>(input, {}, opt, nullptr);
  // A head with two faults may be rejected for either (a bare CR after a bad Content-Length): the
  // connection closes all the same, so "bad head" and "bad framing" count as one.
  auto head_error = [](hail::ParseErrorKind k) {
    return k == hail::ParseErrorKind::kBadHead || k == hail::ParseErrorKind::kBadFraming;
  };
  if (head_error(now.error_kind) && head_error(before.error_kind)) {
    before.error_kind = now.error_kind;
  }
  if (!(now == before)) {
    size_t same = 0;
    while (same < now.responses.size() && same < before.responses.size() &&
           now.responses[same] == before.responses[same]) {
      ++same;
    }
    const size_t start = same == 0 ? 0 : now.responses[same - 1].end;
    if (compare_heads(std::string_view(input).substr(start), opt.capture) == Verdict::kAgree) {
      std::cerr << "  new:    " << now << "\n  llhttp: " << before << "\n";
      die("streams differ where the heads agree", input);
    }
  }
  // The new parser fed in two pieces must not differ from itself (the pending_head_ path).
  if (input.size() > 1) {
    const size_t cut = 1 + static_cast<size_t>(data[1]) * (input.size() - 1) / 256;
    if (!(hail::test::run_parser(input, {cut}, opt, nullptr) == now)) {
      die("split in two differs from whole", input);
    }
  }
  return 0;
}
