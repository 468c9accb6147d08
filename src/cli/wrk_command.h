// `hail wrk [wrk's options] URL [script arguments]`, also what hail does when started under the
// name "wrk": wrk 4.1's command line, messages, banner, report and exit statuses on hail's engine.
// Owner: cli. Main thread.
#pragma once

#include <string>
#include <vector>

namespace hail {

// `args`: the words after "wrk" (argv[1..] when started as wrk). Returns the exit status wrk would
// give: 0 after a run, 1 for a bad command line or an unreachable target.
int run_wrk_command(const std::vector<std::string>& args);

}  // namespace hail
