#include "server/h2_session.h"

#include <nghttp2/nghttp2.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string>

#include "server/reply.h"
#include "server/request_path.h"
#include "server/response_head.h"

namespace hail {

// nghttp2 1.60 renamed the ssize_t API (mem_recv2, mem_send2, submit_response2, data_provider2)
// and deprecated the old names; Debian 12 ships 1.52.
#if NGHTTP2_VERSION_NUM >= 0x013c00
using H2Ssize = nghttp2_ssize;
using H2DataProvider = nghttp2_data_provider2;
#define HAIL_H2_MEM_RECV nghttp2_session_mem_recv2
#define HAIL_H2_MEM_SEND nghttp2_session_mem_send2
#define HAIL_H2_SUBMIT_RESPONSE nghttp2_submit_response2
#else
using H2Ssize = ssize_t;
using H2DataProvider = nghttp2_data_provider;
#define HAIL_H2_MEM_RECV nghttp2_session_mem_recv
#define HAIL_H2_MEM_SEND nghttp2_session_mem_send
#define HAIL_H2_SUBMIT_RESPONSE nghttp2_submit_response
#endif

namespace {

constexpr size_t kFrameHeaderBytes = 9;
constexpr size_t kHpackEntryOverhead = 32;  // RFC 9113 section 6.5.2: name + value + 32

ServeMethod method_of(std::string_view name) {
  if (name == "GET") return ServeMethod::kGet;
  if (name == "HEAD") return ServeMethod::kHead;
  if (name == "POST") return ServeMethod::kPost;
  if (name == "PUT") return ServeMethod::kPut;
  return ServeMethod::kOther;
}

nghttp2_nv header(std::string_view name, std::string_view value) {
  nghttp2_nv nv;
  nv.name = reinterpret_cast<uint8_t*>(const_cast<char*>(name.data()));
  nv.namelen = name.size();
  nv.value = reinterpret_cast<uint8_t*>(const_cast<char*>(value.data()));
  nv.valuelen = value.size();
  nv.flags =
      NGHTTP2_NV_FLAG_NONE;  // nghttp2 copies names and values when the response is submitted
  return nv;
}

}  // namespace

PrefaceMatch match_h2_preface(std::string_view first_bytes) {
  const size_t n = std::min(first_bytes.size(), kH2ClientPreface.size());
  if (first_bytes.substr(0, n) != kH2ClientPreface.substr(0, n)) return PrefaceMatch::kNotH2;
  return n == kH2ClientPreface.size() ? PrefaceMatch::kH2 : PrefaceMatch::kNeedMore;
}

struct H2ServerSession::Stream {
  int32_t id = 0;
  ServeMethod method = ServeMethod::kOther;
  std::string target;  // :path
  std::string path;    // decoded
  std::string content_type;
  std::string body;                       // /echo
  uint64_t declared_length = UINT64_MAX;  // content-length, if sent
  uint64_t header_bytes = 0;
  uint64_t echo_bytes = 0;  // this stream's share of echo_bytes_
  int error_status = 0;     // 413, 414 or 431 decided while the request arrived
  Route route;
  bool routed = false;
  bool request_ended = false;  // END_STREAM received
  bool responded = false;      // reply decided (maybe parked)
  Reply reply;
  uint64_t body_sent = 0;  // body bytes handed to nghttp2
};

// nghttp2's callbacks, as static members with access to the session.
struct H2ServerSession::Callbacks {
  static H2ServerSession* self(void* user_data) { return static_cast<H2ServerSession*>(user_data); }

