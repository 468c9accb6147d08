// Helpers for the `hail serve` tests: drain a session's output as a peer would receive it, split a
// byte stream into responses, and a blocking loopback client. Test code only.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "server/output_queue.h"

namespace hail::test {

// Everything the queue would send by `now_ns` (delays not yet due stop it), honouring file segments
// by reading them. `max_send` models short writes: each gathered batch is consumed at most that
// much.
inline std::string drain_output(OutputQueue& out, uint64_t now_ns = UINT64_MAX,
                                bool* closed = nullptr, uint64_t max_send = UINT64_MAX) {
  std::string sent;
  iovec iov[16];
  for (;;) {
    const OutputQueue::Batch batch = out.gather(iov, 16, 1 << 20, now_ns);
    if (batch.iov_count > 0) {
      uint64_t budget = std::min(batch.bytes, max_send);
      const uint64_t take = budget;
      for (size_t i = 0; i < batch.iov_count && budget > 0; ++i) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(iov[i].iov_len, budget));
        sent.append(static_cast<const char*>(iov[i].iov_base), n);
        budget -= n;
      }
      out.consume(take);
      continue;
    }
    if (batch.stop == OutputQueue::Stop::kFile) {
      const OutputQueue::FileChunk file = out.front_file();
      const uint64_t take = std::min(file.length, max_send);
      std::string chunk(take, '\0');
      const ssize_t n = pread(file.fd, chunk.data(), take, static_cast<off_t>(file.offset));
      if (n <= 0) break;
      sent.append(chunk.data(), static_cast<size_t>(n));
      out.consume(static_cast<uint64_t>(n));
      continue;
    }
    if (batch.stop == OutputQueue::Stop::kClose && closed != nullptr) *closed = true;
    break;
  }
  return sent;
}

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  bool has(const std::string& name) const { return headers.count(name) != 0; }
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// Parses one response from the front of `bytes` (our server's framing: Content-Length or no body).
// Returns the bytes it used, 0 if incomplete. `no_body`: the answer to a HEAD request.
inline size_t parse_response(std::string_view bytes, Response* out, bool no_body = false) {
  const size_t end = bytes.find("\r\n\r\n");
  if (end == std::string_view::npos) return 0;
  *out = Response{};
  std::string_view head = bytes.substr(0, end);
  size_t line_end = head.find("\r\n");
  std::string_view status_line = head.substr(0, line_end);
  if (status_line.size() < 12) return 0;
  out->status = std::stoi(std::string(status_line.substr(9, 3)));
  while (line_end != std::string_view::npos) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    std::string_view line = head.substr(
        start, line_end == std::string_view::npos ? std::string_view::npos : line_end - start);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name(line.substr(0, colon));
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    out->headers[name] = std::string(value);
  }
  size_t used = end + 4;
  if (!no_body && out->has("content-length")) {
    const size_t length = std::stoull(out->header("content-length"));
    if (bytes.size() < used + length) return 0;
    out->body = std::string(bytes.substr(used, length));
    used += length;
  }
  return used;
}

inline std::vector<Response> parse_responses(std::string_view bytes,
                                             std::vector<bool> no_body = {}) {
  std::vector<Response> out;
  while (!bytes.empty()) {
    Response r;
    const bool skip_body = out.size() < no_body.size() && no_body[out.size()];
    const size_t used = parse_response(bytes, &r, skip_body);
    if (used == 0) break;
    out.push_back(r);
    bytes.remove_prefix(used);
  }
  return out;
}

// A blocking loopback client socket with a receive timeout.
class Client {
 public:
  explicit Client(uint16_t port, int timeout_ms = 5000) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Client() {
    if (fd_ >= 0) close(fd_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connected() const { return connected_; }
  int fd() const { return fd_; }

  bool send_all(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // Reads until `count` complete responses are buffered, EOF or timeout; returns them.
  std::vector<Response> read_responses(size_t count, std::vector<bool> no_body = {}) {
    for (;;) {
      std::vector<Response> got = parse_responses(buffer_, no_body);
      if (got.size() >= count) {
        size_t used = 0;
        std::string_view rest = buffer_;
        for (size_t i = 0; i < count; ++i) {
          Response r;
          used += parse_response(rest.substr(used), &r, i < no_body.size() && no_body[i]);
        }
        buffer_.erase(0, used);
        got.resize(count);
        return got;
      }
      if (!read_more()) return got;
    }
  }
  Response read_response(bool no_body = false) {
    auto got = read_responses(1, {no_body});
    return got.empty() ? Response{} : got.front();
  }
  // True if the server closed the connection (EOF or reset) within the receive timeout, after any
  // bytes still in flight (collected in leftover()).
  bool wait_closed() {
    for (;;) {
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n > 0) {
        buffer_.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n == 0) return true;
      return errno == ECONNRESET;
    }
  }
  std::string& leftover() { return buffer_; }

 private:
  bool read_more() {
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    buffer_.append(buf, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  bool connected_ = false;
  std::string buffer_;
};

// The /bytes/N body the server promises.
inline std::string expected_pattern(uint64_t offset, uint64_t n) {
  std::string out;
  out.reserve(n);
  for (uint64_t i = 0; i < n; ++i) out.push_back(kBodyPattern[(offset + i) % kBodyPatternPeriod]);
  return out;
}

}  // namespace hail::test
