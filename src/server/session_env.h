// SessionEnv and the per-connection limits of `hail serve` that the HTTP/1 session
// (server/session.h) and the HTTP/2 session (server/h2_session.h) share.
// Owner: server. A SessionEnv belongs to one reactor and outlives its sessions; constants: any
// thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "server/server_stats.h"

namespace hail {

class StaticRoot;

inline constexpr size_t kMaxRequestLineBytes = 8 * 1024;  // longer: 414 and close
inline constexpr size_t kMaxHeaderBytes = 16 * 1024;      // header fields after it; longer: 431
inline constexpr uint64_t kMaxEchoBodyBytes = 8 << 20;    // /echo bodies; longer: 413 and close
// Files up to this size are read into the output buffer (one sendmsg with the head, and the fd is
// closed at once); larger ones go out with sendfile.
inline constexpr uint64_t kInlineFileMaxBytes = 64 * 1024;
// Parsing pauses while this much output waits (the peer is not reading): a pipelining client cannot
// make us hold more than about this per connection, apart from one /echo body.
inline constexpr size_t kMaxQueuedSegments = 256;
inline constexpr size_t kMaxBufferedOutputBytes = 256 * 1024;

// What sessions share with their reactor; it outlives them.
struct SessionEnv {
  const StaticRoot* root = nullptr;  // null: no --root, every static path is a 404
  const std::string* date_line =
      nullptr;                         // "Date: ...\r\n" kept current by the reactor; null: none
  ServerCounters* counters = nullptr;  // requests are counted here when a response is queued
  ServerStats (*stats)(const void* ctx) = nullptr;  // the server-wide totals for /stats
  const void* stats_ctx = nullptr;
};

}  // namespace hail
