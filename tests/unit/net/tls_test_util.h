// Helpers shared by the TLS tests: the self-signed certificate and key they all use, a temporary
// file removed when done, non-blocking socket pairs and contexts, and handshakes pumped in turn by
// the one test thread. Test code only; one thread.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "net/tls.h"

namespace hail::tls_test {

inline const PemPair& test_pair() {
  static const PemPair pair = [] {
    auto generated = generate_self_signed("hail.test");
    if (!generated) {
      ADD_FAILURE() << generated.error().message;
      return PemPair{};
    }
    return generated.value();
  }();
  return pair;
}

// A file that the test removes when done.
struct TempFile {
  explicit TempFile(const std::string& contents) {
    path = testing::TempDir() + "hail_tls_XXXXXX";
    const int fd = mkstemp(path.data());
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::write(fd, contents.data(), contents.size()), static_cast<ssize_t>(contents.size()));
    ::close(fd);
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
};

// OpenSSL writes to sockets with write(): a closed peer must be EPIPE, not a fatal signal (the
// CLI ignores SIGPIPE the same way).
inline const bool kSigpipeIgnored = [] {
  std::signal(SIGPIPE, SIG_IGN);
  return true;
}();

inline constexpr int kMaxRounds = 1000;  // a stuck exchange fails the test instead of hanging it

struct SocketPair {
  SocketPair() {
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
  }
  ~SocketPair() {
    close_end(0);
    close_end(1);
  }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
  void close_end(int i) {
    if (fds[i] >= 0) ::close(fds[i]);
    fds[i] = -1;
  }
  int fds[2] = {-1, -1};
};

inline std::unique_ptr<TlsServerContext> make_server(TlsServerConfig config = {}) {
  config.cert_pem = test_pair().cert_pem;
  config.key_pem = test_pair().key_pem;
  auto server = TlsServerContext::create(config);
  if (!server) {
    ADD_FAILURE() << server.error().message;
    return nullptr;
  }
  return std::move(server.value());
}

inline std::unique_ptr<TlsClientContext> make_client(const TlsClientConfig& config = {}) {
  auto client = TlsClientContext::create(config);
  if (!client) {
    ADD_FAILURE() << client.error().message;
    return nullptr;
  }
  return std::move(client.value());
}

struct Outcome {
  IoResult client{IoStatus::kWouldBlock, 0, nullptr};
  IoResult server{IoStatus::kWouldBlock, 0, nullptr};
};

// Drives both handshakes in turn until neither would block any more.
inline Outcome pump_handshake(Transport& client, Transport& server) {
  Outcome outcome;
  for (int round = 0; round < kMaxRounds; ++round) {
    if (outcome.client.status == IoStatus::kWouldBlock) outcome.client = client.handshake();
    if (outcome.server.status == IoStatus::kWouldBlock) outcome.server = server.handshake();
    if (outcome.client.status != IoStatus::kWouldBlock &&
        outcome.server.status != IoStatus::kWouldBlock) {
      break;
    }
  }
  return outcome;
}

inline Outcome connect(Transport& client, Transport& server, SocketPair& sockets) {
  client.attach(sockets.fds[0]);
  server.attach(sockets.fds[1]);
  return pump_handshake(client, server);
}

inline bool succeeded(const Outcome& outcome) {
  return outcome.client.status == IoStatus::kOk && outcome.server.status == IoStatus::kOk;
}

}  // namespace hail::tls_test
