// TestConnection: a non-blocking client socket (TCP or Unix) behind a Transport (plain or TLS),
// driven with poll() and timeouts, for the in-process `hail serve` tests; plus an HTTP/2 exchange
// over it with H2TestClient. Test code only; one thread.
#pragma once

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "h2_test_client.h"
#include "net/transport.h"
#include "server_test_util.h"

namespace hail::test {

// A connected non-blocking socket to 127.0.0.1:port, or -1.
inline int connect_tcp(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

inline int connect_unix(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

class TestConnection {
 public:
  // Takes the socket; `transport` (not owned) is attached to it, a TcpTransport when null.
  TestConnection(int fd, Transport* transport = nullptr)
      : fd_(fd), transport_(transport != nullptr ? transport : &tcp_) {
    transport_->attach(fd_);
  }
  ~TestConnection() {
    transport_->detach();
    if (fd_ >= 0) close(fd_);
  }
  TestConnection(const TestConnection&) = delete;
  TestConnection& operator=(const TestConnection&) = delete;

  bool ok() const { return fd_ >= 0; }
  Transport& transport() { return *transport_; }

  bool handshake(int timeout_ms = 5000) {
    const auto deadline = clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      const IoResult r = transport_->handshake();
      if (r.status == IoStatus::kOk) return true;
      if (r.status != IoStatus::kWouldBlock || !wait(deadline)) return false;
    }
  }
  bool send_all(std::string_view bytes, int timeout_ms = 5000) {
    const auto deadline = clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!bytes.empty()) {
      const IoResult r = transport_->write(bytes.data(), bytes.size());
      if (r.status == IoStatus::kOk) {
        bytes.remove_prefix(r.bytes);
        continue;
      }
      if (r.status != IoStatus::kWouldBlock || !wait(deadline, true)) return false;
    }
    return true;
  }
  // Appends what arrives within the timeout (returning as soon as anything did). kOk: bytes
  // arrived; kWouldBlock: timeout; kEof / kError: the connection ended.
  IoStatus read_some(std::string* out, int timeout_ms = 5000) {
    const auto deadline = clock::now() + std::chrono::milliseconds(timeout_ms);
    char buf[65536];
    for (;;) {
      const IoResult r = transport_->read(buf, sizeof buf);
      if (r.status == IoStatus::kOk) {
        out->append(buf, r.bytes);
        received_ += r.bytes;
        return IoStatus::kOk;
      }
      if (r.status != IoStatus::kWouldBlock) return r.status;
      if (!wait(deadline)) return IoStatus::kWouldBlock;
    }
  }
  // Reads until `count` HTTP/1 responses are complete (or EOF / timeout).
  std::vector<Response> responses(size_t count, int timeout_ms = 5000) {
    std::string buffer;
    for (;;) {
      std::vector<Response> got = parse_responses(buffer);
      if (got.size() >= count) return got;
      if (read_some(&buffer, timeout_ms) != IoStatus::kOk) return got;
    }
  }
  Response request(std::string_view bytes) {
    if (!send_all(bytes)) return Response{};
    auto got = responses(1);
    return got.empty() ? Response{} : got.front();
  }
  // HTTP/2: exchanges frames until `done()` or the timeout.
  bool h2_until(H2TestClient& client, const std::function<bool()>& done, int timeout_ms = 5000) {
    const auto deadline = clock::now() + std::chrono::milliseconds(timeout_ms);
    while (clock::now() < deadline) {
      if (!send_all(client.take_output())) return false;
      if (done()) return true;
      std::string in;
      const IoStatus status = read_some(&in, 100);
      if (!client.receive(in)) return false;
      if (status == IoStatus::kEof || status == IoStatus::kError) return done();
    }
    return false;
  }
  // True if the peer closed the connection (EOF or reset) within the timeout.
  bool wait_closed(int timeout_ms = 5000) {
    std::string ignored;
    for (;;) {
      const IoStatus status = read_some(&ignored, timeout_ms);
      if (status == IoStatus::kOk) continue;
      return status == IoStatus::kEof || status == IoStatus::kError;
    }
  }
  uint64_t received() const { return received_; }

 private:
  using clock = std::chrono::steady_clock;
  bool wait(clock::time_point deadline, bool writing = false) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, static_cast<short>((writing || transport_->want_write()) ? POLLOUT : POLLIN), 0};
    if (writing && !transport_->want_write() && transport_->is_tls()) p.events = POLLOUT | POLLIN;
    return poll(&p, 1, static_cast<int>(left.count())) > 0;
  }

  int fd_;
  TcpTransport tcp_;
  Transport* transport_;
  uint64_t received_ = 0;
};

}  // namespace hail::test
