// Cost of parsing one typical response head (nginx, ~8 fields) through Http1ResponseParser, against
// a trivially hand-rolled scan that only finds the end of the head and a Content-Length: the floor
// any real parser is measured against. Run a Release build: ./bench_parser
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>

#include "http/response_parser.h"

namespace {

const std::string& nginx_response() {
  static const std::string s =
      "HTTP/1.1 200 OK\r\n"
      "Server: nginx/1.25.3\r\n"
      "Date: Mon, 01 Jan 2024 00:00:00 GMT\r\n"
      "Content-Type: text/html; charset=utf-8\r\n"
      "Content-Length: 615\r\n"
      "Last-Modified: Tue, 24 Oct 2023 13:46:47 GMT\r\n"
      "Connection: keep-alive\r\n"
      "ETag: \"6537cac7-267\"\r\n"
      "Accept-Ranges: bytes\r\n"
      "\r\n" +
      std::string(615, 'x');
  return s;
}

const std::string& chunked_response() {
  static const std::string s =
      "HTTP/1.1 200 OK\r\nServer: nginx/1.25.3\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\n"
      "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n"
      "\r\n267\r\n" +
      std::string(615, 'x') + "\r\n0\r\n\r\n";
  return s;
}

void BM_Http1ResponseParser(benchmark::State& state, const std::string& response) {
  hail::Http1ResponseParser parser;
  for (auto _ : state) {
    parser.begin_response(false);
    hail::ParseResult r = parser.feed(response.data(), response.size());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * response.size()));
}
BENCHMARK_CAPTURE(BM_Http1ResponseParser, nginx_content_length, nginx_response());
BENCHMARK_CAPTURE(BM_Http1ResponseParser, nginx_chunked, chunked_response());

// The head alone, body skipped as the connection would do with MSG_TRUNC.
void BM_Http1ResponseParserSkipBody(benchmark::State& state) {
  const std::string& response = nginx_response();
  const size_t head = response.find("\r\n\r\n") + 4;
  hail::Http1ResponseParser parser;
  for (auto _ : state) {
    parser.begin_response(false);
    parser.feed(response.data(), head);
    hail::ParseResult r = parser.skip_body(parser.skippable_body_bytes());
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_Http1ResponseParserSkipBody);

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
