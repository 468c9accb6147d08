// A tiny in-memory HTTP/2 server on nghttp2's server session, for driving H2ClientSession in tests
// and for capturing fuzz corpora. Each request is answered by its :path once it has ended:
//   /<status>[?len=N]  that status and N body bytes ('a'..'z' repeated); HEAD gets no body
//   /interim?n=K       K 103 responses, then 200
//   /rst?code=C        RST_STREAM with error code C
//   /badlen            content-length 5 but 3 body bytes (a malformed response)
//   /early             answered (200, no body) as soon as its HEADERS arrive, before its body
//   /trailers          200, 10 body bytes, then a trailer section that ends the stream
//   anything else      no answer (the test answers with respond() / rst() / goaway())
// Also the harness around it: Link (a client session and a server, with a pump moving bytes both
// ways), Events (a recording listener) and request templates. Test-only; single-threaded.
#pragma once

#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/block_cache.h"
#include "http/h2_client_session.h"
#include "http/request.h"

namespace hail::test {

class H2TestServer {
 public:
  struct Stream {
    std::string method, scheme, authority, path;
    std::vector<std::pair<std::string, std::string>> fields;  // regular fields, in order
    std::string body;
    bool request_ended = false;
    bool reset_by_client = false;
    uint32_t reset_code = 0;
    size_t body_left = 0;  // response body bytes still to send
    size_t body_sent = 0;
    bool trailers = false;  // end the response with a trailer section
  };

