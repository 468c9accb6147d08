// Listening sockets of `hail serve`: TCP (one per reactor with SO_REUSEPORT when there are several)
// and Unix domain (one, shared; a stale socket file is replaced, a live one is an error).
// Owner: server. Called by Server::start and stop on the thread that starts or stops the server.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"
#include "net/address.h"

namespace hail {

// A non-blocking listening TCP socket on `address`. `reuse_port`: SO_REUSEPORT, so that several
// reactors can bind the same port.
Result<int> open_tcp_listener(const SocketAddress& address, bool reuse_port);

// The port a socket is bound to (getsockname), or an error.
Result<uint16_t> bound_port(int fd);
void set_port(SocketAddress* address, uint16_t port);

// A non-blocking listening Unix domain stream socket at `path`. An existing socket file nobody
// listens on (left by a crash) is removed first; a live one, or any other kind of file, is an
// error:
// "--unix-socket /x: a server is already listening there".
Result<int> open_unix_listener(const std::string& path);

}  // namespace hail
