// UringTransport: a plain stream socket (TCP or Unix) whose bytes the io_uring loop carries
// (net/uring_io.h). Received chunks wait in the loop's provided buffers until read() copies them
// out; write() copies the bytes into the transport's own buffer and queues one send, submitted
// with the loop's next wait, so no call here enters the kernel. Owned by one connection; used only
// by its loop's thread.
#pragma once

#include <cstdint>
#include <memory>

#include "net/transport.h"
#include "net/uring_io.h"

namespace hail {

class UringTransport final : public Transport, private UringStream {
 public:
  // can_discard: a TCP socket (not Unix) on a ring whose receives run only when its thread
  // enters it (UringIo::receives_deferred), so that discarding from the socket cannot overtake
  // bytes the ring is about to deliver.
  UringTransport(UringIo* io, bool can_discard)
      : io_(io), can_discard_(can_discard && io->receives_deferred()) {}
  ~UringTransport() override;
  UringTransport(const UringTransport&) = delete;
  UringTransport& operator=(const UringTransport&) = delete;

  void attach(int fd) override;
  void detach() override;
  IoResult handshake() override { return IoResult{}; }
  IoResult read(char* buf, size_t len) override;
  IoResult write(const char* data, size_t len) override;
  size_t buffered() const override { return buffered_bytes_; }
  void shutdown_write() override;
  bool can_discard() const override { return can_discard_; }
  bool sending() const { return send_armed_; }  // a send is in the kernel's hands
  // Large bodies nobody reads: what the ring already holds is skipped, then the socket's bytes
  // are dropped in the kernel (recv with MSG_TRUNC) as TcpTransport does, never copied.
  IoResult discard(size_t len) override;

 private:
  // Bodies larger than this (still to come) are dropped from the socket, not received by the ring.
  static constexpr size_t kRingBodyBytes = 8 * 1024;
  // Bytes held (in flight and queued) before write() says would-block: a request body larger
  // than this is written as the socket takes it, as with epoll.
  static constexpr size_t kMaxQueuedBytes = 256 * 1024;
  // Received bytes not yet read: [offset, offset + len) of provided buffer bid (8 bytes: a
  // buffer is at most 2 KiB).
  struct Chunk {
    uint16_t bid;
    uint16_t offset;
    uint16_t len;
  };
  // A byte buffer that keeps its capacity (16 bytes, where a std::string takes 32: there is one
  // transport per connection).
  struct Bytes {
    std::unique_ptr<char[]> data;
    uint32_t capacity = 0;
    uint32_t size = 0;
    void assign(const char* from, size_t len);
    void append(const char* from, size_t len);
  };
  static constexpr uint16_t kInlineChunks = 2;  // a small response is one chunk, rarely two

  void on_received(uint16_t bid, const char* data, size_t len) override;
  void on_recv_end(int err) override;
  bool on_sent(int res) override;
  void start_send();
  void drop_chunks();
  // Up to len of the oldest received bytes, copied to out (null: skipped); their buffers go back.
  size_t take_chunks(char* out, size_t len);

  UringIo* io_;
  // Chunks received and not yet read, oldest first: a ring in inline_chunks_ or, once more have
  // been held at once, on the heap (kept: the steady state allocates nothing).
  Chunk* chunks() { return heap_chunks_ ? heap_chunks_.get() : inline_chunks_; }
  Chunk inline_chunks_[kInlineChunks];
  std::unique_ptr<Chunk[]> heap_chunks_;
  // sending_ is in the kernel's hands from send until on_sent; queued_ collects writes meanwhile.
  Bytes sending_;
  Bytes queued_;
  int fd_ = -1;
  uint32_t buffered_bytes_ = 0;
  uint32_t sending_offset_ = 0;
  uint16_t chunk_capacity_ = kInlineChunks;  // a power of two
  uint16_t chunk_head_ = 0;
  uint16_t chunk_count_ = 0;
  int16_t recv_end_ = -1;   // -1: open; 0: the peer's FIN; > 0: the errno that ended it
  int16_t send_error_ = 0;  // an errno value
  bool can_discard_ : 1;
  bool send_armed_ : 1 = false;
  bool shutdown_after_send_ : 1 = false;
  bool want_writable_ : 1 = false;  // a write was refused: EPOLLOUT when the queue moves
  bool by_ring_ : 1 = true;         // false while bodies are dropped with recv(MSG_TRUNC)
  bool discarded_ : 1 = false;      // a body was dropped since the socket was last found drained
};

}  // namespace hail