  static int on_begin_headers(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    H2ServerSession* s = self(user);
    const int32_t id = frame->hd.stream_id;
    if (s->goaway_last_id_ != 0 && id > s->goaway_last_id_) {
      // Opened before the client saw our GOAWAY: not processed, safe for it to retry elsewhere.
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
      return 0;
    }
    auto stream = std::make_unique<Stream>();
    stream->id = id;
    s->streams_[id] = std::move(stream);
    ++s->streams_started_;
    if (s->options_.max_requests != 0 && s->streams_started_ == s->options_.max_requests) {
      nghttp2_submit_goaway(session, NGHTTP2_FLAG_NONE, id, NGHTTP2_NO_ERROR, nullptr, 0);
      s->goaway_last_id_ = id;
    }
    return 0;
  }

  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name_bytes,
                       size_t name_len, const uint8_t* value_bytes, size_t value_len, uint8_t,
                       void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    Stream* stream = self(user)->find(frame->hd.stream_id);
    if (stream == nullptr) return 0;
    stream->header_bytes += name_len + value_len + kHpackEntryOverhead;
    // Far too large: reset the stream instead of decoding on for nothing.
    if (stream->header_bytes > kMaxH2HeaderBlockBytes) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    if (stream->header_bytes > kMaxRequestLineBytes + kMaxHeaderBytes &&
        stream->error_status == 0) {
      stream->error_status = 431;
    }
    if (stream->error_status != 0) return 0;
    const std::string_view name(reinterpret_cast<const char*>(name_bytes), name_len);
    const std::string_view value(reinterpret_cast<const char*>(value_bytes), value_len);
    if (name == ":method") {
      stream->method = method_of(value);
    } else if (name == ":path") {
      if (value.size() > kMaxRequestLineBytes) {
        stream->error_status = 414;
      } else {
        stream->target.assign(value);
      }
    } else if (name == "content-type") {
      stream->content_type.assign(value);
    } else if (name == "content-length") {
      uint64_t length = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
      if (ec == std::errc() && end == value.data() + value.size()) stream->declared_length = length;
    }
    return 0;
  }

  static int on_frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
    H2ServerSession* s = self(user);
    Stream* stream = s->find(frame->hd.stream_id);
    if (stream == nullptr) return 0;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      stream->routed = true;
      stream->route = route_request(stream->method, stream->target, &stream->path);
      if (stream->route.endpoint != Endpoint::kStats && s->env_->counters != nullptr) {
        bump(s->env_->counters->h2_streams);
      }
      if (stream->error_status == 0 && stream->route.endpoint == Endpoint::kEcho &&
          stream->declared_length != UINT64_MAX && stream->declared_length > kMaxEchoBodyBytes) {
        stream->error_status = 413;
      }
      // A refused request is answered at once; the rest of its body is not waited for.
      if (stream->error_status != 0) s->respond(stream);
    }
    if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0) {
      stream->request_ended = true;
      if (!stream->responded && stream->routed) s->respond(stream);
    }
    return 0;
  }

  static int on_data_chunk_recv(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data,
                                size_t len, void* user) {
    H2ServerSession* s = self(user);
    Stream* stream = s->find(stream_id);
    // Bodies of other endpoints are read and discarded (nghttp2 returns the window either way).
    if (stream == nullptr || stream->responded || stream->route.endpoint != Endpoint::kEcho) {
      return 0;
    }
    if (stream->body.size() + len > kMaxEchoBodyBytes ||
        s->echo_bytes_ + len > kMaxH2EchoBytesPerConnection) {
      stream->error_status = 413;
      s->echo_bytes_ -= stream->echo_bytes;
      stream->echo_bytes = 0;
      std::string().swap(stream->body);
      s->respond(stream);
      return 0;
    }
    stream->body.append(reinterpret_cast<const char*>(data), len);
    stream->echo_bytes += len;
    s->echo_bytes_ += len;
    return 0;
  }

  static int on_frame_send(nghttp2_session* session, const nghttp2_frame* frame, void* user) {
    H2ServerSession* s = self(user);
    Stream* stream = s->find(frame->hd.stream_id);
    if (stream == nullptr || !stream->responded) return 0;
    if (!stream->reply.counted) s->uncounted_debt_ += kFrameHeaderBytes + frame->hd.length;
    const bool ends = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0 &&
                      (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA);
    if (ends && !stream->request_ended) {
      // Answered before the request ended (a refusal): ask the client to stop sending
      // (RFC 9113 section 8.1).
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, stream->id, NGHTTP2_NO_ERROR);
    }
    return 0;
  }

  static int on_stream_close(nghttp2_session*, int32_t stream_id, uint32_t, void* user) {
    H2ServerSession* s = self(user);
    auto it = s->streams_.find(stream_id);
    if (it == s->streams_.end()) return 0;
    s->echo_bytes_ -= it->second->echo_bytes;
    s->streams_.erase(it);
    return 0;
  }

  static H2Ssize read_body(nghttp2_session*, int32_t, uint8_t* buf, size_t length,
                           uint32_t* data_flags, nghttp2_data_source* source, void*) {
    Stream* stream = static_cast<Stream*>(source->ptr);
    Reply& reply = stream->reply;
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(length, reply.length - stream->body_sent));
    switch (reply.body) {
      case Reply::Body::kText:
        std::memcpy(buf, reply.text.data() + stream->body_sent, n);
        break;
      case Reply::Body::kPattern: {
        const char* pattern = body_pattern_buffer();
        for (size_t done = 0; done < n;) {
          const size_t phase = (stream->body_sent + done) % kBodyPatternPeriod;
          const size_t chunk = std::min(n - done, kBodyPatternBufferBytes - phase);
          std::memcpy(buf + done, pattern + phase, chunk);
          done += chunk;
        }
        break;
      }
      case Reply::Body::kFile: {
        size_t done = 0;
        while (done < n) {
          const ssize_t got =
              pread(reply.fd(), buf + done, n - done, static_cast<off_t>(stream->body_sent + done));
          if (got > 0) {
            done += static_cast<size_t>(got);
          } else if (got == 0 || errno != EINTR) {
            // Shrunk or unreadable after its content-length went out: reset the stream.
            return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
          }
        }
        break;
      }
      case Reply::Body::kNone:
        break;
    }
    stream->body_sent += n;
    if (stream->body_sent == reply.length) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<H2Ssize>(n);
  }

  static nghttp2_session_callbacks* get() {
    struct Holder {
      nghttp2_session_callbacks* callbacks = nullptr;
      Holder() {
        nghttp2_session_callbacks_new(&callbacks);
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &on_begin_headers);
        nghttp2_session_callbacks_set_on_header_callback(callbacks, &on_header);
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &on_frame_recv);
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &on_data_chunk_recv);
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &on_frame_send);
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &on_stream_close);
      }
      ~Holder() { nghttp2_session_callbacks_del(callbacks); }
    };
    static const Holder holder;  // thread-safe init; nghttp2 only reads it
    return holder.callbacks;
  }
};

