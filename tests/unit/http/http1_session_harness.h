// The recording listener and helpers that Http1ClientSession's unit tests share: a session is fed
// bytes and its listener calls are recorded in order. Test-only; single-threaded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "http/http1_client_session.h"
#include "http/request.h"

namespace hail::http1_test {

struct Event {
  char kind;  // 'f' first byte, 'c' complete, 'x' failed
  uint32_t slot;
  int status;
  bool operator==(const Event&) const = default;
};

class Recorder final : public SessionListener {
 public:
  void on_first_byte(uint32_t slot) override { events.push_back({'f', slot, 0}); }
  void on_response_complete(uint32_t slot, int status, uint32_t interim) override {
    events.push_back({'c', slot, status});
    interims += interim;
  }
  void on_request_failed(uint32_t slot, ErrorClass, const char*) override {
    events.push_back({'x', slot, 0});
  }
  std::vector<Event> events;
  uint32_t interims = 0;
};

inline RequestTemplate get_template(const std::string& path = "/a",
                                    const std::string& method = "GET") {
  RequestSpec spec;
  spec.method = method;
  spec.path = path;
  spec.authority = "h";
  return make_request_template(spec, "http");
}

inline std::string drain(ClientSession& s) {
  std::string out;
  for (std::string_view v = s.pending_output(); !v.empty(); v = s.pending_output()) {
    out.append(v);
    s.consume_output(v.size());
  }
  return out;
}

inline const std::string kOk = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
inline const std::string kNotFound = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";

}  // namespace hail::http1_test
