// hail_docgen: writes what the build installs beside hail from its flag tables: the manual page's
// scdoc source (`man`), and the bash and zsh completion scripts (`bash`, `zsh`). A build tool, not
// installed. Main thread.
#include <cstdio>
#include <cstring>

#include "cli/cli_docs.h"

int main(int argc, char** argv) {
  using namespace hail;
  if (argc != 2) {
    std::fprintf(stderr, "usage: hail_docgen man|bash|zsh\n");
    return 2;
  }
  const std::vector<CommandDoc> commands = command_docs();
  std::string out;
  if (std::strcmp(argv[1], "man") == 0) {
    out = render_man_scdoc(commands);
  } else if (std::strcmp(argv[1], "bash") == 0) {
    out = render_bash_completion(commands);
  } else if (std::strcmp(argv[1], "zsh") == 0) {
    out = render_zsh_completion(commands);
  } else {
    std::fprintf(stderr, "hail_docgen: unknown output \"%s\"\n", argv[1]);
    return 2;
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}
