// Counters of `hail serve`: ServerStats is the summed snapshot (/stats, Server::stats());
// ServerCounters holds one reactor's totals. Owner: server. A ServerCounters is written only by its
// reactor's thread and read by any thread (relaxed atomics: totals, not synchronisation).
#pragma once

#include <atomic>
#include <cstdint>

namespace hail {

struct ServerStats {
  uint64_t requests = 0;     // responses started, any status, HTTP/1 and HTTP/2; /stats excluded
  uint64_t connections = 0;  // connections accepted and served
  uint64_t bytes_sent = 0;   // bytes written to sockets (TLS: before encryption); /stats excluded
  uint64_t rejected_connections =
      0;                        // accepted beyond --max-connections (or out of fds), closed at once
  uint64_t tls_handshakes = 0;  // TLS handshakes completed (full and resumed), from the contexts
  uint64_t tls_resumed = 0;     // ... of which resumed a session
  uint64_t h2_connections = 0;  // connections that spoke HTTP/2 (ALPN h2 or h2c prior knowledge)
  uint64_t h2_streams = 0;      // HTTP/2 request streams received; /stats excluded
};

struct ServerCounters {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> connections{0};
  std::atomic<uint64_t> bytes_sent{0};
  std::atomic<uint64_t> rejected_connections{0};
  std::atomic<uint64_t> tls_handshakes{0};
  std::atomic<uint64_t> tls_resumed{0};
  std::atomic<uint64_t> h2_connections{0};
  std::atomic<uint64_t> h2_streams{0};
};

// Single-writer increment: a relaxed load and store instead of fetch_add, so the owning reactor
// pays no locked instruction per request; readers on other threads still see whole values.
inline void bump(std::atomic<uint64_t>& counter, uint64_t n = 1) {
  counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

inline void add_to(ServerStats* sum, const ServerCounters& counters) {
  sum->requests += counters.requests.load(std::memory_order_relaxed);
  sum->connections += counters.connections.load(std::memory_order_relaxed);
  sum->bytes_sent += counters.bytes_sent.load(std::memory_order_relaxed);
  sum->rejected_connections += counters.rejected_connections.load(std::memory_order_relaxed);
  sum->tls_handshakes += counters.tls_handshakes.load(std::memory_order_relaxed);
  sum->tls_resumed += counters.tls_resumed.load(std::memory_order_relaxed);
  sum->h2_connections += counters.h2_connections.load(std::memory_order_relaxed);
  sum->h2_streams += counters.h2_streams.load(std::memory_order_relaxed);
}

}  // namespace hail