H2ServerSession::H2ServerSession(const SessionEnv* env, const H2Options& options)
    : env_(env), options_(options) {
  if (nghttp2_session_server_new(&session_, Callbacks::get(), this) != 0) {
    session_ = nullptr;
    output_.add_close();
    return;
  }
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, options_.max_concurrent_streams},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
       static_cast<uint32_t>(kMaxRequestLineBytes + kMaxHeaderBytes)},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  produce();
}

H2ServerSession::~H2ServerSession() {
  // nghttp2_session_del calls no callbacks; the streams (and their files) go afterwards.
  if (session_ != nullptr) nghttp2_session_del(session_);
}

H2ServerSession::Stream* H2ServerSession::find(int32_t stream_id) {
  if (stream_id == 0) return nullptr;
  auto it = streams_.find(stream_id);
  return it == streams_.end() ? nullptr : it->second.get();
}

bool H2ServerSession::wants_input() const {
  return !output_.closing() && output_.buffered_bytes() < kMaxBufferedOutputBytes;
}

size_t H2ServerSession::feed(const char* data, size_t len, uint64_t now_ns) {
  if (output_.closing() || session_ == nullptr) return len;
  now_ns_ = now_ns;
  const H2Ssize rv = HAIL_H2_MEM_RECV(session_, reinterpret_cast<const uint8_t*>(data), len);
  if (rv < 0) {
    fail();
    return len;
  }
  produce();
  return len;
}

void H2ServerSession::fail() {
  // Bad client magic, a flood, a callback failure: say GOAWAY if nghttp2 still can, then close.
  nghttp2_session_terminate_session(session_, NGHTTP2_PROTOCOL_ERROR);
  produce();
  output_.add_close();
}