  explicit H2TestServer(uint32_t max_streams = 100) {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, &H2TestServer::on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cb, &H2TestServer::on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, &H2TestServer::on_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, &H2TestServer::on_frame_recv);
    nghttp2_session_server_new(&session_, cb, this);
    nghttp2_session_callbacks_del(cb);
    const nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams}};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, iv, 1);
  }
  ~H2TestServer() { nghttp2_session_del(session_); }
  H2TestServer(const H2TestServer&) = delete;
  H2TestServer& operator=(const H2TestServer&) = delete;

  nghttp2_session* session() { return session_; }

  // Client bytes in; false when nghttp2 rejected them.
  bool recv(std::string_view bytes) {
    const ssize_t rv = nghttp2_session_mem_recv(
        session_, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    return rv == static_cast<ssize_t>(bytes.size());
  }
  // Everything the server has to send now.
  std::string send() {
    std::string out;
    for (;;) {
      const uint8_t* p = nullptr;
      const ssize_t n = nghttp2_session_mem_send(session_, &p);
      if (n <= 0) break;
      out.append(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    }
    return out;
  }

  void respond(int32_t id, int status, size_t body_len, bool head = false,
               size_t content_length = SIZE_MAX) {
    Stream& s = streams[id];
    const std::string code = std::to_string(status);
    const std::string cl = std::to_string(content_length == SIZE_MAX ? body_len : content_length);
    const nghttp2_nv nva[] = {nv(":status", code), nv("content-length", cl)};
    s.body_left = head ? 0 : body_len;
    nghttp2_data_provider prd;
    prd.source.ptr = &s;
    prd.read_callback = &H2TestServer::read_body;
    nghttp2_submit_response(session_, id, nva, 2, s.body_left > 0 ? &prd : nullptr);
  }
  void interim(int32_t id, int status) {
    const std::string code = std::to_string(status);
    const nghttp2_nv nva[] = {nv(":status", code)};
    nghttp2_submit_headers(session_, NGHTTP2_FLAG_NONE, id, nullptr, nva, 1, nullptr);
  }
  void rst(int32_t id, uint32_t code) {
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, code);
  }
  void goaway(int32_t last_stream_id) {
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, last_stream_id, NGHTTP2_NO_ERROR, nullptr,
                          0);
  }
  void max_concurrent_streams(uint32_t n) {
    const nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, n}};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, iv, 1);
  }
  // Streams whose request arrived and that the server has not answered yet.
  size_t open_requests() const {
    size_t n = 0;
    for (const auto& [id, s] : streams) n += nghttp2_session_find_stream(session_, id) != nullptr;
    return n;
  }

  std::map<int32_t, Stream> streams;
  uint32_t stream_window_updates = 0;      // WINDOW_UPDATE frames on a stream
  uint32_t connection_window_updates = 0;  // on stream 0
  uint64_t connection_window_increment = 0;

 private:
  static nghttp2_nv nv(const char* name, const std::string& value) {
    return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name)),
                      reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())),
                      std::strlen(name), value.size(), NGHTTP2_NV_FLAG_NONE};
  }
  static size_t query(const std::string& path, const char* key, size_t fallback) {
    const size_t at = path.find(key);
    return at == std::string::npos ? fallback : std::stoul(path.substr(at + std::strlen(key)));
  }

  void answer(int32_t id) {
    Stream& s = streams[id];
    const std::string& p = s.path;
    if (p.rfind("/rst", 0) == 0) {
      rst(id, static_cast<uint32_t>(query(p, "code=", NGHTTP2_INTERNAL_ERROR)));
    } else if (p.rfind("/interim", 0) == 0) {
      for (size_t i = query(p, "n=", 1); i > 0; --i) interim(id, 103);
      respond(id, 200, 0);
    } else if (p == "/trailers") {
      s.trailers = true;
      respond(id, 200, 10);
    } else if (p == "/badlen") {
      respond(id, 200, 3, false, 5);
    } else if (p.size() >= 4 && p[0] == '/' && p[1] >= '1' && p[1] <= '9') {
      respond(id, std::stoi(p.substr(1, 3)), query(p, "len=", 0), s.method == "HEAD");
    }
  }

  static int on_begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    static_cast<H2TestServer*>(user)->streams[frame->hd.stream_id];
    return 0;
  }
  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                       size_t name_len, const uint8_t* value, size_t value_len, uint8_t,
                       void* user) {
    Stream& s = static_cast<H2TestServer*>(user)->streams[frame->hd.stream_id];
    const std::string n(reinterpret_cast<const char*>(name), name_len);
    const std::string v(reinterpret_cast<const char*>(value), value_len);
    if (n == ":method") {
      s.method = v;
    } else if (n == ":scheme") {
      s.scheme = v;
    } else if (n == ":authority") {
      s.authority = v;
    } else if (n == ":path") {
      s.path = v;
    } else {
      s.fields.emplace_back(n, v);
    }
    return 0;
  }
  static int on_data(nghttp2_session*, uint8_t, int32_t id, const uint8_t* data, size_t len,
                     void* user) {
    static_cast<H2TestServer*>(user)->streams[id].body.append(reinterpret_cast<const char*>(data),
                                                              len);
    return 0;
  }
  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    auto* self = static_cast<H2TestServer*>(user);
    const int32_t id = frame->hd.stream_id;
    switch (frame->hd.type) {
      case NGHTTP2_WINDOW_UPDATE:
        if (id == 0) {
          ++self->connection_window_updates;
          self->connection_window_increment +=
              static_cast<uint64_t>(frame->window_update.window_size_increment);
        } else {
          ++self->stream_window_updates;
        }
        return 0;
      case NGHTTP2_RST_STREAM:
        self->streams[id].reset_by_client = true;
        self->streams[id].reset_code = frame->rst_stream.error_code;
        return 0;
      case NGHTTP2_HEADERS:
        if (self->streams[id].path == "/early" && !self->streams[id].request_ended) {
          self->respond(id, 200, 0);
        }
        [[fallthrough]];
      case NGHTTP2_DATA:
        if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
          self->streams[id].request_ended = true;
          if (self->streams[id].path != "/early") self->answer(id);
        }
        return 0;
      default:
        return 0;
    }
  }
  static ssize_t read_body(nghttp2_session* session, int32_t id, uint8_t* buf, size_t length,
                           uint32_t* flags, nghttp2_data_source* source, void*) {
    auto* s = static_cast<Stream*>(source->ptr);
    const size_t n = std::min(length, s->body_left);
    for (size_t i = 0; i < n; ++i) buf[i] = static_cast<uint8_t>('a' + (s->body_sent + i) % 26);
    s->body_left -= n;
    s->body_sent += n;
    if (s->body_left == 0) *flags |= NGHTTP2_DATA_FLAG_EOF;
    if (s->body_left == 0 && s->trailers) {
      *flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
      static const std::string kValue = "1";
      const nghttp2_nv trailer[] = {nv("x-checksum", kValue)};
      nghttp2_submit_trailer(session, id, trailer, 1);
    }
    return static_cast<ssize_t>(n);
  }

  nghttp2_session* session_ = nullptr;
};

