// `hail wrk [wrk's options] URL [script arguments]` and `hail wrk2 ...`, also what hail does when
// started under the name "wrk" or "wrk2": wrk 4.1's or wrk2's command line, messages, banner,
// report and exit statuses on hail's engine. Owner: cli. Main thread.
#pragma once

#include <string>
#include <vector>

namespace hail {

// `args`: the words after "wrk" (argv[1..] when started as wrk). Returns the exit status wrk would
// give: 0 after a run, 1 for a bad command line or an unreachable target.
int run_wrk_command(const std::vector<std::string>& args);
// The same for wrk2 (constant rate, -R required): 0 after a run, 1 for a bad command line or an
// unreachable target.
int run_wrk2_command(const std::vector<std::string>& args);

}  // namespace hail
