// H2ClientSession on nghttp2, in memory: nghttp2_session_mem_recv takes what the connection read,
// nghttp2_session_mem_send fills our own output buffer. Requests map to streams through our by_id
// table, backed by stream_user_data; both hold the index + 1 of an entry in a table sized at
// --streams.
//
// Allocation: nghttp2 allocates per stream internally (its stream object, the outbound HEADERS
// item, the copied nghttp2_nv array, HPACK entries), through nghttp2_mem from the worker's
// BlockCache, which reuses what the last responses freed. This file allocates nothing per request
// in steady state either: the entry table, its free list, the header-field array and
// the output buffer keep their capacity across requests (capture mode copies each response's
// fields, whose strings are new; its body buffers are reused).
#include "http/h2_client_session.h"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <utility>

#include "http/h2_client_impl.h"
#include "http/h2_error_reasons.h"
#include "http/request.h"
#include "http/response_parser.h"

namespace hail {

namespace {

constexpr uint32_t kDefaultWindowBytes = 65535;  // RFC 9113 §6.9.2
// We never accept server-initiated streams (ENABLE_PUSH 0); this is only what we advertise.
constexpr uint32_t kAdvertisedMaxStreams = 100;

nghttp2_nv make_nv(const char* name, size_t name_len, const std::string& value) {
  return nghttp2_nv{reinterpret_cast<uint8_t*>(const_cast<char*>(name)),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name_len,
                    value.size(), NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE};
}

void* cache_malloc(size_t bytes, void* cache) {
  return static_cast<BlockCache*>(cache)->allocate(bytes);
}
void cache_free(void* block, void* cache) {
  static_cast<BlockCache*>(cache)->release(block);
}
void* cache_calloc(size_t count, size_t bytes, void* cache) {
  return static_cast<BlockCache*>(cache)->allocate_zeroed(count, bytes);
}
void* cache_realloc(void* block, size_t bytes, void* cache) {
  return static_cast<BlockCache*>(cache)->reallocate(block, bytes);
}

}  // namespace

void H2ClientSession::Impl::reset() {
  if (session != nullptr) nghttp2_session_del(session);
  session = nullptr;
  free_entries.clear();
  for (uint32_t i = static_cast<uint32_t>(entries.size()); i > 0; --i) {
    entries[i - 1].recycle();
    free_entries.push_back(i - 1);
  }
  deferred_entries.clear();
  out.clear();
  out_offset = 0;
  in_flight = 0;
  settings_received = false;
  goaway = false;
  goaway_last_stream_id = 0;
  eof = false;
  dead = false;
  error_class = ErrorClass::kRead;
  error_reason = "";
  nghttp2_mem mem{blocks.get(), &cache_malloc, &cache_free, &cache_calloc, &cache_realloc};
  if (int rv = nghttp2_session_client_new3(&session, callbacks, this, nullptr, &mem); rv != 0) {
    session = nullptr;
    fail_connection(ErrorClass::kParse, nghttp2_strerror(rv));
    return;
  }
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, kAdvertisedMaxStreams},
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, window_bytes},
  };
  nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings, std::size(settings));
  // The connection window is not a setting: raise it with a WINDOW_UPDATE (RFC 9113 §6.9.2).
  if (window_bytes > kDefaultWindowBytes) {
    nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0,
                                          static_cast<int32_t>(window_bytes));
  }
}

uint32_t H2ClientSession::Impl::stream_limit() const {
  if (session == nullptr || !settings_received) return 0;
  return std::min(max_streams, nghttp2_session_get_remote_settings(
                                   session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS));
}

uint32_t H2ClientSession::Impl::capacity() const {
  // Nothing before the server's SETTINGS: its MAX_CONCURRENT_STREAMS is unknown until then, and
  // streams sent beyond it would be refused (counted as errors) instead of waiting.
  if (session == nullptr || dead || eof || goaway || !settings_received || ids_exhausted()) {
    return 0;
  }
  const uint32_t limit = stream_limit();
  return limit > in_flight ? limit - in_flight : 0;
}