void H2ServerSession::advance(uint64_t now_ns) {
  now_ns_ = now_ns;
  for (size_t i = 0; i < parked_.size();) {
    Stream* stream = find(parked_[i]);
    // Gone (reset by the client meanwhile) or due: off the list (order does not matter).
    if (stream == nullptr || stream->reply.ready_at_ns <= now_ns) {
      parked_[i] = parked_.back();
      parked_.pop_back();
      if (stream != nullptr) submit(stream);
      continue;
    }
    ++i;
  }
  produce();
}

uint64_t H2ServerSession::wake_at_ns() const {
  uint64_t wake = UINT64_MAX;
  for (const int32_t id : parked_) {
    auto it = streams_.find(id);
    if (it != streams_.end()) wake = std::min(wake, it->second->reply.ready_at_ns);
  }
  return wake;
}

void H2ServerSession::respond(Stream* stream) {
  stream->responded = true;
  if (stream->error_status != 0) {
    stream->reply = error_reply(stream->error_status);
  } else {
    ReplyRequest request;
    request.route = stream->route;
    request.path = stream->path;
    request.content_type = stream->content_type;
    request.body = &stream->body;
    request.now_ns = now_ns_;
    make_reply(*env_, request, &stream->reply);
  }
  // Counted when decided, like an HTTP/1 response queued behind a delay.
  if (stream->reply.counted && env_->counters != nullptr) bump(env_->counters->requests);
  if (stream->reply.ready_at_ns > now_ns_) {
    parked_.push_back(stream->id);
    return;
  }
  submit(stream);
}

void H2ServerSession::submit(Stream* stream) {
  const Reply& reply = stream->reply;
  char status[4];
  std::to_chars(status, status + sizeof status, reply.status);
  char length[24];
  const auto length_end = std::to_chars(length, length + sizeof length, reply.length).ptr;

  nghttp2_nv nva[6];
  size_t count = 0;
  nva[count++] = header(":status", std::string_view(status, 3));
  nva[count++] = header("server", "hail");
  if (env_->date_line != nullptr && env_->date_line->size() > 8) {
    // "Date: <value>\r\n" -> <value>
    const std::string& line = *env_->date_line;
    nva[count++] = header("date", std::string_view(line).substr(6, line.size() - 8));
  }
  if (!reply.content_type.empty()) nva[count++] = header("content-type", reply.content_type);
  if (!status_has_no_body(reply.status)) {
    nva[count++] = header("content-length", std::string_view(length, length_end - length));
  }
  if (!reply.allow.empty()) nva[count++] = header("allow", reply.allow);

  const bool has_body =
      stream->method != ServeMethod::kHead && reply.length > 0 && reply.body != Reply::Body::kNone;
  if (has_body) {
    H2DataProvider provider;
    provider.source.ptr = stream;
    provider.read_callback = &Callbacks::read_body;
    HAIL_H2_SUBMIT_RESPONSE(session_, stream->id, nva, count, &provider);
  } else {
    HAIL_H2_SUBMIT_RESPONSE(session_, stream->id, nva, count, nullptr);
  }
}

void H2ServerSession::produce() {
  if (session_ == nullptr) return;
  while (!output_.closing() && output_.buffered_bytes() < kMaxBufferedOutputBytes) {
    const uint8_t* data = nullptr;
    const H2Ssize n = HAIL_H2_MEM_SEND(session_, &data);
    if (n < 0) {
      output_.add_close();
      return;
    }
    if (n == 0) break;
    // Frames of /stats streams were reported by on_frame_send during this call: leave them out of
    // bytes_sent.
    const uint64_t size = static_cast<uint64_t>(n);
    const uint64_t uncounted = std::min(size, uncounted_debt_);
    uncounted_debt_ -= uncounted;
    const char* bytes = reinterpret_cast<const char*>(data);
    output_.append(std::string_view(bytes, size - uncounted), true);
    output_.append(std::string_view(bytes + (size - uncounted), uncounted), false);
  }
  if (!output_.closing() && nghttp2_session_want_read(session_) == 0 &&
      nghttp2_session_want_write(session_) == 0) {
    // GOAWAY went out (ours after --h2-max-requests, or the peer's) and no stream is left.
    output_.add_close();
  }
}

}  // namespace hail
