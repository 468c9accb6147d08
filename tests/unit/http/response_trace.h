// Response stream driver shared by the unit tests and the fuzz target: feeds a byte stream in given
// pieces, each copied to the end of a readable region directly followed by a PROT_NONE page
// (picohttpparser's habit), so any read past the bytes handed over crashes, and records what a
// caller would observe as a comparable trace. Test-only (no gtest here); single-threaded.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "http/response_parser.h"

namespace hail::test {

// A readable region ending at a guard page. place() returns a pointer such that the bytes end
// exactly at the guard page.
class GuardedBuffer {
 public:
  explicit GuardedBuffer(size_t capacity) {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    readable_ = (capacity + page_ - 1) / page_ * page_;
    if (readable_ == 0) readable_ = page_;
    void* p = mmap(nullptr, readable_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED) std::abort();
    base_ = static_cast<char*>(p);
    if (mprotect(base_ + readable_, page_, PROT_NONE) != 0) std::abort();
  }
  ~GuardedBuffer() { munmap(base_, readable_ + page_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  const char* place(const char* data, size_t len) {
    if (len > readable_) std::abort();
    char* dst = base_ + readable_ - len;
    if (len > 0) std::memcpy(dst, data, len);
    return dst;
  }

 private:
  size_t page_ = 0;
  size_t readable_ = 0;
  char* base_ = nullptr;
};

struct ResponseRecord {
  int status = 0;
  int http_minor = 0;
  bool keep_alive = false;
  uint64_t body_bytes = 0;
  uint32_t interim = 0;
  size_t end = 0;                                            // stream offset just past the response
  std::vector<std::pair<std::string, std::string>> headers;  // capture mode only
  std::string body;                                          // capture mode only
  bool body_truncated = false;

  bool operator==(const ResponseRecord&) const = default;
};

struct Trace {
  std::vector<ResponseRecord> responses;
  ParseStatus final_status = ParseStatus::kNeedMore;  // after the last byte (and on_eof if asked)
  ParseErrorKind error_kind = ParseErrorKind::kNone;
  bool started = false;  // of the response in progress at the end

  bool operator==(const Trace&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const ResponseRecord& r) {
  os << "{status=" << r.status << " 1." << r.http_minor << " ka=" << r.keep_alive
     << " body=" << r.body_bytes << " interim=" << r.interim << " end=" << r.end;
  if (!r.headers.empty()) os << " headers=" << r.headers.size();
  if (!r.body.empty()) os << " captured=" << r.body.size();
  return os << "}";
}

inline std::ostream& operator<<(std::ostream& os, const Trace& t) {
  os << "responses=[";
  for (const auto& r : t.responses) os << r << " ";
  return os << "] final=" << static_cast<int>(t.final_status)
            << " error=" << parse_error_kind_name(t.error_kind) << " started=" << t.started;
}

struct FeedOptions {
  bool head_request = false;
  bool upgrade_requested = false;  // the request carried an Upgrade field
  bool eof = false;                // call on_eof() after the last piece
  bool capture = false;
  bool skip = false;  // discard skippable body bytes instead of feeding them, like MSG_TRUNC
  size_t max_capture_body_bytes = Http1ResponseParser::kDefaultMaxCaptureBodyBytes;
};

// Feeds `input` cut at the given ascending offsets. Checks the API contract on every call (through
// `violations`, so the caller can report which split broke it). Parser: Http1ResponseParser, or a
// class with the same API (the llhttp-based oracle in llhttp_reference.h).
template <typename Parser = Http1ResponseParser>
Trace run_parser(const std::string& input, const std::vector<size_t>& cuts, const FeedOptions& opt,
                 std::vector<std::string>* violations) {
  static GuardedBuffer guard(1 << 20);
  Parser parser;
  parser.set_capture(opt.capture, opt.max_capture_body_bytes);
  parser.begin_response(opt.head_request, opt.upgrade_requested);
  Trace trace;
  auto record = [&](size_t end) {
    ResponseRecord r;
    r.status = parser.status();
    r.http_minor = parser.http_minor();
    r.keep_alive = parser.keep_alive();
    r.body_bytes = parser.body_bytes();
    r.interim = parser.interim_responses();
    r.end = end;
    r.headers = parser.headers();
    r.body = parser.body();
    r.body_truncated = parser.body_truncated();
    trace.responses.push_back(std::move(r));
    parser.begin_response(opt.head_request, opt.upgrade_requested);
  };
  auto violate = [&](const std::string& what) {
    if (violations != nullptr) violations->push_back(what);
  };

  size_t start = 0;
  bool failed = false;
  for (size_t i = 0; i <= cuts.size() && !failed; ++i) {
    size_t stop = i < cuts.size() ? cuts[i] : input.size();
    const char* piece = guard.place(input.data() + start, stop - start);
    size_t len = stop - start;
    size_t off = 0;
    while (off < len && !failed) {
      if (opt.skip) {
        size_t skippable = parser.skippable_body_bytes();
        if (skippable > 0) {
          size_t n = std::min(skippable, len - off);
          ParseResult s = parser.skip_body(n);
          if (s.consumed != n) violate("skip_body consumed != n");
          off += n;
          if (s.status == ParseStatus::kComplete) record(start + off);
          if (s.status == ParseStatus::kError) violate("skip_body error");
          continue;
        }
      }
      ParseResult r = parser.feed(piece + off, len - off);
      if (r.consumed > len - off) violate("consumed > len");
      if (r.status == ParseStatus::kNeedMore && r.consumed != len - off) {
        violate("kNeedMore with consumed != len");
      }
      off += r.consumed;
      if (r.status == ParseStatus::kError) {
        if (parser.error_kind() == ParseErrorKind::kNone) violate("kError without kind");
        if (parser.feed(piece, 0).status != ParseStatus::kError) violate("error not sticky");
        trace.final_status = ParseStatus::kError;
        trace.error_kind = parser.error_kind();
        failed = true;
      } else if (r.status == ParseStatus::kComplete) {
        if (parser.error_kind() != ParseErrorKind::kNone) violate("complete with error kind");
        record(start + off);
      }
    }
    start = stop;
  }
  if (!failed) {
    if (!opt.eof) trace.started = parser.started();
    if (opt.eof) {
      ParseResult r = parser.on_eof();
      if (r.status == ParseStatus::kComplete) {
        record(input.size());
        trace.final_status = ParseStatus::kComplete;
      } else if (r.status == ParseStatus::kError) {
        trace.final_status = ParseStatus::kError;
        trace.error_kind = parser.error_kind();
      } else {
        violate("on_eof returned kNeedMore");
      }
    }
  }
  return trace;
}

}  // namespace hail::test
