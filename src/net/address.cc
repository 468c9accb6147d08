#include "net/address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <memory>

namespace hail {

std::string SocketAddress::to_string() const {
  char text[INET6_ADDRSTRLEN];
  if (family() == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&storage);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(v4->sin_port));
  }
  if (family() == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&storage);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    // Appends rather than operator+ chains: GCC 12 warns falsely (-Wrestrict) on "[" + text.
    std::string out(1, '[');
    out.append(text);
    if (v6->sin6_scope_id != 0) out.append(1, '%').append(std::to_string(v6->sin6_scope_id));
    out.append("]:").append(std::to_string(ntohs(v6->sin6_port)));
    return out;
  }
  if (family() == AF_UNIX) {
    const auto* un = reinterpret_cast<const sockaddr_un*>(&storage);
    return "unix:" + std::string(un->sun_path);
  }
  return "<address family " + std::to_string(family()) + ">";
}

Result<std::vector<SocketAddress>> resolve(const std::string& host, uint16_t port) {
  const std::string prefix = "cannot resolve host " + quote(host) + ": ";
  if (host.empty()) return make_error(prefix + "empty host name");

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  // No AI_ADDRCONFIG: it hides ::1 on hosts whose only IPv6 address is loopback (containers, CI).
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* raw = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &raw);
  if (rc != 0) {
    return make_error(prefix + (rc == EAI_SYSTEM ? std::strerror(errno) : gai_strerror(rc)));
  }
  const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> list(raw, freeaddrinfo);

  std::vector<SocketAddress> out;
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
    SocketAddress address;
    std::memcpy(&address.storage, ai->ai_addr, ai->ai_addrlen);
    address.len = ai->ai_addrlen;
    // /etc/hosts may list an address twice; a duplicate would get twice the connections.
    bool seen = false;
    for (const SocketAddress& other : out) {
      seen = seen || (other.len == address.len &&
                      std::memcmp(&other.storage, &address.storage, address.len) == 0);
    }
    if (!seen) out.push_back(address);
  }
  if (out.empty()) return make_error(prefix + "no addresses");
  return out;
}

Result<SocketAddress> unix_address(const std::string& path) {
  SocketAddress address;
  auto* un = reinterpret_cast<sockaddr_un*>(&address.storage);
  if (path.empty() || path.size() >= sizeof un->sun_path) {
    return make_error("invalid Unix socket path " + quote(path) + " (1 to " +
                      std::to_string(sizeof un->sun_path - 1) + " bytes)");
  }
  un->sun_family = AF_UNIX;
  std::memcpy(un->sun_path, path.data(), path.size());
  address.len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
  return address;
}

bool is_ipv4_literal(const std::string& host) {
  in_addr a{};
  return inet_pton(AF_INET, host.c_str(), &a) == 1;
}

}  // namespace hail
