// `hail serve` (run the built-in target server until SIGINT/SIGTERM) and `hail demo` (start it on
// an ephemeral loopback port and benchmark it for about 5 s). Main thread.
#pragma once

#include <string>
#include <vector>

namespace hail {

int run_serve_command(const std::vector<std::string>& args);
int run_demo_command(const std::vector<std::string>& args);

}  // namespace hail
