// The floor of an HTTP/1.1 load generator on the sockets API, for bench/compare.py (tool "floor"):
// only the system calls a request needs (keep-alive: send, recv, a share of epoll_wait; a new
// connection per request: socket, connect, send, epoll_ctl, recv, close), no parser, no timers.
// One thread, loopback IPv4 only; responses must all have the length of the first (a static file).
// Bench-only, built by compare.py: what no real client can undercut, to put hail's cost in scale.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "floor_common.h"

namespace {

struct Conn {
  int fd = -1;
  size_t got = 0;     // bytes of the current response received so far
  bool sent = false;  // the request is out (a new connection may still be connecting)
};

struct Floor {
  floor_bench::Args args;
  int epoll_fd = -1;
  size_t response_bytes = 0;  // learned from the first response
  std::vector<Conn> conns;    // indexed by slot
  long completed = 0;
};

// A failed call names errno; the client's own findings pass 0.
[[noreturn]] void die(const char* what, int err = errno) {
  floor_bench::die("floor_client", what, err);
}

void watch(Floor& f, size_t slot, int op, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = slot;
  if (epoll_ctl(f.epoll_fd, op, f.conns[slot].fd, &ev) != 0) die("epoll_ctl");
}

void send_request(Floor& f, size_t slot) {
  Conn& c = f.conns[slot];
  const ssize_t n = send(c.fd, f.args.request.data(), f.args.request.size(), MSG_NOSIGNAL);
  if (n == static_cast<ssize_t>(f.args.request.size())) {
    c.sent = true;
    return;
  }
  if (n < 0 && (errno == EAGAIN || errno == ENOTCONN))
    return;  // still connecting: wait for EPOLLOUT
  die("send (short or failed)");
}

void open_conn(Floor& f, size_t slot) {
  Conn& c = f.conns[slot];
  c = Conn{};
  c.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c.fd < 0) die("socket");
  if (connect(c.fd, reinterpret_cast<const sockaddr*>(&f.args.addr), sizeof f.args.addr) != 0 &&
      errno != EINPROGRESS) {
    die("connect");
  }
  send_request(f, slot);  // on loopback the handshake is done when connect returns
  watch(f, slot, EPOLL_CTL_ADD, c.sent ? EPOLLIN : EPOLLIN | EPOLLOUT);
}

void on_readable(Floor& f, size_t slot, char* buf, size_t cap) {
  Conn& c = f.conns[slot];
  const ssize_t n = recv(c.fd, buf, cap, 0);
  if (n < 0) {
    if (errno == EAGAIN) return;
    die("recv");
  }
  if (n == 0) {
    die("recv: the server closed before the whole response", 0);
  }
  size_t left = static_cast<size_t>(n);
  const char* p = buf;
  while (left > 0) {
    if (c.got == 0 && !floor_bench::starts_200(p, left)) {
      die("a response that is not 200", 0);
    }
    if (f.response_bytes == 0 && (f.response_bytes = floor_bench::response_length(p, left)) == 0) {
      die("the first response's head did not come in one read", 0);
    }
    const size_t take = std::min(left, f.response_bytes - c.got);
    c.got += take;
    p += take;
    left -= take;
    if (c.got < f.response_bytes) return;
    ++f.completed;
    c.got = 0;
    if (f.args.close_each) {
      close(c.fd);  // also leaves the epoll set
      open_conn(f, slot);
      return;
    }
    send_request(f, slot);
    if (!c.sent) die("send on an established connection");
  }
}

}  // namespace

int main(int argc, char** argv) {
  Floor f;
  if (!floor_bench::parse_args(argc, argv, "floor_client", f.args)) return 2;
  f.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (f.epoll_fd < 0) die("epoll_create1");
  f.conns.resize(static_cast<size_t>(f.args.conns));
  for (size_t s = 0; s < f.conns.size(); ++s) open_conn(f, s);

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration<double>(f.args.seconds);
  std::vector<epoll_event> events(256);
  std::vector<char> buf(64 * 1024);
  while (Clock::now() < end) {
    const int n = epoll_wait(f.epoll_fd, events.data(), static_cast<int>(events.size()), 100);
    if (n < 0 && errno != EINTR) die("epoll_wait");
    for (int i = 0; i < n; ++i) {
      const size_t slot = events[i].data.u64;
      Conn& c = f.conns[slot];
      if (!c.sent && (events[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        send_request(f, slot);
        if (!c.sent) die("connect");
        watch(f, slot, EPOLL_CTL_MOD, EPOLLIN);
        continue;
      }
      if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
        on_readable(f, slot, buf.data(), buf.size());
    }
  }
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("%ld requests in %.2fs\nRequests/sec: %.2f\n", f.completed, took, f.completed / took);
  return 0;
}
