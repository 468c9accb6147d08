// `hail --version`: the version, the commit and build type it was built from, and the libraries
// compiled in with their versions (as linked at run time where the library can say). Owner: cli.
// Pure: any thread.
#pragma once

#include <string>

namespace hail {

std::string version_text();

}  // namespace hail
