// MetricsServer: --metrics-listen's HTTP listener. GET /metrics answers with the last published
// MetricsSnapshot (Prometheus text, or OpenMetrics when the Accept header asks for it); other
// paths 404. Owner: run_command. publish() from the supervising thread; the accept loop runs on its
// own thread and shares only the snapshot, under a mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "core/result.h"
#include "report/openmetrics.h"

namespace hail {

// --metrics-listen ADDR:PORT: an IPv4 or IPv6 literal ([::1]:9100) or localhost, a port 0..65535
// (0: any free port).
struct MetricsListen {
  std::string host;  // numeric, without brackets
  uint16_t port = 0;
};

// Errors name the flag and the value (a usage error).
Result<MetricsListen> parse_metrics_listen(std::string_view text);

class MetricsServer {
 public:
  // Binds and starts the accept thread; errors: the address cannot be bound.
  static Result<std::unique_ptr<MetricsServer>> start(const MetricsListen& listen,
                                                      MetricsSnapshot first);
  ~MetricsServer();  // stops the thread, closes the socket
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // "http://127.0.0.1:PORT/metrics", with the port actually bound.
  const std::string& url() const { return url_; }
  void publish(MetricsSnapshot snapshot);

 private:
  MetricsServer() = default;
  void serve();
  void answer(int fd);

  int listen_fd_ = -1;
  int stop_fd_ = -1;  // eventfd: written once to end serve()
  std::string url_;
  std::mutex mutex_;
  MetricsSnapshot snapshot_;  // under mutex_
  std::thread thread_;
};

}  // namespace hail
