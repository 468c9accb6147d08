// Helpers shared by the TLS tests: the self-signed certificate and key they all use, and a
// temporary file removed when done. Test code only; one thread.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "net/tls.h"

namespace hail::tls_test {

inline const PemPair& test_pair() {
  static const PemPair pair = [] {
    auto generated = generate_self_signed("hail.test");
    if (!generated) {
      ADD_FAILURE() << generated.error().message;
      return PemPair{};
    }
    return generated.value();
  }();
  return pair;
}

// A file that the test removes when done.
struct TempFile {
  explicit TempFile(const std::string& contents) {
    path = testing::TempDir() + "hail_tls_XXXXXX";
    const int fd = mkstemp(path.data());
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::write(fd, contents.data(), contents.size()), static_cast<ssize_t>(contents.size()));
    ::close(fd);
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
};

}  // namespace hail::tls_test
