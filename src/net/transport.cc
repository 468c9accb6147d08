#include "net/transport.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/errno_reason.h"

namespace hail {

namespace {
IoResult from_syscall(ssize_t n) {
  if (n > 0) return IoResult{IoStatus::kOk, static_cast<size_t>(n), nullptr};
  if (n == 0) return IoResult{IoStatus::kEof, 0, nullptr};
  if (errno == EAGAIN || errno == EWOULDBLOCK) return IoResult{IoStatus::kWouldBlock, 0, nullptr};
  return IoResult{IoStatus::kError, 0, errno_reason(errno)};
}
}  // namespace

IoResult TcpTransport::read(char* buf, size_t len) {
  return recv_from_socket(fd_, buf, len);
}

IoResult recv_from_socket(int fd, char* buf, size_t len) {
  ssize_t n;
  do {
    n = recv(fd, buf, len, MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  return from_syscall(n);
}

IoResult TcpTransport::write(const char* data, size_t len) {
  ssize_t n;
  do {
    n = send(fd_, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
  if (n == 0) return IoResult{IoStatus::kWouldBlock, 0, nullptr};  // len > 0: cannot happen
  return from_syscall(n);
}

void TcpTransport::shutdown_write() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

IoResult TcpTransport::discard(size_t len) {
  return discard_from_socket(fd_, len);
}

IoResult discard_from_socket(int fd, size_t len) {
  // recv(MSG_TRUNC) on TCP drops up to `len` received bytes without copying them anywhere. Issued
  // as a raw syscall: sanitizers' recv interceptors would otherwise record a write of `len` bytes
  // at the null buffer, a false data race between workers under ThreadSanitizer.
  ssize_t n;
  do {
    n = syscall(SYS_recvfrom, fd, nullptr, len, MSG_TRUNC | MSG_DONTWAIT, nullptr, nullptr);
  } while (n < 0 && errno == EINTR);
  return from_syscall(n);
}

}  // namespace hail
