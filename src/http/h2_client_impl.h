// The state behind H2ClientSession (nghttp2 session, entry table, output buffer), shared by its
// two source files: h2_client_session.cc (the session's operations) and h2_client_callbacks.cc
// (nghttp2's callbacks). Private to src/http; owned by one H2ClientSession, so by the one worker
// thread whose connection owns that session.
#pragma once

#include <nghttp2/nghttp2.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "http/block_cache.h"
#include "http/h2_client_session.h"
#include "http/response_parser.h"

namespace hail {

// Output is produced from nghttp2 until this much waits unsent (control frames always go in).
constexpr size_t kOutputCapBytes = 64 * 1024;
// ...unless this much already waits: a server that floods us with PINGs or SETTINGS while not
// reading our answers then trips nghttp2's own flood detection (mem_recv fails) instead of
// growing our buffer without bound.
constexpr size_t kBacklogLimitBytes = 4 * 1024 * 1024;

struct H2ClientSession::Impl {
  // One request in flight. Entries are reused; an entry is found from its stream through
  // stream_user_data (index + 1), and stream_id guards against a stale mapping.
  struct Entry {
    const RequestTemplate* request = nullptr;
    uint32_t slot = 0;
    int32_t stream_id = 0;
    size_t body_offset = 0;  // request body bytes handed to nghttp2
    int status = 0;          // final status, 0 until it arrives
    uint32_t interim = 0;    // 1xx responses before it
    bool active = false;
    bool uploads = false;  // the request has a body (DATA frames after its HEADERS)
    bool first_byte = false;
    bool peer_reset = false;       // the server sent RST_STREAM
    bool deferred = false;         // closed while no listener was at hand: `reason` waits
    bool refused = false;          // ... and the server never processed it (RFC 9113 §8.7)
    const char* reason = nullptr;  // deferred failure
    // Capture mode: the final response's fields and body. Their buffers outlive the request, so
    // that the next one on this entry reuses them (recycle()).
    bool in_final_head = false;  // inside the header block with the final :status
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;

    // Back to a fresh entry, keeping the capture buffers' capacity.
    void recycle() {
      auto kept = std::make_pair(std::move(headers), std::move(body));
      *this = Entry{};
      headers = std::move(kept.first);
      body = std::move(kept.second);
      headers.clear();
      body.clear();
    }
  };

