#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <cstring>
#include <string>

#include "net/address.h"

namespace hail {
namespace {

bool is_loopback(const SocketAddress& a) {
  if (a.family() == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a.storage);
    return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  }
  if (a.family() == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a.storage);
    return IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
  }
  return false;
}

TEST(Resolve, Ipv4Literal) {
  auto r = resolve("127.0.0.1", 8080);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  const SocketAddress& a = r->front();
  EXPECT_EQ(a.family(), AF_INET);
  EXPECT_EQ(a.len, sizeof(sockaddr_in));
  EXPECT_EQ(a.to_string(), "127.0.0.1:8080");
}

TEST(Resolve, Ipv6Literal) {
  auto r = resolve("::1", 443);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 1u);
  const SocketAddress& a = r->front();
  EXPECT_EQ(a.family(), AF_INET6);
  EXPECT_EQ(a.len, sizeof(sockaddr_in6));
  EXPECT_EQ(a.to_string(), "[::1]:443");
}

TEST(Resolve, LocalhostGivesOnlyLoopbackAddresses) {
  auto r = resolve("localhost", 80);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_FALSE(r->empty());
  for (const SocketAddress& a : r.value()) {
    EXPECT_TRUE(is_loopback(a)) << a.to_string();
    const std::string text = a.to_string();
    EXPECT_EQ(text.substr(text.size() - 3), ":80") << text;
    for (const SocketAddress& b : r.value()) {
      if (&a != &b) {
        EXPECT_NE(a.to_string(), b.to_string()) << "duplicate address";
      }
    }
  }
}

TEST(Resolve, UnknownHostIsAnError) {
  // The .invalid TLD never resolves (RFC 6761); without a resolver this fails just the same.
  auto r = resolve("no-such-host.invalid", 80);
  ASSERT_FALSE(r.ok());
  const std::string prefix = "cannot resolve host \"no-such-host.invalid\": ";
  EXPECT_EQ(r.error().message.compare(0, prefix.size(), prefix), 0) << r.error().message;
  EXPECT_GT(r.error().message.size(), prefix.size());
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
}

TEST(Resolve, EmptyHostIsAnError) {
  auto r = resolve("", 80);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "cannot resolve host \"\": empty host name");
}

TEST(SocketAddress, ToStringOfHandBuiltAddresses) {
  SocketAddress v4;
  auto* in4 = reinterpret_cast<sockaddr_in*>(&v4.storage);
  in4->sin_family = AF_INET;
  in4->sin_port = htons(65535);
  ASSERT_EQ(inet_pton(AF_INET, "192.0.2.10", &in4->sin_addr), 1);
  v4.len = sizeof(sockaddr_in);
  EXPECT_EQ(v4.to_string(), "192.0.2.10:65535");

  SocketAddress v6;
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&v6.storage);
  in6->sin6_family = AF_INET6;
  in6->sin6_port = htons(1);
  ASSERT_EQ(inet_pton(AF_INET6, "2001:db8::42", &in6->sin6_addr), 1);
  v6.len = sizeof(sockaddr_in6);
  EXPECT_EQ(v6.to_string(), "[2001:db8::42]:1");
  in6->sin6_scope_id = 3;
  EXPECT_EQ(v6.to_string(), "[2001:db8::42%3]:1");

  SocketAddress empty;
  EXPECT_EQ(empty.family(), AF_UNSPEC);
  EXPECT_EQ(empty.to_string(), "<address family 0>");
}

}  // namespace
}  // namespace hail
