#include "cli/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "core/ascii.h"

namespace hail {

namespace {

constexpr size_t kMaxRequestBytes = 16 * 1024;
constexpr int kReadTimeoutMs = 2000;

Error bad_listen(std::string_view text, const char* why) {
  return make_error("invalid value for --metrics-listen: \"" + std::string(text) + "\" (" + why +
                    ")");
}

// A socket address for host:port; false when host is not a numeric address.
bool make_address(const std::string& host, uint16_t port, sockaddr_storage& addr, socklen_t& len) {
  std::memset(&addr, 0, sizeof(addr));
  auto* v4 = reinterpret_cast<sockaddr_in*>(&addr);
  if (inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    len = sizeof(sockaddr_in);
    return true;
  }
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&addr);
  if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    len = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

std::string url_for(const sockaddr_storage& addr) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    return "http://[" + std::string(text) + "]:" + std::to_string(ntohs(v6->sin6_port)) +
           "/metrics";
  }
  const auto* v4 = reinterpret_cast<const sockaddr_in*>(&addr);
  inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text));
  return "http://" + std::string(text) + ":" + std::to_string(ntohs(v4->sin_port)) + "/metrics";
}

void send_all(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

std::string response(const char* status, const char* content_type, const std::string& body,
                     bool head) {
  std::string r = std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + content_type +
                  "\r\nContent-Length: " + std::to_string(body.size()) +
                  "\r\nConnection: close\r\n\r\n";
  if (!head) r += body;
  return r;
}

// The value of header `name` in the request head, or empty.
std::string_view header_value(std::string_view head, std::string_view name) {
  size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos && pos + 2 < head.size()) {
    const size_t start = pos + 2;
    const size_t end = head.find("\r\n", start);
    std::string_view line = head.substr(start, end == std::string_view::npos ? end : end - start);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos && ascii::iequals(line.substr(0, colon), name)) {
      return ascii::trim_ows(line.substr(colon + 1));
    }
    pos = end;
  }
  return {};
}

}  // namespace

Result<MetricsListen> parse_metrics_listen(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad_listen(text, "expected ADDR:PORT");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port > 65535) {
    return bad_listen(text, "the port must be a number 0..65535");
  }
  MetricsListen listen;
  listen.host = host == "localhost" ? "127.0.0.1" : std::string(host);
  listen.port = static_cast<uint16_t>(port);
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (!make_address(listen.host, listen.port, addr, len)) {
    return bad_listen(text, "ADDR must be an IPv4 or IPv6 address, e.g. 127.0.0.1:9464");
  }
  return listen;
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(const MetricsListen& listen,
                                                            MetricsSnapshot first) {
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (!make_address(listen.host, listen.port, addr, len)) {
    return make_error("--metrics-listen: not an address: " + listen.host);
  }
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  server->snapshot_ = std::move(first);
  const std::string where = listen.host + ":" + std::to_string(listen.port);
  server->listen_fd_ = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (server->listen_fd_ < 0) {
    return make_error("--metrics-listen " + where + ": socket: " + std::strerror(errno));
  }
  const int one = 1;
  setsockopt(server->listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(server->listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(server->listen_fd_, 16) != 0) {
    return make_error("--metrics-listen " + where + ": cannot listen: " + std::strerror(errno));
  }
  socklen_t bound_len = sizeof(addr);
  getsockname(server->listen_fd_, reinterpret_cast<sockaddr*>(&addr), &bound_len);
  server->url_ = url_for(addr);
  server->stop_fd_ = eventfd(0, EFD_CLOEXEC);
  if (server->stop_fd_ < 0) {
    return make_error(std::string("--metrics-listen: eventfd: ") + std::strerror(errno));
  }
  server->thread_ = std::thread([s = server.get()] { s->serve(); });
  return server;
}

MetricsServer::~MetricsServer() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(stop_fd_, &one, sizeof(one));
    thread_.join();
  }
  if (listen_fd_ >= 0) close(listen_fd_);
  if (stop_fd_ >= 0) close(stop_fd_);
}

void MetricsServer::publish(MetricsSnapshot snapshot) {
  std::lock_guard<std::mutex> lock(mutex_);
  snapshot_ = std::move(snapshot);
}

void MetricsServer::serve() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    answer(fd);
    close(fd);
  }
}

// One request per connection (Connection: close), read within kReadTimeoutMs.
void MetricsServer::answer(int fd) {
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < kMaxRequestBytes) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, kReadTimeoutMs) <= 0) return;
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    head.append(buf, static_cast<size_t>(n));
  }
  const size_t line_end = head.find("\r\n");
  const std::string_view line = std::string_view(head).substr(0, line_end);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) {
    send_all(fd, response("400 Bad Request", "text/plain", "bad request\n", false));
    return;
  }
  const std::string_view method = line.substr(0, sp1);
  std::string_view path = line.substr(sp1 + 1, sp2 - sp1 - 1);
  path = path.substr(0, path.find('?'));
  const bool head_only = method == "HEAD";
  if (method != "GET" && !head_only) {
    send_all(fd, response("405 Method Not Allowed", "text/plain", "use GET\n", false));
    return;
  }
  if (path != "/metrics") {
    send_all(fd, response("404 Not Found", "text/plain", "not found: try /metrics\n", head_only));
    return;
  }
  const MetricsFormat format = metrics_format_for_accept(header_value(head, "Accept"));
  MetricsSnapshot snapshot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot = snapshot_;
  }
  send_all(fd, response("200 OK", metrics_content_type(format), render_metrics(snapshot, format),
                        head_only));
}

}  // namespace hail
