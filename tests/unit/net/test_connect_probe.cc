#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "net/connect_probe.h"

namespace hail {
namespace {

constexpr uint64_t kSecondNs = 1'000'000'000;

// A loopback listener on an ephemeral port.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&a), len), 0);
    EXPECT_EQ(listen(fd_, 4), 0);
    EXPECT_EQ(getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port_ = ntohs(a.sin_port);
  }
  ~Listener() { close(fd_); }
  uint16_t port() const { return port_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

TEST(ConnectProbe, ReachesAListener) {
  Listener listener;
  const ProbeOutcome out = probe_tcp("127.0.0.1", listener.port(), kSecondNs);
  EXPECT_TRUE(out.reachable);
  EXPECT_EQ(out.resolve_error, 0);
  EXPECT_EQ(out.connect_errno, 0);
  ProbeOutcome first;
  const int fd = connect_first("localhost", listener.port(), kSecondNs, &first);
  EXPECT_GE(fd, 0);  // ::1 may refuse first; 127.0.0.1 then accepts
  EXPECT_TRUE(first.reachable);
  if (fd >= 0) close(fd);
}

TEST(ConnectProbe, SaysWhyNot) {
  uint16_t closed_port = 0;
  {
    Listener gone;
    closed_port = gone.port();
  }
  const ProbeOutcome refused = probe_tcp("127.0.0.1", closed_port, kSecondNs);
  EXPECT_FALSE(refused.reachable);
  EXPECT_EQ(refused.connect_errno, ECONNREFUSED);
  const ProbeOutcome unknown = probe_tcp("nonexistent.invalid", 80, kSecondNs);
  EXPECT_FALSE(unknown.reachable);
  EXPECT_NE(unknown.resolve_error, 0);
}

TEST(ConnectProbe, ConnectWithinGivesASocket) {
  Listener listener;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(listener.port());
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int fd = connect_within(reinterpret_cast<sockaddr*>(&a), sizeof a, kSecondNs);
  ASSERT_GE(fd, 0);
  close(fd);
}

}  // namespace
}  // namespace hail
