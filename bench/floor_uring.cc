// The floor of an HTTP/1.1 load generator on io_uring, for bench/compare.py (tool "floor-uring"):
// each request is one linked chain of operations on a direct descriptor (a connection per
// request: close, socket, connect, send, recv; keep-alive: send, recv), submitted and reaped in
// batches; no parser, no timers. One thread, loopback IPv4, responses of the first one's length.
// Bench-only, built by compare.py: what hail could reach by moving a connection's life into the
// ring.
#include <arpa/inet.h>
#include <liburing.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "floor_common.h"

namespace {

constexpr size_t kBufBytes = 64 * 1024;
constexpr uint64_t kRecv = 0;  // the only operation that posts a completion when it succeeds

struct Slot {
  size_t got = 0;     // bytes of the current response received so far
  bool open = false;  // the direct descriptor holds a socket
  std::vector<char> buf;
};

struct Floor {
  io_uring ring{};
  floor_bench::Args args;
  size_t response_bytes = 0;  // learned from the first response
  std::vector<Slot> slots;
  long completed = 0;
};

[[noreturn]] void die(const char* what, int err) {
  floor_bench::die("floor_uring", what, err);
}

io_uring_sqe* next_sqe(Floor& f) {
  io_uring_sqe* s = io_uring_get_sqe(&f.ring);
  if (s == nullptr) {
    io_uring_submit(&f.ring);
    s = io_uring_get_sqe(&f.ring);
  }
  return s;
}

// A linked step that posts no completion unless it fails (its user_data names it then).
void linked(io_uring_sqe* s, uint64_t op, unsigned slot, bool fixed) {
  s->flags |= IOSQE_IO_LINK | IOSQE_CQE_SKIP_SUCCESS | (fixed ? IOSQE_FIXED_FILE : 0);
  s->user_data = op << 32 | slot;
}

void queue_recv(Floor& f, unsigned slot) {
  io_uring_sqe* s = next_sqe(f);
  io_uring_prep_recv(s, static_cast<int>(slot), f.slots[slot].buf.data(), kBufBytes, 0);
  s->flags |= IOSQE_FIXED_FILE;
  s->user_data = kRecv << 32 | slot;
}

void queue_request(Floor& f, unsigned slot) {
  Slot& sl = f.slots[slot];
  if (f.args.close_each || !sl.open) {
    io_uring_sqe* s = nullptr;
    if (sl.open) {
      s = next_sqe(f);
      io_uring_prep_close_direct(s, slot);
      linked(s, 1, slot, false);
    }
    s = next_sqe(f);
    io_uring_prep_socket_direct(s, AF_INET, SOCK_STREAM, 0, slot, 0);
    linked(s, 2, slot, false);
    s = next_sqe(f);
    io_uring_prep_connect(s, static_cast<int>(slot),
                          reinterpret_cast<const sockaddr*>(&f.args.addr), sizeof f.args.addr);
    linked(s, 3, slot, true);
    sl.open = true;
  }
  io_uring_sqe* s = next_sqe(f);
  io_uring_prep_send(s, static_cast<int>(slot), f.args.request.data(), f.args.request.size(),
                     MSG_NOSIGNAL);
  linked(s, 4, slot, true);
  sl.got = 0;
  queue_recv(f, slot);
}

const char* op_name(uint64_t op) {
  static const char* const kNames[] = {"recv", "close", "socket", "connect", "send"};
  return op < 5 ? kNames[op] : "?";
}

void on_received(Floor& f, unsigned slot, size_t n) {
  Slot& sl = f.slots[slot];
  if (sl.got == 0 && !floor_bench::starts_200(sl.buf.data(), n)) {
    die("a response that is not 200", 0);
  }
  if (f.response_bytes == 0 &&
      (f.response_bytes = floor_bench::response_length(sl.buf.data(), n)) == 0) {
    die("the first response's head did not come in one read", 0);
  }
  sl.got += n;
  if (sl.got > f.response_bytes)
    die("more bytes than one response (responses of different lengths?)", 0);
  if (sl.got < f.response_bytes) {
    queue_recv(f, slot);
    return;
  }
  ++f.completed;
  queue_request(f, slot);
}

}  // namespace

int main(int argc, char** argv) {
  Floor f;
  if (!floor_bench::parse_args(argc, argv, "floor_uring", f.args)) return 2;
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (int err = io_uring_queue_init_params(4096, &f.ring, &params); err < 0)
    die("io_uring_queue_init", -err);
  if (int err = io_uring_register_files_sparse(&f.ring, static_cast<unsigned>(f.args.conns));
      err < 0) {
    die("io_uring_register_files_sparse", -err);
  }
  f.slots.resize(static_cast<size_t>(f.args.conns));
  for (unsigned s = 0; s < f.slots.size(); ++s) {
    f.slots[s].buf.resize(kBufBytes);
    queue_request(f, s);
  }

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration<double>(f.args.seconds);
  while (Clock::now() < end) {
    __kernel_timespec wait{0, 100 * 1000 * 1000};
    io_uring_cqe* cqe = nullptr;
    const int err = io_uring_submit_and_wait_timeout(&f.ring, &cqe, 1, &wait, nullptr);
    if (err < 0 && err != -ETIME && err != -EINTR) die("io_uring_submit_and_wait_timeout", -err);
    unsigned head = 0;
    unsigned seen = 0;
    io_uring_for_each_cqe(&f.ring, head, cqe) {
      ++seen;
      const unsigned slot = static_cast<unsigned>(cqe->user_data & 0xffffffffu);
      const uint64_t op = cqe->user_data >> 32;
      if (cqe->res < 0) die(op_name(op), -cqe->res);
      if (op != kRecv) die(op_name(op), 0);  // can't happen: only failures of the others post
      if (cqe->res == 0) die("recv: the server closed before the whole response", 0);
      on_received(f, slot, static_cast<size_t>(cqe->res));
    }
    io_uring_cq_advance(&f.ring, seen);
  }
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("%ld requests in %.2fs\nRequests/sec: %.2f\n", f.completed, took, f.completed / took);
  return 0;
}
