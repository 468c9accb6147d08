// What bench/floor_client.cc and bench/floor_uring.cc share: the command line, the request, and
// learning the one response length from the first head. Header-only, because compare.py builds
// each floor with one g++ call. Single-threaded programs; no state here.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace floor_bench {

struct Args {
  bool close_each = false;
  long conns = 50;
  double seconds = 5;
  sockaddr_in addr{};
  std::string request;
};

// Fills `a` from `[--close] -cCONNS -dSECONDS http://127.0.0.1:PORT/PATH`; false (after the
// usage line on stderr) when the command line is not that.
inline bool parse_args(int argc, char** argv, const char* program, Args& a) {
  const char* url = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--close")
      a.close_each = true;
    else if (arg.rfind("-c", 0) == 0)
      a.conns = std::strtol(arg.c_str() + 2, nullptr, 10);
    else if (arg.rfind("-d", 0) == 0)
      a.seconds = std::strtod(arg.c_str() + 2, nullptr);
    else
      url = argv[i];
  }
  unsigned port = 0;
  char path[1024] = "/";
  if (url == nullptr || a.conns <= 0 || a.conns > 65536 ||
      std::sscanf(url, "http://127.0.0.1:%u%1023s", &port, path) < 1) {
    std::fprintf(stderr, "usage: %s [--close] -cCONNS -dSECONDS http://127.0.0.1:PORT/PATH\n",
                 program);
    return false;
  }
  a.addr.sin_family = AF_INET;
  a.addr.sin_port = htons(static_cast<uint16_t>(port));
  a.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.request = std::string("GET ") + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
              (a.close_each ? "\r\nConnection: close" : "") + "\r\n\r\n";
  return true;
}

// Head plus Content-Length of the response that starts at `data`, or 0 if its head is not all
// in these bytes or has no Content-Length.
inline size_t response_length(const char* data, size_t len) {
  const std::string head(data, len);
  const size_t end = head.find("\r\n\r\n");
  const size_t cl = head.find("Content-Length: ");
  if (end == std::string::npos || cl == std::string::npos || cl > end) return 0;
  return end + 4 + std::strtoul(head.c_str() + cl + 16, nullptr, 10);
}

// One line on stderr (with strerror(err) when err is not 0), then exit 1.
[[noreturn]] inline void die(const char* program, const char* what, int err) {
  if (err != 0)
    std::fprintf(stderr, "%s: %s: %s\n", program, what, std::strerror(err));
  else
    std::fprintf(stderr, "%s: %s\n", program, what);
  std::exit(1);
}

// The start of a response (at least 13 bytes of it, else unchecked) is a 200.
inline bool starts_200(const char* data, size_t len) {
  return len < 13 || std::memcmp(data, "HTTP/1.1 200 ", 13) == 0;
}

}  // namespace floor_bench
