// `hail webbench [webbench's options] URL`, also what hail does when started under the name
// "webbench": webbench 1.5's command line, messages, banner, summary and exit statuses on hail's
// engine. Owner: cli. Main thread.
#pragma once

#include <string>
#include <vector>

namespace hail {

// `args`: the words after "webbench" (argv[1..] when started as webbench). Returns the exit status
// webbench documents: 0 after a run (or -V), 1 when the target does not accept a connection,
// 2 for a bad command line.
int run_webbench_command(const std::vector<std::string>& args);

}  // namespace hail