struct Event {
  // kRefused: on_request_refused (the server did not process it; the connection may resend it).
  enum Kind { kFirstByte, kComplete, kFailed, kRefused } kind;
  uint32_t slot = 0;
  int status = 0;
  uint32_t interim = 0;
  ErrorClass error = ErrorClass::kRead;
  std::string reason;
  bool operator==(const Event&) const = default;
};

inline std::ostream& operator<<(std::ostream& os, const Event& e) {
  static const char* const kKinds[] = {"first_byte", "complete", "failed", "refused"};
  return os << kKinds[e.kind] << "(" << e.slot << ", " << e.status << ", " << e.interim << ", "
            << error_class_name(e.error) << ", \"" << e.reason << "\")";
}

inline Event first_byte(uint32_t slot) {
  return {Event::kFirstByte, slot, 0, 0, ErrorClass::kRead, ""};
}
inline Event complete(uint32_t slot, int status, uint32_t interim = 0) {
  return {Event::kComplete, slot, status, interim, ErrorClass::kRead, ""};
}
inline Event failed(uint32_t slot, std::string reason) {
  return {Event::kFailed, slot, 0, 0, ErrorClass::kStream, std::move(reason)};
}
inline Event refused(uint32_t slot, std::string reason) {
  return {Event::kRefused, slot, 0, 0, ErrorClass::kStream, std::move(reason)};
}

class Events : public SessionListener {
 public:
  void on_first_byte(uint32_t slot) override { list.push_back(first_byte(slot)); }
  void on_response_complete(uint32_t slot, int status, uint32_t interim) override {
    list.push_back(complete(slot, status, interim));
  }
  void on_request_failed(uint32_t slot, ErrorClass error, const char* reason) override {
    list.push_back({Event::kFailed, slot, 0, 0, error, reason});
  }
  void on_request_refused(uint32_t slot, const char* reason) override {
    list.push_back(refused(slot, reason));
  }
  std::vector<Event> take() { return std::exchange(list, {}); }
  std::vector<Event> list;
};

inline RequestTemplate get(std::string path, std::string method = "GET", std::string body = "") {
  RequestTemplate t;
  t.method = std::move(method);
  t.scheme = "http";
  t.authority = "example.test:8080";
  t.path = std::move(path);
  t.h2_fields = {{"user-agent", "hail-test"}, {"accept", "*/*"}};
  if (!body.empty() || t.method == "POST") {
    t.h2_fields.emplace_back("content-length", std::to_string(body.size()));
  }
  t.body = std::move(body);
  t.head = t.method == "HEAD";
  return t;
}

// A client session and a server, with the bytes between them.
struct Link {
  explicit Link(H2Settings settings, uint32_t server_max_streams = 100,
                std::shared_ptr<BlockCache> blocks = nullptr)
      : client(settings, std::move(blocks)), server(server_max_streams) {
    client.reset();
  }

  // Moves bytes both ways until neither side has anything to say. read_chunk / write_chunk: the
  // largest piece fed to the client / consumed from its output at once.
  SessionStatus pump(size_t read_chunk = SIZE_MAX, size_t write_chunk = SIZE_MAX) {
    for (int round = 0; round < 100000; ++round) {
      bool progress = false;
      std::string_view out = client.pending_output();
      if (!out.empty()) {
        const size_t n = std::min(out.size(), write_chunk);
        EXPECT_TRUE(server.recv(out.substr(0, n)));
        client.consume_output(n);
        progress = true;
      }
      const std::string in = server.send();
      captured += in;
      for (size_t at = 0; at < in.size(); at += read_chunk) {
        if (client.feed(in.data() + at, std::min(read_chunk, in.size() - at), events) !=
            SessionStatus::kOk) {
          return SessionStatus::kError;
        }
        progress = true;
      }
      if (!progress) return SessionStatus::kOk;
    }
    ADD_FAILURE() << "pump does not settle";
    return SessionStatus::kError;
  }

  H2ClientSession client;
  H2TestServer server;
  Events events;
  std::string captured;  // every byte the server sent
};

inline std::string pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 7 % 251);
  return s;
}

}  // namespace hail::test