  Impl(const H2Settings& s, std::shared_ptr<BlockCache> cache)
      : blocks(cache ? std::move(cache) : std::make_shared<BlockCache>()),
        max_streams(std::max(s.max_streams, 1u)),
        window_bytes(
            static_cast<uint32_t>((uint64_t{1} << std::clamp(s.window_bits, 1u, 31u)) - 1)) {
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &Impl::on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &Impl::on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Impl::on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &Impl::on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Impl::on_stream_close);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Impl::on_data_chunk);
    entries.resize(max_streams);
    by_id.resize(std::bit_ceil(std::max<size_t>(2 * size_t{max_streams}, 16)));
    free_entries.reserve(max_streams);
    deferred_entries.reserve(max_streams);
    nv.reserve(32);
    out.reserve(kOutputCapBytes + 16 * 1024);
  }

  ~Impl() {
    if (session != nullptr) nghttp2_session_del(session);
    nghttp2_session_callbacks_del(callbacks);
  }

  void reset();
  void submit(uint32_t slot, const RequestTemplate& request);
  bool cancel(uint32_t slot);
  void fill_output();
  SessionStatus feed(const char* data, size_t len, SessionListener& l);
  SessionStatus on_eof(SessionListener& l);
  uint32_t capacity() const;
  uint32_t stream_limit() const;
  bool ids_exhausted() const { return nghttp2_session_get_next_stream_id(session) > INT32_MAX; }

  // The entry of a stream, or nullptr (not ours any more, or the session failed). An entry holds
  // one stream at a time, so an entry whose stream_id matches is the stream's: by_id answers
  // without nghttp2's map, which is asked only when a later stream took the by_id slot.
  Entry* find(int32_t stream_id) {
    if (dead) return nullptr;
    uintptr_t index = by_id[by_id_slot(stream_id)];
    if (index == 0 || index > entries.size() || entries[index - 1].stream_id != stream_id) {
      index = reinterpret_cast<uintptr_t>(nghttp2_session_get_stream_user_data(session, stream_id));
      if (index == 0 || index > entries.size()) return nullptr;
    }
    Entry& e = entries[index - 1];
    return e.active && !e.deferred && e.stream_id == stream_id ? &e : nullptr;
  }
  size_t by_id_slot(int32_t stream_id) const {
    return (static_cast<uint32_t>(stream_id) >> 1) & (by_id.size() - 1);
  }
  uint32_t index_of(const Entry& e) const { return static_cast<uint32_t>(&e - entries.data()); }
  void release(Entry& e) {
    e.active = false;
    e.deferred = false;
    --in_flight;
    free_entries.push_back(index_of(e));
  }
  // Unhooks a stream nghttp2 still knows, so that nothing of it reaches us any more.
  void detach(Entry& e) { nghttp2_session_set_stream_user_data(session, e.stream_id, nullptr); }
  // The response ended while nghttp2 still knows the stream: reset it if our side is still
  // sending (an early answer to an upload). No need to unhook it: once released, the entry no
  // longer matches the stream (find). A request without a body ended our side with its HEADERS,
  // before any response could come.
  void end_stream(Entry& e, uint32_t error_code) {
    if (!e.uploads) return;
    if (nghttp2_session_get_stream_local_close(session, e.stream_id) == 0) {
      nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, e.stream_id, error_code);
    }
  }
  void complete(Entry& e);
  // refused: the server did not process the request (REFUSED_STREAM, above a GOAWAY's last
  // stream id): reported with on_request_refused, so that the connection may send it again.
  void fail(Entry& e, const char* reason, bool refused = false);
  void deliver_deferred();
  void refuse_unsent_after_goaway();
  void fail_connection(ErrorClass error, const char* reason) {
    if (dead) return;
    dead = true;
    error_class = error;
    error_reason = reason;
  }

  static int on_begin_headers(nghttp2_session* s, const nghttp2_frame* frame, void* user);
  static int on_header(nghttp2_session* s, const nghttp2_frame* frame, const uint8_t* name,
                       size_t name_len, const uint8_t* value, size_t value_len, uint8_t flags,
                       void* user);
  static int on_frame_recv(nghttp2_session* s, const nghttp2_frame* frame, void* user);
  static int on_frame_send(nghttp2_session* s, const nghttp2_frame* frame, void* user);
  static int on_stream_close(nghttp2_session* s, int32_t stream_id, uint32_t error_code,
                             void* user);
  static int on_data_chunk(nghttp2_session* s, uint8_t flags, int32_t stream_id,
                           const uint8_t* data, size_t len, void* user);
  static ssize_t read_body(nghttp2_session* s, int32_t stream_id, uint8_t* buf, size_t length,
                           uint32_t* data_flags, nghttp2_data_source* source, void* user);

  // nghttp2's allocations go through this (nghttp2_mem): what one response frees, the next reuses.
  // Declared first, so that it outlives everything nghttp2 allocated.
  std::shared_ptr<BlockCache> blocks;
  const uint32_t max_streams;
  const uint32_t window_bytes;
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session* session = nullptr;
  SessionListener* listener = nullptr;  // set while feed() / on_eof() run
  bool in_nghttp2 = false;              // inside mem_recv / mem_send (no re-entry)
  std::vector<Entry> entries;
  // Entry index + 1 by stream (by_id_slot); a power of two at least twice max_streams, so that
  // the streams in flight rarely share a slot.
  std::vector<uint32_t> by_id;
  std::vector<uint32_t> free_entries;
  std::vector<uint32_t> deferred_entries;
  std::vector<nghttp2_nv> nv;
  std::string out;
  size_t out_offset = 0;
  int last_sent_type = -1;  // of the last frame mem_send produced in this fill_output()
  uint32_t in_flight = 0;
  bool settings_received = false;
  bool goaway = false;
  int32_t goaway_last_stream_id = 0;
  bool eof = false;
  bool capture = false;  // set_capture(): keep the final response's fields and body
  bool dead = false;  // a connection error (or EOF with requests in flight): kError, no more events
  ErrorClass error_class = ErrorClass::kRead;
  const char* error_reason = "";
};

}  // namespace hail
