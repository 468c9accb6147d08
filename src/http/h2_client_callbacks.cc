// nghttp2's callbacks for H2ClientSession: headers, data, frames received and sent, stream
// closes, and the request body source. Each runs inside nghttp2_session_mem_recv / mem_send, that
// is inside H2ClientSession::feed() or fill_output(), on the session owner's thread.
#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "http/h2_client_impl.h"
#include "http/h2_error_reasons.h"
#include "http/request.h"

namespace hail {

int H2ClientSession::Impl::on_begin_headers(nghttp2_session* /*s*/, const nghttp2_frame* frame,
                                            void* user) {
  auto* self = static_cast<Impl*>(user);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  Entry* e = self->find(frame->hd.stream_id);
  if (e == nullptr || e->first_byte) return 0;
  e->first_byte = true;
  if (self->listener != nullptr) self->listener->on_first_byte(e->slot);
  return 0;
}

int H2ClientSession::Impl::on_header(nghttp2_session* /*s*/, const nghttp2_frame* frame,
                                     const uint8_t* name, size_t name_len, const uint8_t* value,
                                     size_t value_len, uint8_t /*flags*/, void* user) {
  auto* self = static_cast<Impl*>(user);
  if (frame->hd.type != NGHTTP2_HEADERS) return 0;
  const bool status_field = name_len == 7 && std::memcmp(name, ":status", 7) == 0;
  if (!status_field && !self->capture) return 0;
  Entry* e = self->find(frame->hd.stream_id);
  if (e == nullptr) return 0;
  if (!status_field) {
    // nghttp2 puts pseudo-header fields first and rejects unknown ones; only :status is ours.
    if (e->in_final_head && name_len > 0 && name[0] != ':') {
      e->headers.emplace_back(std::string(reinterpret_cast<const char*>(name), name_len),
                              std::string(reinterpret_cast<const char*>(value), value_len));
    }
    return 0;
  }
  if (value_len != 3) return 0;  // nghttp2 checked: three digits, once per block
  int code = 0;
  for (size_t i = 0; i < 3; ++i) {
    if (value[i] < '0' || value[i] > '9') return 0;
    code = code * 10 + (value[i] - '0');
  }
  if (code < 200) {
    ++e->interim;
  } else {
    e->status = code;
    e->in_final_head = self->capture;
    e->headers.clear();
  }
  return 0;
}

int H2ClientSession::Impl::on_data_chunk(nghttp2_session* /*s*/, uint8_t /*flags*/,
                                         int32_t stream_id, const uint8_t* data, size_t len,
                                         void* user) {
  auto* self = static_cast<Impl*>(user);
  if (!self->capture) return 0;
  Entry* e = self->find(stream_id);
  if (e == nullptr || e->status < 200) return 0;
  const size_t room = Http1ResponseParser::kDefaultMaxCaptureBodyBytes - e->body.size();
  e->body.append(reinterpret_cast<const char*>(data), std::min(len, room));
  return 0;
}

int H2ClientSession::Impl::on_frame_recv(nghttp2_session* /*s*/, const nghttp2_frame* frame,
                                         void* user) {
  auto* self = static_cast<Impl*>(user);
  switch (frame->hd.type) {
    case NGHTTP2_SETTINGS:
      if ((frame->hd.flags & NGHTTP2_FLAG_ACK) == 0) self->settings_received = true;
      return 0;
    case NGHTTP2_GOAWAY:
      // nghttp2 refuses the streams above last_stream_id right after this callback.
      self->goaway = true;
      self->goaway_last_stream_id = frame->goaway.last_stream_id;
      return 0;
    case NGHTTP2_RST_STREAM:
      if (Entry* e = self->find(frame->hd.stream_id)) e->peer_reset = true;
      return 0;
    case NGHTTP2_HEADERS:
      // The final head's block ends here; a later block is trailers (not captured).
      if (Entry* e = self->find(frame->hd.stream_id)) e->in_final_head = false;
      break;
    case NGHTTP2_DATA:
      break;
    default:
      return 0;
  }
  // nghttp2 calls this only for a valid end (content-length, 1xx rules): the response is complete.
  if ((frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) return 0;
  Entry* e = self->find(frame->hd.stream_id);
  if (e == nullptr) return 0;
  if (e->status >= 200) {
    self->end_stream(*e, NGHTTP2_CANCEL);
    self->complete(*e);
  } else {
    self->end_stream(*e, NGHTTP2_PROTOCOL_ERROR);
    self->fail(*e, kNoFinalStatus);
  }
  return 0;
}

int H2ClientSession::Impl::on_frame_send(nghttp2_session* /*s*/, const nghttp2_frame* frame,
                                         void* user) {
  auto* self = static_cast<Impl*>(user);
  self->last_sent_type = frame->hd.type;
  // We never submit GOAWAY ourselves: one going out is nghttp2 ending the connection because the
  // server broke the protocol.
  if (frame->hd.type == NGHTTP2_GOAWAY) {
    self->fail_connection(ErrorClass::kParse,
                          code_reason(kConnectionError, frame->goaway.error_code));
  }
  return 0;
}

int H2ClientSession::Impl::on_stream_close(nghttp2_session* /*s*/, int32_t stream_id,
                                           uint32_t error_code, void* user) {
  auto* self = static_cast<Impl*>(user);
  Entry* e = self->find(stream_id);
  if (e == nullptr) return 0;  // completed, cancelled or refused already
  // Refused streams were never processed (RFC 9113 §8.7): the connection may send them again.
  if (self->goaway && stream_id > self->goaway_last_stream_id) {
    self->fail(*e, kRefusedByGoaway, true);
  } else if (e->peer_reset) {
    self->fail(*e, code_reason(kPeerReset, error_code), error_code == NGHTTP2_REFUSED_STREAM);
  } else {
    self->fail(*e, code_reason(kLocalReset, error_code));
  }
  return 0;
}

ssize_t H2ClientSession::Impl::read_body(nghttp2_session* /*s*/, int32_t stream_id, uint8_t* buf,
                                         size_t length, uint32_t* data_flags,
                                         nghttp2_data_source* /*source*/, void* user) {
  Entry* e = static_cast<Impl*>(user)->find(stream_id);
  // Cancelled or answered already: the RST_STREAM queued for it closes the stream.
  if (e == nullptr) return NGHTTP2_ERR_DEFERRED;
  const std::string& body = e->request->body;
  const size_t n = std::min(length, body.size() - e->body_offset);
  std::memcpy(buf, body.data() + e->body_offset, n);
  e->body_offset += n;
  if (e->body_offset == body.size()) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

}  // namespace hail
