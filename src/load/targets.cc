#include "load/targets.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include "core/clock.h"
#include "http/raw_request.h"
#include "net/connect_probe.h"

namespace hail {

// When a name resolves to several addresses (localhost: ::1 and 127.0.0.1), load goes to one of
// them, the first that accepts a connection (as wrk and curl do): spreading connections over all of
// them would turn a server listening on one family into a stream of connect errors. A single
// address is used as it is, without an extra probing connection, so that server-side connection
// counts stay exact.
std::vector<SocketAddress> pick_address(const std::vector<SocketAddress>& addresses,
                                        uint64_t timeout_ns) {
  if (addresses.size() <= 1) return addresses;
  for (const SocketAddress& a : addresses) {
    const int fd = connect_within(reinterpret_cast<const sockaddr*>(&a.storage), a.len, timeout_ns);
    if (fd < 0) continue;
    close(fd);
    return {a};
  }
  return {addresses.front()};  // none answers: the run counts the connect errors
}

namespace {
// Where connections go: a Unix socket, the --connect-to address, or the URL's host.
Result<std::vector<SocketAddress>> target_addresses(const RunOptions& options, const Url& url) {
  if (!options.unix_socket.empty()) {
    auto a = unix_address(options.unix_socket);
    if (!a) return a.error();
    return std::vector<SocketAddress>{a.value()};
  }
  if (!options.connect_host.empty()) return resolve(options.connect_host, options.connect_port);
  return resolve(url.host, url.port);
}

// The TLS settings of an https:// run: SNI from the URL's host (never for an IP literal, RFC 6066
// §3), ALPN from the protocol choice, the certificate checked against the URL's host.
std::shared_ptr<const TlsClientConfig> tls_config(const RunOptions& options, const Url& url) {
  if (url.scheme != "https") return nullptr;
  auto tls = std::make_shared<TlsClientConfig>(options.tls);
  const bool ip_literal = url.host_is_ipv6 || is_ipv4_literal(url.host);
  if (tls->sni.empty() && !ip_literal) tls->sni = url.host;
  if (tls->alpn.empty()) {
    switch (options.protocol) {
      case HttpProtocol::kAuto:
        tls->alpn = {"h2", "http/1.1"};
        break;
      case HttpProtocol::kHttp1:
        tls->alpn = {"http/1.1"};
        break;
      case HttpProtocol::kHttp2:
        tls->alpn = {"h2"};
        break;
    }
  }
  if (tls->verify_host.empty()) tls->verify_host = tls->sni.empty() ? url.host : tls->sni;
  return tls;
}
}  // namespace

std::vector<std::vector<uint16_t>> connection_groups(const std::vector<TargetGroup>& groups,
                                                     uint32_t connections, uint32_t threads,
                                                     uint32_t per_worker) {
  const size_t total = static_cast<size_t>(per_worker) * threads;
  std::vector<uint16_t> sequence(total, 0);
  if (groups.size() > 1) {
    std::vector<double> current(groups.size(), 0.0);
    double sum = 0;
    for (const TargetGroup& g : groups) sum += g.weight;
    for (size_t i = 0; i < total; ++i) {
      size_t best = 0;
      for (size_t g = 0; g < groups.size(); ++g) {
        current[g] += groups[g].weight;
        if (current[g] > current[best]) best = g;
      }
      current[best] -= sum;
      sequence[i] = static_cast<uint16_t>(best);
    }
    // A light group may not come up among the first `connections`: it takes the last place of
    // the group that has the most of them.
    const size_t first = std::min<size_t>(connections, total);
    for (size_t g = 0; g < groups.size(); ++g) {
      std::vector<size_t> count(groups.size(), 0);
      for (size_t i = 0; i < first; ++i) ++count[sequence[i]];
      if (count[g] > 0) continue;
      const size_t most = std::max_element(count.begin(), count.end()) - count.begin();
      if (count[most] <= 1) break;  // fewer connections than groups: refused earlier
      for (size_t i = first; i-- > 0;) {
        if (sequence[i] == most) {
          sequence[i] = static_cast<uint16_t>(g);
          break;
        }
      }
    }
  }
  std::vector<std::vector<uint16_t>> out(threads);
  for (uint32_t w = 0; w < threads; ++w) {
    for (uint32_t j = 0; j < per_worker; ++j) out[w].push_back(sequence[size_t{j} * threads + w]);
  }
  return out;
}

Result<TargetPlan> plan_targets(const RunOptions& options) {
  TargetPlan plan;
  if (options.mix.empty()) {
    auto addresses = target_addresses(options, options.url);
    if (!addresses) return addresses.error();
    plan.groups.push_back(TargetGroup{pick_address(addresses.value(), options.timeout_ns),
                                      tls_config(options, options.url), 1.0});
    if (options.raw_request.empty()) {
      plan.templates.push_back(
          make_request_template(options.request, options.url.scheme, options.http09));
    } else if (Status st =
                   parse_raw_requests(options.raw_request, options.url.scheme, &plan.templates);
               !st) {
      return make_error("cannot send the request: " + st.error().message);
    }
    plan.templates.resize(1);
    plan.group_lines.push_back({0});
    return plan;
  }
  const std::vector<HostGroup> hosts = group_by_host(options.mix);
  if (hosts.size() > 1 && (!options.unix_socket.empty() || !options.connect_host.empty())) {
    return make_error(std::string(options.unix_socket.empty() ? "--connect-to" : "--unix-socket") +
                      " applies to one host, and the --urls file names " +
                      std::to_string(hosts.size()) + " (" + hosts[0].name() + ", " +
                      hosts[1].name() + ", ...)");
  }
  for (const MixLine& line : options.mix) {
    RequestSpec spec = options.request;
    spec.method = line.method;
    spec.path = line.url.path;
    spec.authority = line.url.authority();
    spec.body = line.body;
    plan.templates.push_back(make_request_template(spec, line.url.scheme, options.http09));
    plan.labels.push_back(line.label);
  }
  for (const HostGroup& host : hosts) {
    const Url& url = options.mix[host.lines.front()].url;
    auto addresses = target_addresses(options, url);
    if (!addresses) return addresses.error();
    plan.groups.push_back(TargetGroup{pick_address(addresses.value(), options.timeout_ns),
                                      tls_config(options, url), host.weight});
    plan.group_lines.push_back(host.lines);
  }
  return plan;
}

}  // namespace hail
