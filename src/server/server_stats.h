// Counters of `hail serve`: ServerStats is the summed snapshot (/stats, Server::stats());
// ServerCounters holds one reactor's totals. Owner: server. A ServerCounters is written only by its
// reactor's thread and read by any thread (relaxed atomics: totals, not synchronisation).
#pragma once

#include <atomic>
#include <cstdint>

namespace hail {

struct ServerStats {
  uint64_t requests = 0;     // responses started, any status; /stats requests excluded
  uint64_t connections = 0;  // connections accepted and served
  uint64_t bytes_sent = 0;   // bytes written to sockets; /stats responses excluded
  uint64_t rejected_connections =
      0;  // accepted beyond --max-connections (or out of fds), closed at once
};

struct ServerCounters {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> connections{0};
  std::atomic<uint64_t> bytes_sent{0};
  std::atomic<uint64_t> rejected_connections{0};
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
}

}  // namespace hail
