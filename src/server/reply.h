// Reply: what `hail serve` answers to one request, decided once for both protocols — the endpoint
// semantics (/bytes, /delay, /status, /echo, /stats, static files, errors) live here, and the
// HTTP/1 session and the HTTP/2 session only render a Reply into their own framing.
// Owner: server. Pure apart from opening files under --root; single-threaded per Reply.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "server/request_path.h"
#include "server/server_stats.h"

namespace hail {

struct SessionEnv;

// The parts of a parsed request that decide its reply.
struct ReplyRequest {
  Route route;
  std::string_view path;          // decoded request path (the file for Endpoint::kStatic)
  std::string_view content_type;  // the request's Content-Type (echoed by /echo)
  std::string* body = nullptr;    // /echo: the request body, moved into the reply
  uint64_t now_ns = 0;            // when the request was complete (/delay counts from here)
};

// A reply: status, headers and a body by reference (pattern, file) or by value (text).
class Reply {
 public:
  enum class Body : uint8_t { kNone, kText, kPattern, kFile };

  Reply() = default;
  ~Reply();
  Reply(Reply&& other) noexcept;
  Reply& operator=(Reply&& other) noexcept;
  Reply(const Reply&) = delete;
  Reply& operator=(const Reply&) = delete;

  int status = 200;
  // Static storage, or the request's Content-Type (valid as long as the request's fields).
  std::string_view content_type;
  std::string_view allow;  // 405: the Allow header's value (static storage); empty: no header
  Body body = Body::kNone;
  uint64_t length = 0;       // Content-Length (also for HEAD, whose body is not sent)
  std::string text;          // Body::kText
  uint64_t ready_at_ns = 0;  // /delay: not to be sent before this; 0: at once
  bool counted = true;       // false for /stats: neither a request nor bytes_sent

  // Body::kFile: the open file (read-only); the reply closes it unless taken.
  int fd() const { return fd_; }
  int take_fd();
  void set_file(int fd, uint64_t size);

 private:
  int fd_ = -1;
};

// Fills `reply` (default-constructed) for a routed request (Endpoint::kError included): filled in
// place rather than returned, as this runs once per request. For a static file the file is opened
// here; /stats reads the server-wide totals through env.
void make_reply(const SessionEnv& env, const ReplyRequest& request, Reply* reply);

// "404 Not Found\n" as text/plain, with an Allow header for 405 when `allow` is set.
Reply error_reply(int status, std::string_view allow = {});

// The /stats body: {"requests": N, "connections": N, ...}\n
std::string stats_json(const ServerStats& stats);

}  // namespace hail
