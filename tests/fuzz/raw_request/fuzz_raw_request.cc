// Fuzz target for parse_raw_requests (a wrk script's request() text turned into templates). The
// input is the request text. Accepted input must split exactly (the templates' bytes concatenated
// are the input), give templates that parse alone to themselves, follow the HTTP/2 field rules, and
// come out the same when parsed into a vector that held other templates; a rejection must be one
// line naming the request.
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "http/raw_request.h"
#include "http/request.h"

namespace {

[[noreturn]] void die(const char* what, std::string_view input) {
  std::cerr << "fuzz_raw_request: " << what << "\n  input: " << hail::quote(input) << "\n";
  std::abort();
}

// RFC 9113 §8.2.2 lets TE through only as "trailers" (compared case-insensitively, as nghttp2
// does).
bool iequals_trailers(std::string_view v) {
  static constexpr std::string_view kTrailers = "trailers";
  if (v.size() != kTrailers.size()) return false;
  for (size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kTrailers[i]) return false;
  }
  return true;
}

bool same(const hail::RequestTemplate& a, const hail::RequestTemplate& b) {
  return a.http1 == b.http1 && a.method == b.method && a.scheme == b.scheme &&
         a.authority == b.authority && a.path == b.path && a.h2_fields == b.h2_fields &&
         a.body == b.body && a.head == b.head && a.close_after == b.close_after;
}

void check_template(const hail::RequestTemplate& t, std::string_view input) {
  if (t.method.empty() || t.path.empty()) die("empty method or path", input);
  if (t.head != (t.method == "HEAD")) die("head flag", input);
  if (t.close_after != hail::request_asks_to_close(t.http1)) die("close_after", input);
  for (const auto& [name, value] : t.h2_fields) {
    if (name.empty()) die("empty h2 field name", input);
    for (char c : name) {
      if (c >= 'A' && c <= 'Z') die("upper-case h2 field name", input);
    }
    if (name == "host" || name == "connection" || name == "keep-alive" ||
        name == "proxy-connection" || name == "transfer-encoding" || name == "upgrade" ||
        (name == "te" && !iequals_trailers(value))) {
      die("connection-specific field in the HTTP/2 view", input);
    }
    if (!value.empty() && (value.front() == ' ' || value.front() == '\t' || value.back() == ' ' ||
                           value.back() == '\t')) {
      die("untrimmed h2 field value", input);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 18)) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<hail::RequestTemplate> out;
  const hail::Status s = hail::parse_raw_requests(input, "http", &out);
  if (!s.ok()) {
    const std::string& m = s.error().message;
    if (m.empty() || m.find('\n') != std::string::npos) die("error not one line", input);
    if (m.rfind("request ", 0) != 0 && m.rfind("empty request", 0) != 0) {
      die("error does not name the request", input);
    }
    return 0;
  }
  if (out.empty()) die("accepted without a request", input);
  std::string joined;
  for (const hail::RequestTemplate& t : out) {
    joined += t.http1;
    check_template(t, input);
    std::vector<hail::RequestTemplate> alone;
    if (!hail::parse_raw_requests(t.http1, "http", &alone).ok() || alone.size() != 1 ||
        !same(alone[0], t)) {
      die("a request parsed alone differs", input);
    }
  }
  if (joined != input) die("the templates' bytes are not the input", input);

  // Parsed into a vector that held other (larger) templates: the same result.
  static const std::string kOther =
      "POST /other HTTP/1.1\r\nHost: o\r\nX-A: 1\r\nX-B: 2\r\nX-C: 3\r\nContent-Length: "
      "3\r\n\r\nabc"
      "PUT /p HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
      "GET /g HTTP/1.1\r\n\r\nGET /h HTTP/1.1\r\n\r\n";
  std::vector<hail::RequestTemplate> reused;
  if (!hail::parse_raw_requests(kOther, "https", &reused).ok()) die("kOther rejected", kOther);
  if (!hail::parse_raw_requests(input, "http", &reused).ok() || reused.size() != out.size()) {
    die("reparse into a used vector differs", input);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (!same(reused[i], out[i])) die("reparse into a used vector differs", input);
  }
  return 0;
}
