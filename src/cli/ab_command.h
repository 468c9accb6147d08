// `hail ab [ab's options] URL`, also what hail does when started under the name "ab": ApacheBench
// 2.3's command line, messages, progress lines, report, -e/-g files and exit statuses on hail's
// engine. Owner: cli. Main thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hail {

// `args`: the words after "ab" (argv[1..] when started as ab). `program`: argv[0] as ab would
// see it ("ab" for `hail ab`), for its usage text and messages. Returns the exit status ab would
// give: 0 after a run, 22 for a bad command line, 1 for its other refusals or an interrupted run,
// and ab's APR error codes (modulo 256) when the target cannot be resolved or reached.
int run_ab_command(const std::vector<std::string>& args, std::string_view program);

}  // namespace hail
