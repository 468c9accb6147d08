#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "net/connect_probe.h"
#include "unit/support/loopback_listener.h"

namespace hail {
namespace {

constexpr uint64_t kSecondNs = 1'000'000'000;

// A loopback listener on an ephemeral port.
using Listener = test::LoopbackListener;

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
