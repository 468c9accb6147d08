// LingeringClose: closes sockets that still have the peer's data coming, without losing what was
// just sent. close() on a socket with unread data makes the kernel answer with RST, and a RST
// arriving first makes the peer's kernel drop whatever it had not read yet: the HTTP/2 GOAWAY that
// names a connection error would vanish. So the write side is shut (FIN after the last frame) and
// the fd is read and discarded until the peer closes, a byte or time bound passes, or the owner
// goes (RFC 9113 §5.4.1; nginx's lingering_close does the same). Owned by one event loop's thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "net/event_loop.h"

namespace hail {

class LingeringClose {
 public:
  static constexpr uint64_t kLingerNs = 1'000'000'000;    // per socket, from adopt()
  static constexpr uint64_t kMaxDiscardBytes = 8u << 20;  // a server streaming on forever
  static constexpr size_t kMaxSockets = 64;               // beyond that: close at once

  explicit LingeringClose(EventLoop* loop, uint64_t linger_ns = kLingerNs)
      : loop_(loop), linger_ns_(linger_ns) {}
  ~LingeringClose();  // closes whatever still lingers
  LingeringClose(const LingeringClose&) = delete;
  LingeringClose& operator=(const LingeringClose&) = delete;

  // Takes ownership of `fd` (a connected stream socket whose last bytes were written): it will be
  // closed by this object, at once when it cannot linger.
  void adopt(int fd, uint64_t now_ns);
  size_t lingering() const { return live_; }

 private:
  struct Socket final : IoHandler {
    LingeringClose* owner = nullptr;
    int fd = -1;
    uint64_t discarded_bytes = 0;
    Timer deadline;
    void on_io(uint32_t events) override;
  };
  static void on_deadline(Timer* timer, void* ctx);
  void close_socket(Socket& s);

  EventLoop* loop_;
  uint64_t linger_ns_;
  std::vector<std::unique_ptr<Socket>> sockets_;  // reused: a slot is free while its fd is -1
  size_t live_ = 0;
};

}  // namespace hail
