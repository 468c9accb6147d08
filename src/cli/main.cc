// hail's entry point: picks the front-end (native flags, `serve`, `demo`, `report`, `merge`,
// `compare`, `wrk`, `wrk2`, `ab`, `webbench`, or theirs when started under the name "wrk", "wrk2",
// "ab" or "webbench") and maps its outcome to the exit status (native: 0 ran, 1 could not run, 2
// usage; the other tools' front-ends use their tool's statuses). Main thread.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cli/ab_command.h"
#include "cli/compare_command.h"
#include "cli/native_flags.h"
#include "cli/result_commands.h"
#include "cli/run_command.h"
#include "cli/search_command.h"
#include "cli/serve_command.h"
#include "cli/version.h"
#include "cli/webbench_command.h"
#include "cli/wrk_command.h"
#include "net/event_loop.h"

#ifndef HAIL_VERSION_STRING
#define HAIL_VERSION_STRING "0.0.0"
#endif

int main(int argc, char** argv) {
  using namespace hail;
  signal(SIGPIPE, SIG_IGN);  // a peer's reset must surface as EPIPE, never kill the process
  // HAIL_IO: what --io auto means for every front-end (wrk, ab, ... have no --io of their own).
  if (const char* io = std::getenv("HAIL_IO"); io != nullptr && *io != '\0') {
    auto choice = parse_io_choice(io);
    if (!choice) {
      std::fprintf(stderr, "hail: HAIL_IO=%s: expected auto, epoll or uring\n", io);
      return kExitUsage;
    }
    set_auto_io(choice.value());
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  // A link named wrk, wrk2, ab or webbench (./run install-aliases) makes hail a drop-in for that
  // tool in existing scripts.
  const char* slash = argc > 0 ? std::strrchr(argv[0], '/') : nullptr;
  const char* program = slash != nullptr ? slash + 1 : (argc > 0 ? argv[0] : "");
  if (std::strcmp(program, "wrk") == 0) return run_wrk_command(args);
  if (std::strcmp(program, "wrk2") == 0) return run_wrk2_command(args);
  if (std::strcmp(program, "webbench") == 0) return run_webbench_command(args);
  if (std::strcmp(program, "ab") == 0) return run_ab_command(args, argv[0]);
  if (!args.empty() && args[0] == "wrk") {
    return run_wrk_command({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "wrk2") {
    return run_wrk2_command({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "ab") return run_ab_command({args.begin() + 1, args.end()}, "ab");
  if (!args.empty() && args[0] == "webbench") {
    return run_webbench_command({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "serve") {
    return run_serve_command({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "demo") {
    return run_demo_command({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "report") {
    return run_report_command({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "search") {
    return run_search_command({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "compare") {
    return run_compare_command({args.begin() + 1, args.end()});
  }
  if (!args.empty() && args[0] == "merge") {
    return run_merge_command({args.begin() + 1, args.end()});
  }
  auto cmd = parse_native_flags(args);
  if (!cmd) {
    std::fprintf(stderr, "hail: %s\n", cmd.error().message.c_str());
    return kExitUsage;
  }
  if (cmd->show_help) {
    std::fputs(native_usage().c_str(), stdout);
    return kExitOk;
  }
  if (cmd->show_version) {
    std::fputs(version_text().c_str(), stdout);
    return kExitOk;
  }
  return run_and_report(cmd->run, native_outputs(cmd.value()));
}
