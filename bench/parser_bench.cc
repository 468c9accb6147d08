// Cost of parsing one typical response (nginx, 9 fields, 1 KiB body) through Http1ResponseParser,
// whose head parser is hand-written (http/head_parser.h), against the llhttp-based parser it
// replaced (kept as a test-only oracle in tests/unit/http/llhttp_reference.h), and against a
// trivially hand-rolled scan that only finds the end of the head and a Content-Length: the floor
// any real parser is measured against. Run a Release build: ./bench_parser
//
// Instructions per call (callgrind, GCC 12 -O3, x86-64). How: run
//   valgrind --tool=callgrind --callgrind-out-file=cg.out ./bench_parser --benchmark_filter=X
// then `callgrind_annotate --inclusive=yes --tree=caller cg.out`: each callee is listed with its
// cost from each benchmark function and its number of calls, "N < BM_...(Kx)": N/K per call.
//                                              hand-written head   llhttp (before)
//   feed(), nginx head (254 B) + 1 KiB body           1,244            4,240
//   feed(), the head alone, then skip_body            1,238            4,223
//   feed(), chunked head + one 1 KiB chunk            1,598            3,709
//   begin_response                                       30              100 (llhttp_init)
//   parse_response_head alone                         1,092                -
//   hand-rolled floor (no validation)                ~2,250 (memmem, memchr per line)
// Wall time, same order (development VM, noisy): 77 / 83 / 125 ns against 434 / 426 / 383 ns;
// parse_response_head 68 ns, hand-rolled 172 ns.
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>

#include "http/head_parser.h"
#include "http/response_parser.h"
#include "unit/http/llhttp_reference.h"

namespace {

const std::string& nginx_head() {
  static const std::string s =
      "HTTP/1.1 200 OK\r\n"
      "Server: nginx/1.25.3\r\n"
      "Date: Mon, 01 Jan 2024 00:00:00 GMT\r\n"
      "Content-Type: text/html; charset=utf-8\r\n"
      "Content-Length: 1024\r\n"
      "Last-Modified: Tue, 24 Oct 2023 13:46:47 GMT\r\n"
      "Connection: keep-alive\r\n"
      "ETag: \"6537cac7-400\"\r\n"
      "Accept-Ranges: bytes\r\n"
      "\r\n";
  return s;
}

const std::string& nginx_response() {
  static const std::string s = nginx_head() + std::string(1024, 'x');
  return s;
}

const std::string& chunked_response() {
  static const std::string s =
      "HTTP/1.1 200 OK\r\nServer: nginx/1.25.3\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n"
      "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n"
      "\r\n400\r\n" +
      std::string(1024, 'x') + "\r\n0\r\n\r\n";
  return s;
}

using NewParser = hail::Http1ResponseParser;
using OldParser = hail::test::LlhttpResponseParser;

// The whole response in one feed, as it arrives from the socket.
template <typename Parser>
void BM_Feed(benchmark::State& state, const std::string& response) {
  Parser parser;
  for (auto _ : state) {
    parser.begin_response(false);
    hail::ParseResult r = parser.feed(response.data(), response.size());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * response.size()));
}
void BM_FeedNew(benchmark::State& state, const std::string& response) {
  BM_Feed<NewParser>(state, response);
}
void BM_FeedLlhttp(benchmark::State& state, const std::string& response) {
  BM_Feed<OldParser>(state, response);
}
BENCHMARK_CAPTURE(BM_FeedNew, nginx_1k, nginx_response());
BENCHMARK_CAPTURE(BM_FeedLlhttp, nginx_1k, nginx_response());
BENCHMARK_CAPTURE(BM_FeedNew, nginx_chunked_1k, chunked_response());
BENCHMARK_CAPTURE(BM_FeedLlhttp, nginx_chunked_1k, chunked_response());

// The head alone, body skipped as the connection would do with MSG_TRUNC.
template <typename Parser>
void BM_FeedHeadSkipBody(benchmark::State& state) {
  const std::string& head = nginx_head();
  Parser parser;
  for (auto _ : state) {
    parser.begin_response(false);
    parser.feed(head.data(), head.size());
    hail::ParseResult r = parser.skip_body(parser.skippable_body_bytes());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK_TEMPLATE(BM_FeedHeadSkipBody, NewParser);
BENCHMARK_TEMPLATE(BM_FeedHeadSkipBody, OldParser);

// The head parsers by themselves, without the response state machine around them.
void BM_ParseResponseHead(benchmark::State& state) {
  const std::string& head = nginx_head();
  for (auto _ : state) {
    hail::ResponseHead h;
    hail::HeadParseResult r = hail::parse_response_head(head.data(), head.size(), &h);
    benchmark::DoNotOptimize(r);
    benchmark::DoNotOptimize(h);
  }
}
BENCHMARK(BM_ParseResponseHead);

// Floor: memmem for the end of the head, a case-insensitive look for Content-Length, no validation.
size_t hand_rolled(const char* data, size_t len) {
  const void* end = memmem(data, len, "\r\n\r\n", 4);
  if (end == nullptr) return 0;
  size_t head = static_cast<size_t>(static_cast<const char*>(end) - data) + 4;
  size_t body = 0;
  for (const char* p = data; p < data + head;) {
    const char* eol =
        static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(data + head - p)));
    if (eol == nullptr) break;
    if (eol - p > 16 && strncasecmp(p, "content-length: ", 16) == 0) {
      for (const char* q = p + 16; *q >= '0' && *q <= '9'; ++q) body = body * 10 + (*q - '0');
    }
    p = eol + 1;
  }
  return head + body;
}

void BM_HandRolledScan(benchmark::State& state) {
  const std::string& response = nginx_response();
  for (auto _ : state) {
    size_t n = hand_rolled(response.data(), response.size());
    benchmark::DoNotOptimize(n);
  }
}
BENCHMARK(BM_HandRolledScan);

}  // namespace
