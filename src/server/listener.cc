#include "server/listener.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace hail {

namespace {

Result<int> listen_or_close(int fd, const std::string& what) {
  if (listen(fd, SOMAXCONN) != 0) {
    const int err = errno;
    close(fd);
    return make_error("cannot listen on " + what + ": " + std::strerror(err));
  }
  return fd;
}

// Is someone accepting on the socket file at `address`? (connect succeeds or is merely refused
// for a full backlog: EAGAIN.)
bool socket_is_live(const SocketAddress& address) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return false;
  const bool live =
      connect(fd, reinterpret_cast<const sockaddr*>(&address.storage), address.len) == 0 ||
      errno == EAGAIN;
  close(fd);
  return live;
}

}  // namespace

void set_port(SocketAddress* address, uint16_t port) {
  if (address->family() == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&address->storage)->sin_port = htons(port);
  } else if (address->family() == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(&address->storage)->sin6_port = htons(port);
  }
}

Result<uint16_t> bound_port(int fd) {
  SocketAddress bound;
  bound.len = sizeof bound.storage;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound.storage), &bound.len) != 0) {
    return make_error(std::string("getsockname: ") + std::strerror(errno));
  }
  if (bound.family() == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in*>(&bound.storage)->sin_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in6*>(&bound.storage)->sin6_port);
}

// SO_REUSEPORT only when several reactors share the port: it lets the kernel spread connections
// over their sockets, but it would also let a second server of the same user silently share an
// explicit port, so a single reactor goes without it and a busy port is an error as usual.
Result<int> open_tcp_listener(const SocketAddress& address, bool reuse_port) {
  const int fd = socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error(std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  // SO_REUSEADDR: a restarted server can bind while old connections sit in TIME_WAIT.
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
    const int err = errno;
    close(fd);
    return make_error("SO_REUSEPORT: " + std::string(std::strerror(err)));
  }
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address.storage), address.len) != 0) {
    const int err = errno;
    close(fd);
    return make_error("cannot bind " + address.to_string() + ": " + std::strerror(err));
  }
  return listen_or_close(fd, address.to_string());
}

Result<int> open_unix_listener(const std::string& path) {
  auto address = unix_address(path);
  if (!address) return make_error("--unix-socket: " + address.error().message);
  struct stat st {};
  if (lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      return make_error("--unix-socket " + path + ": exists and is not a socket");
    }
    if (socket_is_live(address.value())) {
      return make_error("--unix-socket " + path + ": a server is already listening there");
    }
    if (unlink(path.c_str()) != 0 && errno != ENOENT) {
      return make_error("--unix-socket " + path +
                        ": cannot remove the stale socket: " + std::strerror(errno));
    }
  }
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_error(std::string("socket: ") + std::strerror(errno));
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address->storage), address->len) != 0) {
    const int err = errno;
    close(fd);
    return make_error("--unix-socket " + path + ": cannot bind: " + std::strerror(err));
  }
  return listen_or_close(fd, path);
}

}  // namespace hail