void H2ClientSession::Impl::submit(uint32_t slot, const RequestTemplate& request) {
  uint32_t index = 0;
  if (!free_entries.empty()) {
    index = free_entries.back();
    free_entries.pop_back();
  } else {  // more than capacity() allowed: grow (not the steady state)
    index = static_cast<uint32_t>(entries.size());
    entries.emplace_back();
  }
  Entry& e = entries[index];
  e.recycle();
  e.request = &request;
  e.slot = slot;
  e.active = true;
  e.uploads = !request.body.empty();
  ++in_flight;
  if (session == nullptr || dead) return;  // the caller fails it with error()

  nv.clear();
  nv.push_back(make_nv(":method", 7, request.method));
  nv.push_back(make_nv(":scheme", 7, request.scheme));
  if (!request.authority.empty()) nv.push_back(make_nv(":authority", 10, request.authority));
  nv.push_back(make_nv(":path", 5, request.path));
  for (const auto& [name, value] : request.h2_fields) {
    nv.push_back(make_nv(name.data(), name.size(), value));
  }
  nghttp2_data_provider body;
  body.source.ptr = nullptr;
  body.read_callback = &Impl::read_body;
  const int32_t id = nghttp2_submit_request(session, nullptr, nv.data(), nv.size(),
                                            request.body.empty() ? nullptr : &body,
                                            reinterpret_cast<void*>(uintptr_t{index} + 1));
  if (id < 0) {
    // Not expected (stream IDs run out only past capacity()): reported by the next feed/on_eof.
    e.deferred = true;
    e.reason = nghttp2_strerror(id);
    deferred_entries.push_back(index);
    return;
  }
  e.stream_id = id;
  by_id[by_id_slot(id)] = index + 1;
}

bool H2ClientSession::Impl::cancel(uint32_t slot) {
  if (session == nullptr || dead) return false;  // the connection must close
  for (Entry& e : entries) {
    if (!e.active || e.slot != slot) continue;
    if (e.deferred) {
      deferred_entries.erase(
          std::find(deferred_entries.begin(), deferred_entries.end(), index_of(e)));
    } else {
      detach(e);
      // Also withdraws HEADERS not sent yet (nghttp2 1.52 cancels them in its queue).
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, e.stream_id, NGHTTP2_CANCEL);
    }
    release(e);
    return true;
  }
  return false;
}

// Only on_frame_recv completes a response, and it runs inside feed(): the listener is at hand.
void H2ClientSession::Impl::complete(Entry& e) {
  const uint32_t slot = e.slot;
  const int status = e.status;
  const uint32_t interim = e.interim;
  // Before release(): a listener that submits may reuse the entry and its buffers.
  if (capture) listener->on_response_captured(slot, status, e.headers, e.body);
  release(e);
  listener->on_response_complete(slot, status, interim);
}

void H2ClientSession::Impl::fail(Entry& e, const char* reason, bool refused) {
  if (listener == nullptr) {
    // Only mem_send (pending_output) gets here, e.g. a request submitted after GOAWAY: the next
    // feed() or on_eof() reports it.
    e.deferred = true;
    e.refused = refused;
    e.reason = reason;
    deferred_entries.push_back(index_of(e));
    return;
  }
  const uint32_t slot = e.slot;
  release(e);
  if (refused) {
    listener->on_request_refused(slot, reason);
  } else {
    listener->on_request_failed(slot, ErrorClass::kStream, reason);
  }
}

void H2ClientSession::Impl::deliver_deferred() {
  while (!deferred_entries.empty() && !dead) {
    Entry& e = entries[deferred_entries.back()];
    deferred_entries.pop_back();
    const uint32_t slot = e.slot;
    const char* reason = e.reason;
    const bool refused = e.refused;
    release(e);
    if (refused) {
      listener->on_request_refused(slot, reason);
    } else {
      listener->on_request_failed(slot, ErrorClass::kStream, reason);
    }
  }
}

void H2ClientSession::Impl::refuse_unsent_after_goaway() {
  // nghttp2 closes the open streams above last_stream_id itself (REFUSED_STREAM, on_stream_close).
  // Requests whose HEADERS are still queued would only be refused later inside mem_send, where no
  // listener is at hand: fail them now.
  for (size_t i = 0; i < entries.size() && !dead; ++i) {  // by index: a listener may submit
    Entry& e = entries[i];
    if (!e.active || e.deferred) continue;
    if (e.stream_id > goaway_last_stream_id ||
        nghttp2_session_find_stream(session, e.stream_id) == nullptr) {
      detach(e);
      fail(e, kRefusedByGoaway, true);
    }
  }
}

