// Targets: where a run's connections go and what they send — the resolved address of the URL's
// host (or of each host of a --urls file), the TLS settings per host, and the request templates
// built once per run. Called by the runner on the main thread before workers start; never prints.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "http/request.h"
#include "load/run_options.h"
#include "net/address.h"
#include "net/tls.h"

namespace hail {

// Where a share of the connections goes: the URL's host, or one host of a --urls file.
struct TargetGroup {
  // One address (pick_address); a worker's connections take several round-robin.
  std::vector<SocketAddress> addresses;
  std::shared_ptr<const TlsClientConfig> tls;  // null: cleartext
  double weight = 1;                           // share of the connections
};

struct TargetPlan {
  std::vector<TargetGroup> groups;  // one per host (the URL's host without --urls)
  // Without --urls: the one request. With --urls: one per line, and the lines of each group.
  std::vector<RequestTemplate> templates;
  std::vector<std::vector<uint32_t>> group_lines;
  std::vector<std::string> labels;  // per line (--urls), the per-tag report's names
};

// Resolves every host and builds every request. Errors: unresolvable hosts, --connect-to or
// --unix-socket with a --urls file naming several hosts.
Result<TargetPlan> plan_targets(const RunOptions& options);

// The group of every connection of a run over several hosts: `threads` workers, worker w's
// connection j being the run's connection j * threads + w. Groups follow a smooth weighted
// round-robin over the run's connections (nginx's), so that every prefix of them — what a stage
// target opens — is split by weight as closely as whole connections allow, and every group gets
// at least one of the first `connections`. Returns one vector per worker, `per_worker` long.
std::vector<std::vector<uint16_t>> connection_groups(const std::vector<TargetGroup>& groups,
                                                     uint32_t connections, uint32_t threads,
                                                     uint32_t per_worker);

// Of several resolved addresses, the first that accepts a connection (probed, blocking up to
// timeout_ns each), or the first when none does; a single address is returned unprobed.
std::vector<SocketAddress> pick_address(const std::vector<SocketAddress>& addresses,
                                        uint64_t timeout_ns);

}  // namespace hail
