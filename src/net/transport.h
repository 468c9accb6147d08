// Transport: moves the bytes of one connected socket, plain TCP / Unix (TcpTransport) or TLS over
// it (TlsTransport, net/tls.h). Bytes only: no HTTP here. A TLS handshake hides behind
// kWouldBlock, and its outcome (ALPN, version, cipher, resumption) is readable once it is done.
// Owned by one connection; used only by that connection's thread.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace hail {

enum class IoStatus : uint8_t {
  kOk,          // `bytes` were moved (> 0), or the handshake is complete
  kWouldBlock,  // nothing now: wait for the socket (want_write() says which direction)
  kEof,         // the peer closed cleanly (TLS: close_notify, or a TCP FIN OpenSSL tolerates)
  kError,       // the connection is unusable: `reason` says why
};

struct IoResult {
  IoStatus status = IoStatus::kOk;
  size_t bytes = 0;
  // kError: a description with static storage duration (an errno description from
  // errno_reason(), or an OpenSSL reason string), usable as an error reason without copying.
  const char* reason = nullptr;
};

class Transport {
 public:
  virtual ~Transport() = default;

  // Takes over a connected, non-blocking socket (it does not close it: the connection owns fd).
  // Drops any state of a previous connection, but keeps what should survive a reconnect (the TLS
  // session to resume).
  virtual void attach(int fd) = 0;
  // Forgets the socket; the connection closes it. A TLS session is not shut down cleanly (no
  // close_notify is sent: a load generator closing thousands of connections does not wait).
  virtual void detach() = 0;

  // Drives the handshake; kOk once it is complete (immediately for TCP). kWouldBlock: call again
  // when the socket is readable (or writable, if want_write()).
  virtual IoResult handshake() = 0;
  virtual IoResult read(char* buf, size_t len) = 0;
  virtual IoResult write(const char* data, size_t len) = 0;
  // After kWouldBlock: true when the transport waits for the socket to become writable (TLS may
  // need to write during a read, or read during a write).
  virtual bool want_write() const { return false; }
  // Bytes already received but not yet returned by read() (non-zero: at least that much; TLS with
  // read-ahead may hold whole records still encrypted): an edge-triggered caller must read until
  // kWouldBlock before waiting for the socket again.
  virtual size_t buffered() const { return 0; }
  // Half-closes the write side once everything written so far is on its way (plain streams).
  virtual void shutdown_write() {}
  // The socket reported new bytes or a close (closed: the event said the peer closed). A caller
  // that reports every such event lets TLS end a read loop without the read that would only say
  // would-block: once a socket read returned less than asked, nothing more can arrive unseen.
  virtual void readable_edge(bool /*closed*/) {}

  // Plain TCP only: drops up to len received bytes in the kernel without copying them (recv with
  // MSG_TRUNC). Transports that cannot return false from can_discard() and are never asked.
  virtual bool can_discard() const { return false; }
  virtual IoResult discard(size_t /*len*/) { return IoResult{IoStatus::kError, 0, "unsupported"}; }

  // After a completed handshake (empty / false for TCP). Version and cipher views point at static
  // NUL-terminated strings (OpenSSL's own), so counters may keep them by pointer.
  virtual std::string_view alpn() const { return {}; }         // "h2", "http/1.1" or empty
  virtual std::string_view tls_version() const { return {}; }  // "TLSv1.3"
  virtual std::string_view tls_cipher() const { return {}; }   // "TLS_AES_256_GCM_SHA384"
  virtual bool tls_resumed() const { return false; }
  virtual bool is_tls() const { return false; }
};

// recv(MSG_TRUNC) of up to len bytes on fd, as TcpTransport::discard does it.
IoResult discard_from_socket(int fd, size_t len);
// recv(MSG_DONTWAIT) into buf, as TcpTransport::read does it.
IoResult recv_from_socket(int fd, char* buf, size_t len);

// Plain TCP (or a Unix domain socket): read/write are recv/send with MSG_DONTWAIT (and
// MSG_NOSIGNAL), discard is recv(MSG_TRUNC) issued as a raw syscall (see transport.cc).
class TcpTransport final : public Transport {
 public:
  // can_discard: false for Unix domain sockets, whose MSG_TRUNC does not drop stream bytes.
  explicit TcpTransport(bool can_discard = true) : can_discard_(can_discard) {}
  void attach(int fd) override { fd_ = fd; }
  void detach() override { fd_ = -1; }
  IoResult handshake() override { return IoResult{}; }
  IoResult read(char* buf, size_t len) override;
  IoResult write(const char* data, size_t len) override;
  void shutdown_write() override;
  bool can_discard() const override { return can_discard_; }
  IoResult discard(size_t len) override;

 private:
  int fd_ = -1;
  bool can_discard_;
};

}  // namespace hail
