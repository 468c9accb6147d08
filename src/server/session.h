// ServerSession: the server side of one HTTP/1.1 connection as a pure state machine — request bytes
// in, queued response bytes (an OutputQueue) out. It parses with llhttp (strict: conflicting
// lengths and CL+TE are errors, which closes the door on request smuggling), enforces the head and
// body limits and renders every response. No socket and no clock (now_ns is passed in), so unit
// tests and the fuzz target drive it directly. Owner: server. Single-threaded (its connection's
// reactor).
#pragma once

#include <llhttp.h>

#include <cstdint>
#include <string>

#include "server/output_queue.h"
#include "server/reply.h"
#include "server/request_path.h"
#include "server/response_head.h"
#include "server/session_env.h"

namespace hail {

class ServerSession {
 public:
  explicit ServerSession(const SessionEnv* env);
  ServerSession(const ServerSession&) = delete;
  ServerSession& operator=(const ServerSession&) = delete;

  // Parses requests from `data` and queues their responses in order. Returns the bytes consumed:
  // fewer than `len` when output is full (see wants_input()); the caller keeps the rest and feeds
  // it again later. Once a closing response is queued everything further is consumed and ignored.
  size_t feed(const char* data, size_t len, uint64_t now_ns);
  // False while the output is over its limits or the connection is closing.
  bool wants_input() const;
  // Part of a request head has arrived but not all of it: the header timeout runs.
  bool in_head() const { return in_head_; }
  // Part of a request has arrived but its response is not queued yet.
  bool mid_request() const { return in_message_; }
  // A response refusing a request (400, 408, 413, 414, 431, 501) was queued: the peer may still
  // be sending, so the connection should linger on close instead of resetting.
  bool refused() const { return refused_; }
  // Header timeout: queue a 408 and close.
  void time_out_head();

  OutputQueue& output() { return output_; }

 private:
  static const llhttp_settings_t* settings();
  static ServerSession* self(llhttp_t* parser) { return static_cast<ServerSession*>(parser->data); }
  static int on_message_begin(llhttp_t* parser);
  static int on_method(llhttp_t* parser, const char* at, size_t len);
  static int on_url(llhttp_t* parser, const char* at, size_t len);
  static int on_version(llhttp_t* parser, const char* at, size_t len);
  static int on_version_complete(llhttp_t* parser);
  static int on_header_field(llhttp_t* parser, const char* at, size_t len);
  static int on_header_field_complete(llhttp_t* parser);
  static int on_header_value(llhttp_t* parser, const char* at, size_t len);
  static int on_header_value_complete(llhttp_t* parser);
  static int on_headers_complete(llhttp_t* parser);
  static int on_body(llhttp_t* parser, const char* at, size_t len);
  static int on_message_complete(llhttp_t* parser);

  int fail(int status);
  int note_head_bytes(const char* at, size_t len);
  void account_partial_head(const char* chunk_end);
  void end_request_line();

  void respond();
  void respond_error(int status, bool close);
  // Renders `reply` (shared endpoint logic, server/reply.h) as an HTTP/1.1 response.
  void send_reply(Reply& reply, bool close);
  void queue_head(const HeadFields& fields, bool counted);
  void count_request();
  std::string_view date_line() const;

  enum class Header : uint8_t { kOther, kContentType, kExpect, kTransferEncoding };

  const SessionEnv* env_;
  llhttp_t parser_;
  OutputQueue output_;
  uint64_t now_ns_ = 0;

  // The request being parsed.
  bool in_message_ = false;
  bool in_head_ = false;
  bool refused_ = false;
  bool keep_alive_ = true;
  bool http10_ = false;
  bool head_method_ = false;
  int error_status_ = 0;  // set by a callback that fails the parse
  Header header_ = Header::kOther;
  Route route_;
  std::string url_;
  std::string field_;  // current header name, only as long as the names we look for
  std::string content_type_;
  std::string expect_;
  // Every Transfer-Encoding value of the head, as one list.
  std::string transfer_encoding_;
  std::string path_;  // decoded request path
  std::string body_;  // /echo only

  // Head size accounting across feed() calls: bytes before this chunk, where the head starts in it.
  uint64_t head_bytes_before_ = 0;
  const char* head_start_ = nullptr;
  const char* head_last_end_ = nullptr;
  uint64_t request_line_bytes_ = 0;  // 0 until the request line is complete
  uint64_t trailer_bytes_ = 0;       // trailer field bytes after a chunked body

  std::string scratch_;  // head rendering, reused
};

}  // namespace hail
