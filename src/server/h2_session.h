// H2ServerSession: one HTTP/2 connection (RFC 9113) as a pure state machine on nghttp2's server
// session: bytes in (mem_recv), frames out into an OutputQueue (mem_send), endpoints from
// server/reply.h; no socket, no clock (now_ns passed in; /delay streams wait for advance()).
// Owner: server. Single-threaded (its connection's reactor).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/output_queue.h"
#include "server/session_env.h"

struct nghttp2_session;

namespace hail {

// The client connection preface (RFC 9113 section 3.4) that opens an h2c prior-knowledge
// connection.
inline constexpr std::string_view kH2ClientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

enum class PrefaceMatch : uint8_t {
  kNeedMore,  // every byte so far matches the preface, but it is not complete yet
  kH2,        // the preface is complete: HTTP/2 with prior knowledge
  kNotH2,     // the bytes diverge: HTTP/1
};
// Classifies the first bytes of a cleartext connection.
PrefaceMatch match_h2_preface(std::string_view first_bytes);

// Memory a connection's /echo bodies may hold at once over all its streams; a stream crossing it
// gets a 413 like one crossing kMaxEchoBodyBytes.
inline constexpr uint64_t kMaxH2EchoBytesPerConnection = 16 << 20;
// A header block this large (HPACK-decoded, RFC 9113 sizes) resets its stream without an answer;
// below it, over kMaxRequestLineBytes + kMaxHeaderBytes, the answer is a 431.
inline constexpr uint64_t kMaxH2HeaderBlockBytes = 64 * 1024;

struct H2Options {
  uint32_t max_concurrent_streams = 100;  // SETTINGS_MAX_CONCURRENT_STREAMS
  // After this many request streams the server sends GOAWAY (last stream id: the Nth) and the
  // connection closes once they are answered; 0: no limit.
  uint64_t max_requests = 0;
};

class H2ServerSession {
 public:
  // Queues the server connection preface (SETTINGS). The client's preface is expected first in
  // the input.
  H2ServerSession(const SessionEnv* env, const H2Options& options);
  ~H2ServerSession();
  H2ServerSession(const H2ServerSession&) = delete;
  H2ServerSession& operator=(const H2ServerSession&) = delete;

  // Processes frames from `data` and queues what they cause. Consumes everything (flow control
  // bounds what a peer may send); the caller only feeds while wants_input().
  size_t feed(const char* data, size_t len, uint64_t now_ns);
  // False while the output is over its limit or the connection is closing.
  bool wants_input() const;
  // Answers the /delay streams due by now_ns, then produce().
  void advance(uint64_t now_ns);
  // Moves frames nghttp2 has ready (headers, data within the flow-control windows) into output()
  // until it holds kMaxBufferedOutputBytes. When the connection is over (GOAWAY and nothing left,
  // or a connection error) the output ends with a close marker.
  void produce();
  // The earliest time a parked /delay stream becomes due; UINT64_MAX: none.
  uint64_t wake_at_ns() const;

  OutputQueue& output() { return output_; }
  uint64_t streams_started() const { return streams_started_; }
  size_t open_streams() const { return streams_.size(); }

 private:
  struct Stream;
  struct Callbacks;
  friend struct Callbacks;

  Stream* find(int32_t stream_id);
  void respond(Stream* stream);
  void submit(Stream* stream);
  void fail();  // a fatal session error: GOAWAY if possible, then close

  const SessionEnv* env_;
  H2Options options_;
  nghttp2_session* session_ = nullptr;
  OutputQueue output_;
  uint64_t now_ns_ = 0;
  std::unordered_map<int32_t, std::unique_ptr<Stream>> streams_;
  std::vector<int32_t> parked_;  // /delay streams whose answer is not due yet
  uint64_t streams_started_ = 0;
  int32_t goaway_last_id_ = 0;   // 0: no GOAWAY sent for --h2-max-requests
  uint64_t echo_bytes_ = 0;      // /echo bodies held, over all streams
  uint64_t uncounted_debt_ = 0;  // bytes of /stats frames serialised but not yet taken out
  std::string date_value_;       // scratch for the date header
};

}  // namespace hail
