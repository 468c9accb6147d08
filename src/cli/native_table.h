// The native front-end's flag table (`hail [options] URL`): what parse_native_flags loops over and
// native_usage renders. Owner: cli. Read-only data: any thread.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "cli/flag_table.h"
#include "cli/native_flags.h"
#include "cli/run_rules.h"

namespace hail {

// What the flags fill as they are read: the command, what was given, and --urls / --mix, which
// are applied once the URL is known.
struct NativeState {
  NativeCommand cmd;
  GivenFlags given;
  std::string urls_path;
  bool mix_given = false;
  bool interval_given = false;
  bool metrics_linger_given = false;
  std::vector<std::string> monitors;         // --monitor values, checked once every flag is read
  std::vector<std::string> monitor_metrics;  // --monitor-metric
  // Scale-out, resolved once every flag is read (native_flags.cc: the launcher's environment).
  bool shard_given = false;  // --shard (overrides the environment)
  uint32_t shards = 0;       // --shards: the count for a Kubernetes Indexed Job (0: not given)
  std::string start_at;      // --start-at, as typed
};

using NativeFlag = FlagDef<NativeState, Status>;

std::span<const NativeFlag> native_flag_table();

}  // namespace hail