void H2ClientSession::Impl::fill_output() {
  if (session == nullptr || in_nghttp2) return;
  if (out_offset > 0) {
    out.erase(0, out_offset);  // keeps the capacity
    out_offset = 0;
  }
  in_nghttp2 = true;
  last_sent_type = -1;
  for (;;) {
    // Past the cap, stop once only DATA can follow: control frames (SETTINGS and PING acks,
    // WINDOW_UPDATE, RST_STREAM, GOAWAY) come before DATA in nghttp2's queues, so they always go
    // in, and stream closes they cause happen here rather than later.
    if (out.size() >= kOutputCapBytes &&
        (last_sent_type == NGHTTP2_DATA || nghttp2_session_get_outbound_queue_size(session) == 0 ||
         out.size() >= kBacklogLimitBytes)) {
      break;
    }
    const uint8_t* bytes = nullptr;
    const ssize_t n = nghttp2_session_mem_send(session, &bytes);
    if (n < 0) {
      fail_connection(ErrorClass::kParse, nghttp2_strerror(static_cast<int>(n)));
      break;
    }
    if (n == 0) break;
    out.append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(n));
  }
  in_nghttp2 = false;
}

SessionStatus H2ClientSession::Impl::feed(const char* data, size_t len, SessionListener& l) {
  if (dead || session == nullptr) return SessionStatus::kError;
  listener = &l;
  deliver_deferred();
  if (!dead && len > 0 && !in_nghttp2) {
    in_nghttp2 = true;
    const ssize_t rv =
        nghttp2_session_mem_recv(session, reinterpret_cast<const uint8_t*>(data), len);
    in_nghttp2 = false;
    if (rv < 0) fail_connection(ErrorClass::kParse, nghttp2_strerror(static_cast<int>(rv)));
  }
  if (!dead && goaway) refuse_unsent_after_goaway();
  // Answers (acks, WINDOW_UPDATE, RST_STREAM) are produced now, and with them any connection
  // error nghttp2 found: it shows as the GOAWAY nghttp2 sends.
  if (!dead) fill_output();
  if (!dead) deliver_deferred();
  listener = nullptr;
  return dead ? SessionStatus::kError : SessionStatus::kOk;
}

SessionStatus H2ClientSession::Impl::on_eof(SessionListener& l) {
  if (dead) return SessionStatus::kError;
  eof = true;
  listener = &l;
  deliver_deferred();
  listener = nullptr;
  if (in_flight == 0) return SessionStatus::kOk;
  fail_connection(ErrorClass::kRead, "connection closed");
  return SessionStatus::kError;
}

H2ClientSession::H2ClientSession(const H2Settings& settings, std::shared_ptr<BlockCache> blocks)
    : impl_(std::make_unique<Impl>(settings, std::move(blocks))) {
  impl_->reset();
}

H2ClientSession::~H2ClientSession() = default;

void H2ClientSession::set_capture(bool on) {
  impl_->capture = on;
}

void H2ClientSession::reset() {
  impl_->reset();
}

uint32_t H2ClientSession::capacity() const {
  return impl_->capacity();
}

uint32_t H2ClientSession::in_flight() const {
  return impl_->in_flight;
}

bool H2ClientSession::ready() const {
  return impl_->settings_received;
}

uint32_t H2ClientSession::stream_limit() const {
  return impl_->stream_limit();
}

void H2ClientSession::submit(uint32_t slot, const RequestTemplate& request) {
  impl_->submit(slot, request);
}

bool H2ClientSession::cancel(uint32_t slot) {
  return impl_->cancel(slot);
}

std::string_view H2ClientSession::pending_output() {
  if (!impl_->dead) impl_->fill_output();
  return std::string_view(impl_->out).substr(impl_->out_offset);
}

void H2ClientSession::consume_output(size_t bytes) {
  Impl& s = *impl_;
  s.out_offset += std::min(bytes, s.out.size() - s.out_offset);
  if (s.out_offset == s.out.size()) {
    s.out.clear();
    s.out_offset = 0;
  }
}

SessionStatus H2ClientSession::feed(const char* data, size_t len, SessionListener& listener) {
  return impl_->feed(data, len, listener);
}

SessionStatus H2ClientSession::on_eof(SessionListener& listener) {
  return impl_->on_eof(listener);
}

ErrorClass H2ClientSession::error() const {
  return impl_->error_class;
}

const char* H2ClientSession::error_reason() const {
  return impl_->error_reason;
}

bool H2ClientSession::reusable() const {
  const Impl& s = *impl_;
  return s.session != nullptr && !s.dead && !s.eof && !s.goaway && !s.ids_exhausted();
}

}  // namespace hail
